"""The case file: officers' decisions on findings, append-only and chained by hash.

The review file is a SQLite file beside the store (``<store stem>.reviews.sqlite``),
written only by the dashboards, so a decision never waits for the nightly job
and the job never waits for an officer. Decisions cannot hang off findings' row
ids (a re-audit replaces the rows): a case is keyed by the finding's stable
identity (hand, code, action index, seat), which the same fault keeps.

Every change to a case (a decision, an assignment, a note) is one **event**
row; the state of a case is its latest event, its history the events of its key.
The file is append-only in three ways:

- triggers refuse ``UPDATE`` and ``DELETE``, and an ``INSERT`` whose id is not
  the next one or whose ``prev_hash`` is not the last row's hash (this is what
  stops ``INSERT OR REPLACE``, whose implicit delete fires no trigger);
- the triggers are created with the table, once: a file whose triggers are
  missing or altered is refused for writing (:class:`ReviewFileTampered`),
  never silently repaired;
- each row carries ``row_hash = sha256(prev_hash + its fields)``, so an edit
  made with the triggers dropped breaks the chain: :func:`verify_chain` names
  every break, and :func:`chain_head` gives the last hash for a seal kept
  elsewhere (removing rows from the end is only visible against such a seal).

No pandas here: the CLI (``openers verify``) and the report read this module.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from schemas.chain import GENESIS
from schemas.findings import finding_key
from schemas.review_file import (
    FIELDS,
    INDEX,
    TABLE,
    TRIGGERS,
    CaseStatus,
    guard_problems,
    has_table,
    row_hash,
)

#: Longest actor name and note accepted, so a pasted log cannot bloat the file.
MAX_ACTOR = 80
MAX_NOTE = 4000

#: Why a finding may be dismissed (a house file may give its own list).
DISMISS_REASONS: tuple[str, ...] = (
    "log error: the table system wrote the line wrong",
    "floor ruling: allowed by a recorded ruling",
    "house rule: the house allows it",
    "duplicate of another finding",
    "rule misapplied: the audit is wrong here",
)

#: The decisions allowed from each state (an assignment or a note keeps the state).
TRANSITIONS: dict[CaseStatus, tuple[CaseStatus, ...]] = {
    CaseStatus.OPEN: (CaseStatus.CONFIRMED, CaseStatus.DISMISSED, CaseStatus.ESCALATED),
    CaseStatus.CONFIRMED: (CaseStatus.RESOLVED, CaseStatus.ESCALATED, CaseStatus.OPEN),
    CaseStatus.ESCALATED: (CaseStatus.CONFIRMED, CaseStatus.DISMISSED, CaseStatus.RESOLVED),
    CaseStatus.DISMISSED: (CaseStatus.OPEN,),
    CaseStatus.RESOLVED: (CaseStatus.OPEN,),
}


class ReviewFileTampered(RuntimeError):
    """The review file's guards are missing or altered: it is not written any more."""


@dataclass(frozen=True)
class FindingKey:
    """The identity of a finding that survives a re-audit of its hand."""

    hand_id: str
    code: str
    action_index: int | None
    seat: int | None

    def text(self) -> str:
        """``hand|code|index|seat`` (:func:`schemas.findings.finding_key`)."""
        return finding_key(self.hand_id, self.code, self.action_index, self.seat)


@dataclass(frozen=True)
class CaseEvent:
    """One change to one case, as stored."""

    event_id: int
    finding_key: str
    hand_id: str
    code: str
    action_index: int | None
    seat: int | None
    status: CaseStatus
    previous_status: CaseStatus
    reason: str | None
    assignee: str | None
    due_date: str | None
    actor: str
    note: str
    at: str


@dataclass(frozen=True)
class Change:
    """What an officer asks for on one case: a new state, an assignment, a note."""

    status: CaseStatus | None = None  # None: keep the state
    reason: str | None = None
    assignee: str | None = None  # None: keep the assignee; "" removes it
    due_date: date | None = None  # None: keep the due date
    note: str = ""


@dataclass(frozen=True)
class ChainBreak:
    """One place where the review file is not what its chain says."""

    event_id: int | None
    problem: str

    def __str__(self) -> str:
        where = f"event {self.event_id}" if self.event_id is not None else "review file"
        return f"{where}: {self.problem}"


def reviews_path_for(store: Path) -> Path:
    """The review file next to a store: ``night.duckdb`` → ``night.reviews.sqlite``."""
    return store.with_name(f"{store.stem}.reviews.sqlite")


