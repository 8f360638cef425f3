"""The review store: officers' decisions on findings, kept apart from the main store.

Why a separate SQLite file and not a table in the DuckDB store:

- the main store is written by the nightly job; DuckDB lets one process hold a
  file for writing, so a review written there would either wait for the job or
  make the job fail on the lock. The review file is only ever written by the
  dashboard, so neither can block the other;
- SQLite in WAL mode lets several dashboard processes (two officers) write and
  read the same file at once, with a busy timeout instead of a lock error;
- a re-audit replaces the ``findings`` rows, so decisions cannot hang off row
  ids: they are keyed by the finding's stable identity (hand, code, action
  index, seat), which the same fault keeps across re-audits.

The table is append-only (triggers refuse UPDATE and DELETE): every decision is
a new row with who, when, what and the state it replaced, so the history of a
finding is the rows of its key in order and its state is the latest row.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path

import pandas as pd

#: Longest reviewer name and note accepted, so a pasted log cannot bloat the file.
MAX_REVIEWER = 80
MAX_NOTE = 4000

_DDL = """
CREATE TABLE IF NOT EXISTS reviews (
    review_id       INTEGER PRIMARY KEY AUTOINCREMENT,
    finding_key     TEXT NOT NULL,
    hand_id         TEXT NOT NULL,
    code            TEXT NOT NULL,
    action_index    INTEGER,
    seat            INTEGER,
    status          TEXT NOT NULL CHECK (status IN ('confirmed', 'dismissed')),
    previous_status TEXT NOT NULL
                    CHECK (previous_status IN ('unreviewed', 'confirmed', 'dismissed')),
    reviewer        TEXT NOT NULL CHECK (length(trim(reviewer)) > 0),
    note            TEXT NOT NULL,
    decided_at      TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS reviews_by_key ON reviews (finding_key, review_id);
CREATE TRIGGER IF NOT EXISTS reviews_no_update BEFORE UPDATE ON reviews
BEGIN SELECT RAISE(ABORT, 'reviews are append-only'); END;
CREATE TRIGGER IF NOT EXISTS reviews_no_delete BEFORE DELETE ON reviews
BEGIN SELECT RAISE(ABORT, 'reviews are append-only'); END;
"""

_LATEST_SQL = """
SELECT r.finding_key, r.status AS review_status, r.reviewer, r.note, r.decided_at,
       c.decisions
FROM reviews AS r
JOIN (SELECT finding_key, max(review_id) AS last_id, count(*) AS decisions
      FROM reviews GROUP BY finding_key) AS c
  ON r.review_id = c.last_id
"""

LATEST_COLUMNS = ["finding_key", "review_status", "reviewer", "note", "decided_at", "decisions"]
HISTORY_COLUMNS = ["decided_at", "reviewer", "previous_status", "status", "note"]


class ReviewStatus(StrEnum):
    """The state of a finding in the officer's queue."""

    UNREVIEWED = "unreviewed"
    CONFIRMED = "confirmed"
    DISMISSED = "dismissed"


@dataclass(frozen=True)
class FindingKey:
    """The identity of a finding that survives a re-audit of its hand."""

    hand_id: str
    code: str
    action_index: int | None
    seat: int | None

    def text(self) -> str:
        """The key as one string; ``queries.FINDING_KEY_SQL`` builds the same in DuckDB."""
        return finding_key(self.hand_id, self.code, self.action_index, self.seat)


def finding_key(hand_id: str, code: str, action_index: int | None, seat: int | None) -> str:
    """``hand|code|index|seat`` with ``-`` for a missing index or seat."""
    index = "-" if action_index is None else str(int(action_index))
    seat_text = "-" if seat is None else str(int(seat))
    return f"{hand_id}|{code}|{index}|{seat_text}"


def reviews_path_for(store: Path) -> Path:
    """The review file next to a store: ``openers.duckdb`` → ``openers.reviews.sqlite``."""
    return store.with_name(f"{store.stem}.reviews.sqlite")


@contextmanager
def _connect(path: Path) -> Iterator[sqlite3.Connection]:
    # isolation_level=None: transactions are explicit, so the read of the
    # previous state and the insert happen under one write lock.
    con = sqlite3.connect(path, timeout=10.0, isolation_level=None)
    try:
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA busy_timeout=10000")
        con.executescript(_DDL)
        yield con
    finally:
        con.close()


def record_decision(
    path: Path, key: FindingKey, status: ReviewStatus, reviewer: str, note: str
) -> ReviewStatus:
    """Append one decision and return the state it replaced.

    Raises ``ValueError`` for an empty reviewer, an over-long field, or a status
    that is not a decision.
    """
    reviewer = reviewer.strip()
    if not reviewer:
        raise ValueError("a reviewer name is required")
    if len(reviewer) > MAX_REVIEWER or len(note) > MAX_NOTE:
        raise ValueError(f"reviewer is limited to {MAX_REVIEWER} and note to {MAX_NOTE} characters")
    if status is ReviewStatus.UNREVIEWED:
        raise ValueError("a decision confirms or dismisses a finding")
    text_key = key.text()
    with _connect(path) as con:
        con.execute("BEGIN IMMEDIATE")
        try:
            row = con.execute(
                "SELECT status FROM reviews WHERE finding_key = ? ORDER BY review_id DESC LIMIT 1",
                (text_key,),
            ).fetchone()
            previous = ReviewStatus(row[0]) if row else ReviewStatus.UNREVIEWED
            con.execute(
                "INSERT INTO reviews (finding_key, hand_id, code, action_index, seat, status,"
                " previous_status, reviewer, note, decided_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    text_key,
                    key.hand_id,
                    key.code,
                    key.action_index,
                    key.seat,
                    status.value,
                    previous.value,
                    reviewer,
                    note,
                    datetime.now(UTC).isoformat(timespec="seconds"),
                ),
            )
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
    return previous


