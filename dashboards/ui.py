"""Pieces several pages share: hand links, money columns, severity labels, the CSV export."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import pandas as pd
import streamlit as st

from dashboards.reviews import FindingKey
from dashboards.state import office
from dashboards.text import md
from schemas.display import csv_bytes, money_text

SEVERITY_COLOURS = {"critical": "#c62828", "major": "#ef6c00", "minor": "#f9a825"}


def severity_label(severity: str) -> str:
    """Markdown for a severity in its colour (labels of expanders, captions)."""
    colour = {"critical": "red", "major": "orange", "minor": "violet"}.get(severity, "gray")
    return f":{colour}[**{md(severity)}**]"


def money(cents: Any) -> str:
    """Cents in the house's currency, ``$12.50`` (empty for a missing amount)."""
    return "" if cents is None or pd.isna(cents) else money_text(int(cents), office().currency)


def with_money(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """A copy with cents columns written as money in the house's currency."""
    out = frame.copy()
    for column in columns:
        out[column] = [money(v) for v in out[column]]
    return out


def hand_url(hand_id: str) -> str:
    """The Hand page's address for one hand (the id is URL-quoted)."""
    return f"/hand?hand_id={quote(str(hand_id), safe='')}"


def with_hand_links(frame: pd.DataFrame) -> pd.DataFrame:
    """Add a ``link`` column to a frame that has ``hand_id``."""
    out = frame.copy()
    out.insert(0, "link", [hand_url(h) for h in out["hand_id"]])
    return out


def hand_link_config() -> dict[str, Any]:
    """Column config that shows the ``link`` column as the hand id, clickable."""
    return {
        "link": st.column_config.LinkColumn(
            "hand", display_text=r"hand_id=(.*)$", help="Open the hand in the replayer"
        ),
        "hand_id": None,
    }


#: Columns of the queue's CSV export, in order.
QUEUE_CSV_COLUMNS: tuple[str, ...] = (
    "time_text", "severity", "code", "name", "hand_id", "table_id", "dealer_id", "seat",
    "player_id", "line", "message", "evidence", "source", "review_status", "reason",
    "assignee", "due_date", "reviewer", "decided_at", "note",
)  # fmt: skip


def queue_csv(queue: pd.DataFrame) -> bytes:
    """The findings queue as CSV (UTF-8, formula cells neutralised), with case state."""
    rows = queue.reindex(columns=list(QUEUE_CSV_COLUMNS)).astype(object)
    rows = rows.where(pd.notna(rows), "")
    return csv_bytes(QUEUE_CSV_COLUMNS, rows.to_dict("records"))


def key_of(row: pd.Series) -> FindingKey:
    """The stable key of a finding row (from ``mart_findings``)."""
    index = row.get("action_index")
    seat = row.get("seat")
    return FindingKey(
        hand_id=str(row["hand_id"]),
        code=str(row["code"]),
        action_index=None if pd.isna(index) else int(index),
        seat=None if pd.isna(seat) else int(seat),
    )


def export_buttons(rows: Callable[[], pd.DataFrame], name: str, disabled: bool = False) -> None:
    """CSV (formula cells neutralised) and JSON downloads of ``rows()``, built on click."""
    c1, c2, _ = st.columns([1, 1, 4])

    def as_csv() -> bytes:
        frame = rows().astype(object)
        frame = frame.where(pd.notna(frame), "")
        return csv_bytes([str(c) for c in frame.columns], frame.to_dict("records"))

    def as_json() -> str:
        return rows().to_json(orient="records", date_format="iso", force_ascii=False) or "[]"

    c1.download_button("Download CSV", as_csv, file_name=f"{name}.csv", mime="text/csv",
                       disabled=disabled, key=f"csv-{name}")  # fmt: skip
    c2.download_button("Download JSON", as_json, file_name=f"{name}.json",
                       mime="application/json", disabled=disabled, key=f"json-{name}")  # fmt: skip