def _create(con: sqlite3.Connection) -> None:
    """Create the table and its guards (a new file), and carry over round-1 decisions."""
    con.execute(TABLE)
    con.execute(INDEX)
    for sql in TRIGGERS.values():
        con.execute(sql)
    if has_table(con, "reviews"):  # the round-1 file: one row per confirm/dismiss
        old = con.execute(
            "SELECT finding_key, hand_id, code, action_index, seat, status, previous_status,"
            " reviewer, note, decided_at FROM reviews ORDER BY review_id"
        ).fetchall()
        for key, hand, code, index, seat, status, previous, actor, note, at in old:
            _append(con, key, FindingKey(hand, code, index, seat), CaseStatus(status),
                    CaseStatus("open" if previous == "unreviewed" else previous),
                    None, None, None, actor, note, at)  # fmt: skip


@contextmanager
def _connect(path: Path, write: bool) -> Iterator[sqlite3.Connection]:
    # isolation_level=None: transactions are explicit, so reading the last event and
    # appending the next happen under one write lock (BEGIN IMMEDIATE).
    con = sqlite3.connect(path, timeout=10.0, isolation_level=None)
    try:
        con.execute("PRAGMA busy_timeout=10000")
        if write:
            con.execute("PRAGMA journal_mode=WAL")
            con.execute("BEGIN IMMEDIATE")
            try:
                if not has_table(con, "case_events"):
                    _create(con)
                problems = guard_problems(con)
                if problems:
                    raise ReviewFileTampered(
                        f"{path}: {'; '.join(problems)}; decisions are not saved to this file"
                    )
                yield con
            except BaseException:
                con.execute("ROLLBACK")
                raise
            con.execute("COMMIT")
        else:
            yield con
    finally:
        con.close()


def _append(
    con: sqlite3.Connection, text_key: str, key: FindingKey, status: CaseStatus,
    previous: CaseStatus, reason: str | None, assignee: str | None, due: str | None,
    actor: str, note: str, at: str,
) -> None:  # fmt: skip
    last = con.execute(
        "SELECT event_id, row_hash FROM case_events ORDER BY event_id DESC LIMIT 1"
    ).fetchone()
    event_id, prev = (last[0] + 1, last[1]) if last else (1, GENESIS)
    row = {
        "event_id": event_id, "finding_key": text_key, "hand_id": key.hand_id,
        "code": key.code, "action_index": key.action_index, "seat": key.seat,
        "status": status.value, "previous_status": previous.value, "reason": reason,
        "assignee": assignee, "due_date": due, "actor": actor, "note": note, "at": at,
    }  # fmt: skip
    con.execute(
        f"INSERT INTO case_events ({', '.join(FIELDS)}, prev_hash, row_hash)"
        f" VALUES ({', '.join('?' * (len(FIELDS) + 2))})",
        (*(row[name] for name in FIELDS), prev, row_hash(prev, row)),
    )


def _latest_row(con: sqlite3.Connection, text_key: str) -> tuple[Any, ...] | None:
    row: tuple[Any, ...] | None = con.execute(
        "SELECT status, assignee, due_date, reason FROM case_events WHERE finding_key = ?"
        " ORDER BY event_id DESC LIMIT 1",
        (text_key,),
    ).fetchone()
    return row


def record(
    path: Path,
    keys: Sequence[FindingKey],
    change: Change,
    actor: str,
    *,
    actors: Collection[str] = (),
    reasons: Collection[str] = DISMISS_REASONS,
) -> list[CaseStatus]:
    """Apply ``change`` to every case of ``keys`` (one transaction); return their old states.

    ``actors`` is the list of people allowed to decide (empty: anyone named). Raises
    ``ValueError`` for an unknown or empty actor, an over-long note, a transition the
    state does not allow (e.g. resolving an open case), or a dismissal without a reason
    from ``reasons``; nothing is written then.
    """
    actor = actor.strip()
    if not actor or len(actor) > MAX_ACTOR:
        raise ValueError("the person deciding must be named (at most 80 characters)")
    if actors and actor not in actors:
        raise ValueError(f"{actor!r} is not on the house's list of reviewers")
    if len(change.note) > MAX_NOTE:
        raise ValueError(f"a note is limited to {MAX_NOTE} characters")
    if change.status is CaseStatus.DISMISSED and change.reason not in reasons:
        raise ValueError("a dismissal needs a reason from the list")
    if change.assignee and actors and change.assignee not in actors:
        raise ValueError(f"{change.assignee!r} is not on the house's list of reviewers")
    if change == Change():
        raise ValueError("nothing to record: choose a decision, an assignee, a date or a note")
    at = datetime.now(UTC).isoformat(timespec="seconds")
    previous_states = []
    with _connect(path, write=True) as con:
        for key in keys:
            text_key = key.text()
            last = _latest_row(con, text_key)
            previous, assignee, due, reason = (
                (CaseStatus(last[0]), last[1], last[2], last[3])
                if last
                else (CaseStatus.OPEN, None, None, None)
            )
            status = previous if change.status is None else change.status
            if change.status is not None and status not in TRANSITIONS[previous]:
                raise ValueError(f"{key.text()}: a {previous.value} case cannot become {status}")
            if change.assignee is not None:
                assignee = change.assignee or None
            if change.due_date is not None:
                due = change.due_date.isoformat()
            if change.status is not None:
                reason = change.reason if status is CaseStatus.DISMISSED else None
            _append(con, text_key, key, status, previous, reason, assignee, due, actor,
                    change.note, at)  # fmt: skip
            previous_states.append(previous)
    return previous_states


