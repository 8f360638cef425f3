"""The review file's format: its table, its append-only guards and the hash that chains its rows.

What makes a review file one (:mod:`schemas.reviews` writes and reads it through these):
the ``case_events`` table and its index, the triggers that refuse anything but the next
event, and :func:`row_hash`. A file whose triggers differ from :data:`TRIGGERS` is refused
for writing; :func:`guard_problems` says how they differ.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from enum import StrEnum
from typing import Any

from schemas.chain import GENESIS


class CaseStatus(StrEnum):
    """Where a finding's case stands."""

    OPEN = "open"
    CONFIRMED = "confirmed"
    DISMISSED = "dismissed"
    ESCALATED = "escalated"
    RESOLVED = "resolved"


#: Columns hashed into each row, in this order.
FIELDS: tuple[str, ...] = (
    "event_id", "finding_key", "hand_id", "code", "action_index", "seat", "status",
    "previous_status", "reason", "assignee", "due_date", "actor", "note", "at",
)  # fmt: skip

_STATUSES = ", ".join(f"'{s.value}'" for s in CaseStatus)
TABLE = f"""
CREATE TABLE case_events (
    event_id        INTEGER PRIMARY KEY,
    finding_key     TEXT NOT NULL,
    hand_id         TEXT NOT NULL,
    code            TEXT NOT NULL,
    action_index    INTEGER,
    seat            INTEGER,
    status          TEXT NOT NULL CHECK (status IN ({_STATUSES})),
    previous_status TEXT NOT NULL CHECK (previous_status IN ({_STATUSES})),
    reason          TEXT,
    assignee        TEXT,
    due_date        TEXT,
    actor           TEXT NOT NULL CHECK (length(trim(actor)) > 0),
    note            TEXT NOT NULL,
    at              TEXT NOT NULL,
    prev_hash       TEXT NOT NULL,
    row_hash        TEXT NOT NULL
)"""
INDEX = "CREATE INDEX case_events_by_key ON case_events (finding_key, event_id)"
#: The guards, by name; a file whose triggers differ from these is refused for writing.
TRIGGERS: dict[str, str] = {
    "case_events_no_update": (
        "CREATE TRIGGER case_events_no_update BEFORE UPDATE ON case_events "
        "BEGIN SELECT RAISE(ABORT, 'reviews are append-only'); END"
    ),
    "case_events_no_delete": (
        "CREATE TRIGGER case_events_no_delete BEFORE DELETE ON case_events "
        "BEGIN SELECT RAISE(ABORT, 'reviews are append-only'); END"
    ),
    "case_events_append_only": (
        "CREATE TRIGGER case_events_append_only BEFORE INSERT ON case_events "
        "WHEN NEW.event_id IS NOT (SELECT coalesce(max(event_id), 0) + 1 FROM case_events) "
        "OR NEW.prev_hash IS NOT coalesce((SELECT row_hash FROM case_events "
        f"ORDER BY event_id DESC LIMIT 1), '{GENESIS}') "
        "BEGIN SELECT RAISE(ABORT, 'reviews are append-only: not the next event'); END"
    ),
}


def row_hash(prev_hash: str, row: dict[str, Any]) -> str:
    """The hash that chains one event to the one before it."""
    fields = json.dumps([row[name] for name in FIELDS], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(f"{prev_hash}\n{fields}".encode()).hexdigest()


def installed_triggers(con: sqlite3.Connection) -> dict[str, str]:
    rows = con.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'case_events'"
    ).fetchall()
    return {name: sql for name, sql in rows}


def guard_problems(con: sqlite3.Connection) -> list[str]:
    installed = installed_triggers(con)
    problems = []
    for name, sql in TRIGGERS.items():
        if name not in installed:
            problems.append(f"trigger {name} is missing")
        elif installed[name] != sql:
            problems.append(f"trigger {name} was altered")
    problems += [f"unexpected trigger {name}" for name in installed if name not in TRIGGERS]
    return problems


def has_table(con: sqlite3.Connection, name: str) -> bool:
    found = con.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
    ).fetchone()
    return found is not None
