"""Case management on the pages: who is deciding, one case's panel, a bulk action.

The case file itself is :mod:`schemas.reviews`; here are only its widgets. Every
widget of a case is keyed by the finding, so a form never shows (or files) what
was typed for another finding, and forms are cleared once saved.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
import streamlit as st

from dashboards import reviews
from dashboards.reviews import CaseStatus, Change, FindingKey
from dashboards.state import office, reviews_path, room_offset
from dashboards.text import md
from dashboards.ui import key_of
from schemas.display import iso_instant_text
from schemas.reviews import MAX_NOTE, TRANSITIONS, ReviewFileTampered

#: The session key of the person deciding (chosen once, in the sidebar).
ACTOR_KEY = "actor"


def actor_picker() -> str | None:
    """Who is deciding: picked once from the house's list (none pre-selected), or the OS user.

    Shown in the sidebar; the name cannot be typed.
    """
    people = office().people()
    if len(people) == 1 and not office().reviewers:
        st.sidebar.caption(f"Deciding as {md(people[0])} (the login user)")
        return people[0]
    chosen: str | None = st.sidebar.selectbox(
        "You are", people, index=None, placeholder="Choose your name", key=ACTOR_KEY
    )
    return chosen


def record_change(keys: list[FindingKey], change: Change, actor: str | None) -> str | None:
    """Apply ``change`` to ``keys``; return an error message, or None once saved."""
    if actor is None:
        return "Choose who you are (sidebar) before deciding."
    house = office()
    try:
        reviews.record(
            reviews_path(), keys, change, actor,
            actors=house.people(), reasons=house.dismiss_reasons,
        )  # fmt: skip
    except (ValueError, ReviewFileTampered) as exc:
        return str(exc)
    return None


def change_inputs(prefix: str, status: CaseStatus | None) -> Change | None:
    """The inputs of a decision form (inside an ``st.form``); None until something is asked.

    ``status`` is the case's state (its allowed decisions are offered), or None for a
    bulk action (every decision offered; each case is checked against its own state).
    Nothing is pre-selected.
    """
    house = office()
    offered = TRANSITIONS[status] if status is not None else tuple(CaseStatus)
    c1, c2 = st.columns(2)
    decision = c1.radio(
        "Decision", [s.value for s in offered], index=None, horizontal=True,
        key=f"{prefix}-decision",
    )  # fmt: skip
    reason = c2.selectbox(
        "Reason (for a dismissal)", house.dismiss_reasons, index=None, key=f"{prefix}-reason"
    )
    c3, c4 = st.columns(2)
    assignee = c3.selectbox(
        "Assign to", ["(nobody)", *house.people()], index=None, placeholder="keep",
        key=f"{prefix}-assignee",
    )  # fmt: skip
    due: date | None = c4.date_input("Due date", value=None, key=f"{prefix}-due")
    note = st.text_area("Note", max_chars=MAX_NOTE, key=f"{prefix}-note")
    return Change(
        status=CaseStatus(decision) if decision else None,
        reason=reason,
        assignee=None if assignee is None else ("" if assignee == "(nobody)" else assignee),
        due_date=due,
        note=note,
    )


def case_panel(row: pd.Series, where: str, actor: str | None) -> None:
    """One finding's case: its state, the decisions its state allows, its history."""
    key = key_of(row)
    prefix = f"{where}-{key.text()}"
    status = CaseStatus(str(row.get("review_status") or "open"))
    flash = f"{prefix}-saved"
    due = row.get("due_date")
    st.markdown(
        f"**{md(key.code)}** on hand {md(key.hand_id)} seat "
        f"{'—' if key.seat is None else key.seat}: case **{md(status.value)}**"
        + (f", assigned to {md(row.get('assignee'))}" if _given(row.get("assignee")) else "")
        + (f", due {md(due)}" if _given(due) else "")
    )
    with st.form(prefix, clear_on_submit=True):
        change = change_inputs(prefix, status)
        if st.form_submit_button("Save", type="primary") and change is not None:
            error = record_change([key], change, actor)
            if error:
                st.error(md(error))
            else:
                st.session_state[flash] = (
                    f"Saved on {key.code} {key.hand_id}: {status.value} → "
                    f"{(change.status or status).value} by {actor}"
                )
                st.rerun()
    if flash in st.session_state:
        st.success(md(st.session_state.pop(flash)))
    history = reviews.history(reviews_path(), key)
    offset = room_offset()  # once: each call looks at the store's signature
    history["at"] = [iso_instant_text(t, offset) for t in history["at"]]
    if not history.empty:
        st.caption("History of this case (oldest first)")
        st.dataframe(history, hide_index=True, width="stretch")


def _given(value: Any) -> bool:
    if value is None:
        return False
    try:
        if pd.isna(value):
            return False
    except (TypeError, ValueError):
        pass
    return str(value) != ""


def bulk_panel(total: int, every: Any, actor: str | None) -> None:
    """Apply one change to every case matching the filters (``every()`` loads them).

    A decision is applied to the cases whose state allows it; the others are
    counted as skipped. Nothing happens without the confirmation box ticked.
    """
    with (
        st.expander(f"Bulk action on the {total:,} cases matching the filters"),
        st.form("bulk", clear_on_submit=True),
    ):
        change = change_inputs("bulk", None)
        confirm = st.checkbox(f"Apply to all {total:,} cases", key="bulk-confirm")
        if st.form_submit_button("Apply") and change is not None:
            if not confirm:
                st.error("Tick the box to confirm a bulk action.")
                return
            cases = every()
            target = change.status
            allowed = [
                target is None or target in TRANSITIONS[CaseStatus(s)]
                for s in cases["review_status"]
            ]
            eligible = cases.loc[allowed]
            error = record_change([key_of(r) for _, r in eligible.iterrows()], change, actor)
            if error:
                st.error(md(error))
                return
            st.session_state["bulk-saved"] = (
                f"Applied to {len(eligible):,} cases; {len(cases) - len(eligible):,} "
                "skipped (their state does not allow it)."
            )
            st.rerun()
    if "bulk-saved" in st.session_state:
        st.success(st.session_state.pop("bulk-saved"))