def _rows(path: Path, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
    if not path.exists():
        return []
    with _connect(path, write=False) as con:
        present = has_table(con, "case_events")
        legacy = not present and has_table(con, "reviews")
        if present:
            return con.execute(sql, tuple(params)).fetchall()
    if legacy:  # a round-1 file: carry its decisions over, then read them
        with _connect(path, write=True):
            pass
        return _rows(path, sql, params)
    return []


#: Columns of :func:`latest_rows`.
LATEST_COLUMNS: tuple[str, ...] = (
    "finding_key", "review_status", "reason", "assignee", "due_date", "reviewer", "note",
    "decided_at", "decisions",
)  # fmt: skip


def latest_rows(path: Path) -> list[tuple[Any, ...]]:
    """One row per case with an event: its state, reason, assignee, due date, last
    actor, note, time and number of events (:data:`LATEST_COLUMNS`)."""
    return _rows(
        path,
        "SELECT e.finding_key, e.status, e.reason, e.assignee, e.due_date, e.actor, e.note,"
        " e.at, c.n FROM case_events AS e JOIN (SELECT finding_key, max(event_id) AS last,"
        " count(*) AS n FROM case_events GROUP BY finding_key) AS c ON e.event_id = c.last",
    )


def events(
    path: Path, hand_id: str | None = None, key: FindingKey | None = None
) -> list[CaseEvent]:
    """Events oldest first: all, one hand's, or one case's."""
    where, params = "", []
    if key is not None:
        where, params = " WHERE finding_key = ?", [key.text()]
    elif hand_id is not None:
        where, params = " WHERE hand_id = ?", [hand_id]
    rows = _rows(path, f"SELECT {', '.join(FIELDS)} FROM case_events{where} ORDER BY event_id",
                 params)  # fmt: skip
    events_found = []
    for row in rows:
        fields = dict(zip(FIELDS[1:], row[1:], strict=True))
        fields["status"] = CaseStatus(fields["status"])
        fields["previous_status"] = CaseStatus(fields["previous_status"])
        events_found.append(CaseEvent(event_id=int(row[0]), **fields))
    return events_found


def chain_head(path: Path) -> tuple[int, str]:
    """(number of events, hash of the last one): what a seal elsewhere should record."""
    rows = _rows(path, "SELECT event_id, row_hash FROM case_events ORDER BY event_id DESC LIMIT 1")
    return (int(rows[0][0]), str(rows[0][1])) if rows else (0, GENESIS)


def verify_chain(path: Path) -> list[ChainBreak]:
    """Every break in the review file: guards missing or altered, a gap in the event
    ids, a row whose hash or link does not match. An empty list: the chain is intact
    (a missing file is an empty, intact chain)."""
    if not path.exists():
        return []
    breaks: list[ChainBreak] = []
    with _connect(path, write=False) as con:
        if not has_table(con, "case_events"):
            return []
        breaks += [ChainBreak(None, p) for p in guard_problems(con)]
        cursor = con.execute(
            f"SELECT {', '.join(FIELDS)}, prev_hash, row_hash FROM case_events ORDER BY event_id"
        )
        expected_prev, expected_id = GENESIS, 1
        for values in cursor:
            row = dict(zip(FIELDS, values[: len(FIELDS)], strict=True))
            prev, stored = values[-2], values[-1]
            event_id = int(row["event_id"])
            if event_id != expected_id:
                breaks.append(ChainBreak(event_id, f"expected event {expected_id} here: "
                                                   "events are missing"))  # fmt: skip
            if prev != expected_prev:
                breaks.append(ChainBreak(event_id, "prev_hash does not match the event before"))
            if row_hash(prev, row) != stored:
                breaks.append(ChainBreak(event_id, "row_hash does not match its fields (edited)"))
            expected_prev, expected_id = stored, event_id + 1
    return breaks
