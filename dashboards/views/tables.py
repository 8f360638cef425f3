"""Tables: which tables are above the room, then one table's deals on a day in sequence."""

from __future__ import annotations

import altair as alt
import streamlit as st

from dashboards.compare import unit_comparison
from dashboards.state import guard, load
from dashboards.ui import hand_link_config, with_hand_links, with_money

st.title("Tables")
snap = guard()
if snap is None:
    st.stop()

days = load("table_days")
if days.empty:
    st.info("No hands in the store.")
    st.stop()
bounds = load("date_bounds").iloc[0]
with st.expander("Tables against the room", expanded=True):
    unit_comparison("table", bounds["first_day"], bounds["last_day"], "")

st.subheader("One table's deals in sequence")
c1, c2 = st.columns(2)
table_id = c1.selectbox("Table", sorted(days["table_id"].unique()), key="t_table")
table_days = days.loc[days["table_id"] == table_id]


def _deals_on(day: object) -> int:
    return int(table_days.loc[table_days["day"] == day, "deals"].iloc[0])


day = c2.selectbox(
    "Day",
    table_days["day"].tolist(),
    format_func=lambda d: f"{d} ({_deals_on(d)} deals)",
    key="t_day",
)
deals = load("table_deals", table_id=table_id, day=day)

passed = int(deals["carried_out"].notna().sum())
c1, c2, c3, c4 = st.columns(4)
c1.metric("Deals", f"{len(deals):,}")
c2.metric("Passed out", f"{passed:,}")
c3.metric("Longest jack-pot run", int(deals["jackpot"].max()) if not deals.empty else 0)
c4.metric("Sequence findings", int(deals["sequence_findings"].sum()))

chart = (
    alt.Chart(deals)
    .mark_line(point=True)
    .encode(
        x=alt.X("time:T", title="time"),
        y=alt.Y("jackpot:Q", title="jack-pot deal"),
        color=alt.condition(
            "datum.sequence_findings > 0", alt.value("#c62828"), alt.value("#1565c0")
        ),
        tooltip=[
            "hand_id",
            "time:T",
            "jackpot",
            "openers",
            "ante",
            "carried",
            "button",
            "sequence_messages",
        ],
    )
    .properties(height=200)
)
st.altair_chart(chart, width="stretch")

st.caption("Deals in time order; rows with sequence (J) findings list them on the right.")
st.dataframe(
    with_money(with_hand_links(deals), ["ante", "carried", "pot", "carried_out"]),
    column_order=[
        "link",
        "time_text",
        "dealer_id",
        "button",
        "jackpot",
        "openers",
        "ante",
        "carried",
        "pot",
        "carried_out",
        "n_seats",
        "findings",
        "sequence_findings",
        "sequence_messages",
    ],
    column_config={**hand_link_config(), "time_text": "time (room)"},
    hide_index=True,
    width="stretch",
    height=480,
)
