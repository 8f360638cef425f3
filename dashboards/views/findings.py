"""Findings: the review queue, filtered, sorted, exported, decided."""

from __future__ import annotations

from datetime import date
from typing import Any

import pandas as pd
import streamlit as st

from dashboards.queries import FAMILIES, REVIEW_STATUSES, SEVERITIES, SORTS
from dashboards.state import guard, load
from dashboards.ui import hand_link_config, queue_csv, review_form, with_hand_links

st.title("Findings")
snap = guard()
if snap is None:
    st.stop()

values = load("filter_values")
bounds = load("date_bounds").iloc[0]
first: date | None = bounds["first_day"]
last: date | None = bounds["last_day"]


def _options(kind: str) -> list[str]:
    return values.loc[values["kind"] == kind, "value"].tolist()


with st.expander("Filters", expanded=True):
    c1, c2, c3 = st.columns(3)
    dates = c1.date_input("Date range", value=(first, last), key="f_dates")
    tables = c2.multiselect("Table", _options("table"), key="f_tables")
    dealers = c3.multiselect("Dealer", _options("dealer"), key="f_dealers")
    c4, c5, c6 = st.columns(3)
    player = c4.text_input("Player id contains", max_chars=80, key="f_player")
    codes = c5.multiselect("Code", _options("code"), key="f_codes")
    families = c6.multiselect(
        "Family", list(FAMILIES), format_func=lambda f: f"{f} · {FAMILIES[f]}", key="f_families"
    )
    c7, c8, c9, c10 = st.columns([2, 2, 2, 1])
    severities = c7.multiselect("Severity", list(SEVERITIES), key="f_severities")
    statuses = c8.multiselect("Review status", list(REVIEW_STATUSES), key="f_statuses")
    sort = c9.selectbox("Sort by", list(SORTS), key="f_sort")
    descending = c10.toggle("Descending", value=True, key="f_desc")

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
}
queue = load("findings_queue", sort=sort, descending=descending, limit=2000, **filters)
total = int(queue["total"].iloc[0]) if not queue.empty else 0
st.markdown(
    f"**{total:,} findings** match" + (" (showing the first 2,000)" if total > 2000 else "")
)


def _csv() -> bytes:
    # Built only when the button is clicked: the whole filtered set, not the shown page.
    return queue_csv(
        load("findings_queue", sort=sort, descending=descending, limit=None, **filters)
    )


st.download_button(
    "Export CSV", _csv, file_name="findings.csv", mime="text/csv", disabled=total == 0
)

shown = with_hand_links(queue)
columns = [
    "link", "time", "severity", "code", "review_status", "message", "name", "table_id",
    "dealer_id", "seat", "player_id", "line", "reviewer", "decided_at", "decisions",
]  # fmt: skip
st.dataframe(
    shown,
    column_order=columns,
    column_config={
        **hand_link_config(),
        "review_status": st.column_config.TextColumn("review"),
        "message": st.column_config.TextColumn("message", width="large"),
    },
    hide_index=True,
    width="stretch",
    height=420,
)

st.subheader("Review a finding")
if queue.empty:
    st.info("No finding matches the filters.")
else:
    labels = {
        row.finding_key: f"{row.code} · {row.hand_id} · seat "
        f"{'—' if pd.isna(row.seat) else int(row.seat)} · {row.review_status}"
        for row in queue.head(500).itertuples()
    }
    chosen = st.selectbox(
        "Finding", list(labels), format_func=lambda k: labels[k], key="f_review_pick"
    )
    row = queue.loc[queue["finding_key"] == chosen].iloc[0]
    st.write(row["message"])
    review_form(row, "queue-review")
