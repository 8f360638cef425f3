"""Pieces several pages share: hand links, the review form, the review history."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pandas as pd
import streamlit as st

from dashboards import reviews
from dashboards.hand_view import money
from dashboards.reviews import FindingKey, ReviewStatus
from dashboards.state import reviews_path

SEVERITY_COLOURS = {"critical": "#c62828", "major": "#ef6c00", "minor": "#f9a825"}


def severity_label(severity: str) -> str:
    """Markdown for a severity in its colour (labels of expanders, captions)."""
    colour = {"critical": "red", "major": "orange", "minor": "violet"}.get(severity, "gray")
    return f":{colour}[**{severity}**]"


def with_money(frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """A copy with cents columns written as the log writes amounts (``12``, ``2.50``)."""
    out = frame.copy()
    for column in columns:
        out[column] = [None if pd.isna(v) else money(int(v)) for v in out[column]]
    return out


def hand_url(hand_id: str) -> str:
    """The Hand page's address for one hand (the id is URL-quoted)."""
    return f"/hand?hand_id={quote(hand_id, safe='')}"


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


def queue_csv(queue: pd.DataFrame) -> bytes:
    """The findings queue as CSV (UTF-8), without the internal columns."""
    return queue.drop(columns=["total", "severity_rank"]).to_csv(index=False).encode()


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


def review_form(row: pd.Series, form_key: str) -> None:
    """Confirm or dismiss one finding, with a note and the reviewer's name."""
    key = key_of(row)
    flash_key = f"{form_key}-saved"
    with st.form(form_key, clear_on_submit=False):
        st.markdown(
            f"**{key.code}** on hand `{key.hand_id}` seat {key.seat or '—'}: "
            f"currently **{row.get('review_status', 'unreviewed')}**"
        )
        decision = st.radio(
            "Decision",
            [ReviewStatus.CONFIRMED.value, ReviewStatus.DISMISSED.value],
            horizontal=True,
            key=f"{form_key}-decision",
        )
        reviewer = st.text_input(
            "Reviewer", max_chars=reviews.MAX_REVIEWER, key=f"{form_key}-reviewer"
        )
        note = st.text_area("Note", max_chars=reviews.MAX_NOTE, key=f"{form_key}-note")
        if st.form_submit_button("Save decision", type="primary"):
            try:
                previous = reviews.record_decision(
                    reviews_path(), key, ReviewStatus(decision), reviewer, note
                )
            except ValueError as exc:
                st.error(str(exc))
            else:
                # Rerun so the queue and the state above show the new decision; the
                # confirmation survives the rerun in the session.
                st.session_state[flash_key] = (
                    f"Saved: {previous.value} → {decision} by {reviewer.strip()}"
                )
                st.rerun()
        if flash_key in st.session_state:
            st.success(st.session_state.pop(flash_key))
    history = reviews.history(reviews_path(), key)
    if not history.empty:
        st.caption("Decisions on this finding (oldest first)")
        st.dataframe(history, hide_index=True, width="stretch")
