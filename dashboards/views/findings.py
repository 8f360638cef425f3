"""Findings: the case queue, filtered (the filters are in the URL), decided one or many at once."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from dashboards import reviews
from dashboards.cases import actor_picker, bulk_panel, case_panel
from dashboards.filters import UrlFilters
from dashboards.queries import FAMILIES, REVIEW_STATUSES, SEVERITIES, SORTS, UNASSIGNED
from dashboards.state import guard, load, office, reviews_path, room_offset
from dashboards.text import md
from dashboards.ui import hand_link_config, hand_url, queue_csv, with_hand_links
from schemas.display import iso_instant_text

st.title("Findings")
snap = guard()
if snap is None:
    st.stop()
actor = actor_picker()

values = load("filter_values")
bounds = load("date_bounds").iloc[0]


def _options(kind: str) -> list[str]:
    return values.loc[values["kind"] == kind, "value"].tolist()


assigned = reviews.latest(reviews_path())["assignee"].dropna().tolist()
assignee_options = [UNASSIGNED, *dict.fromkeys([*office().people(), *assigned])]
url = UrlFilters(st.query_params, st.session_state)  # type: ignore[arg-type]
url.multi("f_tables", "table", _options("table"))
url.multi("f_dealers", "dealer", _options("dealer"))
url.multi("f_codes", "code", _options("code"))
url.multi("f_families", "family", list(FAMILIES))
url.multi("f_severities", "severity", list(SEVERITIES))
url.multi("f_statuses", "status", list(REVIEW_STATUSES))
url.multi("f_assignees", "assignee", assignee_options)
url.text("f_player", "player")
url.choice("f_sort", "sort", list(SORTS))
url.flag("f_asc", "asc")
url.flag("f_overdue", "overdue")
url.dates("f_dates", "from", "to", bounds["first_day"], bounds["last_day"])

c0, c00, _ = st.columns([1, 1, 4])
if c0.button("My queue", disabled=actor is None, help="Open and escalated cases assigned to you"):
    st.session_state["f_assignees"] = [actor]
    st.session_state["f_statuses"] = ["open", "escalated"]
if c00.button("Clear filters"):
    url.clear()

with st.expander("Filters", expanded=True):
    c1, c2, c3 = st.columns(3)
    dates = c1.date_input("Date range", key="f_dates")
    tables = c2.multiselect("Table", _options("table"), key="f_tables")
    dealers = c3.multiselect("Dealer", _options("dealer"), key="f_dealers")
    c4, c5, c6 = st.columns(3)
    player = c4.text_input("Player id contains", max_chars=80, key="f_player")
    codes = c5.multiselect("Code", _options("code"), key="f_codes")
    families = c6.multiselect(
        "Family", list(FAMILIES), format_func=lambda f: f"{f} · {FAMILIES[f]}", key="f_families"
    )
    c7, c8, c9 = st.columns(3)
    severities = c7.multiselect("Severity", list(SEVERITIES), key="f_severities")
    statuses = c8.multiselect("Case status", list(REVIEW_STATUSES), key="f_statuses")
    assignees = c9.multiselect("Assignee", assignee_options, key="f_assignees")
    c10, c11, c12 = st.columns(3)
    sort = c10.selectbox("Sort by", list(SORTS), key="f_sort")
    ascending = c11.toggle("Ascending", key="f_asc")
    overdue = c12.toggle("Overdue only", key="f_overdue")
url.write_back()

start, end = (dates[0], dates[1]) if isinstance(dates, tuple) and len(dates) == 2 else (None, None)
filters: dict[str, Any] = {
    "start": start,
    "end": end,
    "tables": tuple(tables),
    "dealers": tuple(dealers),
    "player": player,
    "codes": tuple(codes),
    "families": tuple(families),
    "severities": tuple(severities),
    "statuses": tuple(statuses),
    "assignees": tuple(assignees),
    "overdue": overdue,
    "sort": sort,
    "descending": not ascending,
}
queue = load("findings_queue", limit=2000, **filters).copy()
offset = room_offset()  # once: each call looks at the store's signature
queue["decided_at"] = [iso_instant_text(t, offset) for t in queue["decided_at"]]
total = int(queue["total"].iloc[0]) if not queue.empty else 0
st.markdown(
    f"**{total:,} findings** match" + (" (showing the first 2,000)" if total > 2000 else "")
    + " · the address bar holds these filters: bookmark or send it"
)


def _csv() -> bytes:
    # Built only when the button is clicked: the whole filtered set, not the shown page.
    every = load("findings_queue", limit=None, **filters).copy()
    every["decided_at"] = [iso_instant_text(t, offset) for t in every["decided_at"]]
    return queue_csv(every)


st.download_button(
    "Export CSV", _csv, file_name="findings.csv", mime="text/csv", disabled=total == 0
)

columns = [
    "link", "time_text", "severity", "code", "review_status", "assignee", "due_date", "message",
    "name", "table_id", "dealer_id", "seat", "player_id", "line", "reviewer", "reason",
    "decided_at", "decisions",
]  # fmt: skip
st.dataframe(
    with_hand_links(queue),
    column_order=columns,
    column_config={
        **hand_link_config(),
        "time_text": st.column_config.TextColumn("time (room)"),
        "review_status": st.column_config.TextColumn("case"),
        "message": st.column_config.TextColumn("message", width="large"),
    },
    hide_index=True,
    width="stretch",
    height=380,
)

st.subheader("Decide a case")
if queue.empty:
    st.info("No finding matches the filters.")
    st.stop()
shown = queue.head(500)
# The label names the finding only: its state is shown beside it, never in the label (a
# browser keeps showing a selected option's old label when only the label changes).
labels = {
    row.finding_key: f"{row.severity} · {row.code} · {row.hand_id} · seat "
    f"{'—' if pd.isna(row.seat) else int(row.seat)} · {row.time_text}"
    for row in shown.itertuples()
}
keys = list(labels)
if st.session_state.get("f_case") not in labels:
    wanted = st.query_params.get("case")
    st.session_state["f_case"] = wanted if wanted in labels else keys[0]


def _next_open() -> None:
    """Select the next open case after the current one, in the queue's order."""
    current = keys.index(st.session_state["f_case"])
    order = keys[current + 1 :] + keys[: current + 1]
    open_keys = set(shown.loc[shown["review_status"] == "open", "finding_key"])
    found = next((k for k in order if k in open_keys), None)
    if found is None:
        st.session_state["f_no_open"] = True
    else:
        st.session_state["f_case"] = found


p1, p2 = st.columns([5, 1])
chosen = p1.selectbox("Case", keys, format_func=lambda k: labels[k], key="f_case")
p2.button("Next open case", on_click=_next_open, help="The next case nobody has decided yet")
if st.session_state.pop("f_no_open", False):
    st.info("No open case left among the cases shown.")
st.query_params["case"] = chosen
row = shown.loc[shown["finding_key"] == chosen].iloc[0]
st.markdown(
    f"{md(row['message'])} · {md(row['time_text'])} · [open the hand]({hand_url(row['hand_id'])})"
)
case_panel(row, "queue", actor)

bulk_panel(total, lambda: load("findings_queue", limit=None, **filters), actor)
