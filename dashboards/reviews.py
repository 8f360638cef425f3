"""The case file as the pages read it: frames over :mod:`schemas.reviews`.

The store itself (append-only, chained by hash, verified by ``openers verify``)
is :mod:`schemas.reviews`; this module only turns its rows into pandas frames
for the queries and the pages.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from schemas.reviews import (
    LATEST_COLUMNS,
    CaseEvent,
    CaseStatus,
    Change,
    FindingKey,
    events,
    latest_rows,
    record,
    reviews_path_for,
)

__all__ = [
    "HISTORY_COLUMNS",
    "CaseStatus",
    "Change",
    "FindingKey",
    "hand_history",
    "history",
    "latest",
    "record",
    "reviews_path_for",
]

HISTORY_COLUMNS = [
    "at", "actor", "previous_status", "status", "reason", "assignee", "due_date", "note",
]  # fmt: skip


def latest(path: Path) -> pd.DataFrame:
    """One row per case with an event: state, reason, assignee, due date, last actor…"""
    frame = pd.DataFrame(latest_rows(path), columns=list(LATEST_COLUMNS))
    # Typed even when empty, so DuckDB sees text columns, never NULL-typed ones.
    return frame.astype({c: "int64" if c == "decisions" else "string" for c in LATEST_COLUMNS})


def _frame(rows: list[CaseEvent], extra: tuple[str, ...] = ()) -> pd.DataFrame:
    columns = [*extra, *HISTORY_COLUMNS]
    return pd.DataFrame(
        [[getattr(e, c) if not isinstance(getattr(e, c), CaseStatus) else getattr(e, c).value
          for c in columns] for e in rows],
        columns=columns,
        dtype=object,
    )  # fmt: skip


def history(path: Path, key: FindingKey) -> pd.DataFrame:
    """Every event of one case, oldest first."""
    return _frame(events(path, key=key))


def hand_history(path: Path, hand_id: str) -> pd.DataFrame:
    """Every event of any case of one hand, oldest first, with the finding's code."""
    return _frame(events(path, hand_id=hand_id), ("code", "action_index", "seat"))
