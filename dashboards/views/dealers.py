"""Dealers: who is significantly above the room, then one dealer by code and over time."""

from __future__ import annotations

import altair as alt
import streamlit as st

from dashboards.compare import unit_comparison
from dashboards.queries import FAMILIES
from dashboards.state import guard, load
from dashboards.text import md

st.title("Dealers")
snap = guard()
if snap is None:
    st.stop()

bounds = load("date_bounds").iloc[0]
if bounds["first_day"] is None:
    st.info("No hands in the store.")
    st.stop()
c1, c2 = st.columns(2)
dates = c1.date_input("Date range", value=(bounds["first_day"], bounds["last_day"]), key="d_dates")
family = c2.selectbox(
    "Family",
    ["", *FAMILIES],
    format_func=lambda f: FAMILIES.get(f, "All families"),
    key="d_family",
)
if not (isinstance(dates, tuple) and len(dates) == 2):
    st.info("Pick the end of the date range.")
    st.stop()
start, end = dates

rates = unit_comparison("dealer", start, end, family)
if rates.empty:
    st.stop()
dealer = st.selectbox("Dealer", rates["unit_id"].tolist(), key="d_dealer")
left, right = st.columns(2)
with left:
    st.subheader(f"{md(dealer)}: by code")
    codes = load("dealer_codes", dealer_id=dealer, start=start, end=end)
    codes["family"] = codes["family"].map(lambda f: FAMILIES.get(f, f))
    st.dataframe(codes, hide_index=True, width="stretch")
with right:
    st.subheader(f"{md(dealer)}: over time")
    trend = load("dealer_trend", dealer_id=dealer, start=start, end=end)
    long = trend.melt(
        id_vars=["day"],
        value_vars=["dealer_per_1000", "room_per_1000"],
        var_name="series",
        value_name="per_1000",
    )
    st.altair_chart(
        alt.Chart(long)
        .mark_line(point=True)
        .encode(
            x=alt.X("yearmonthdate(day):O", title="day", axis=alt.Axis(labelAngle=-45)),
            y=alt.Y("per_1000:Q", title="findings per 1,000 hands"),
            color=alt.Color(
                "series:N",
                scale=alt.Scale(
                    domain=["dealer_per_1000", "room_per_1000"], range=["#c62828", "#1565c0"]
                ),
            ),
            tooltip=["day", "series", "per_1000"],
        )
        .properties(height=260),
        width="stretch",
    )