def latest(path: Path) -> pd.DataFrame:
    """One row per reviewed finding: its current status, last reviewer, note, time, count."""
    if not path.exists():
        return pd.DataFrame(
            {
                "finding_key": pd.Series(dtype="str"),
                "review_status": pd.Series(dtype="str"),
                "reviewer": pd.Series(dtype="str"),
                "note": pd.Series(dtype="str"),
                "decided_at": pd.Series(dtype="str"),
                "decisions": pd.Series(dtype="int64"),
            }
        )
    with _connect(path) as con:
        rows = con.execute(_LATEST_SQL).fetchall()
    frame = pd.DataFrame(rows, columns=LATEST_COLUMNS)
    return frame.astype({"decisions": "int64"})


def history(path: Path, key: FindingKey) -> pd.DataFrame:
    """Every decision on one finding, oldest first."""
    if not path.exists():
        return pd.DataFrame(columns=HISTORY_COLUMNS)
    with _connect(path) as con:
        rows = con.execute(
            "SELECT decided_at, reviewer, previous_status, status, note FROM reviews"
            " WHERE finding_key = ? ORDER BY review_id",
            (key.text(),),
        ).fetchall()
    return pd.DataFrame(rows, columns=HISTORY_COLUMNS)


def hand_history(path: Path, hand_id: str) -> pd.DataFrame:
    """Every decision on any finding of one hand, oldest first, with the finding's code."""
    columns = ["code", "action_index", "seat", *HISTORY_COLUMNS]
    if not path.exists():
        return pd.DataFrame(columns=columns)
    with _connect(path) as con:
        rows = con.execute(
            "SELECT code, action_index, seat, decided_at, reviewer, previous_status, status, note"
            " FROM reviews WHERE hand_id = ? ORDER BY review_id",
            (hand_id,),
        ).fetchall()
    return pd.DataFrame(rows, columns=columns)
