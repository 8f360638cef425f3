"""Dealers or tables against the room: rates with intervals, the test, click-through.

Shared by the Dealers and Tables pages; the statistics are :mod:`dashboards.rates`.
"""

from __future__ import annotations

from datetime import date
from urllib.parse import urlencode

import altair as alt
import pandas as pd
import streamlit as st

from dashboards.rates import MIN_HANDS, TEST_NAME, compare_with_room
from dashboards.state import load
from dashboards.ui import SEVERITY_COLOURS

_NONE_COLOUR = "#90a4ae"


def _worst(row: pd.Series) -> str:
    for severity in SEVERITY_COLOURS:
        if row[severity]:
            return severity
    return "none"


def unit_comparison(unit: str, start: date, end: date, family: str) -> pd.DataFrame:
    """Draw the comparison of every ``unit`` ("dealer" or "table"); return its rows."""
    rates = compare_with_room(load("unit_rates", unit=unit, start=start, end=end, family=family))
    if rates.empty:
        st.info("No hands in this range.")
        return rates
    rates["worst"] = [_worst(r) for _, r in rates.iterrows()]
    rates["flag"] = ["▲ above the room" if a else ("" if t else f"< {MIN_HANDS} hands")
                     for a, t in zip(rates["above"], rates["tested"], strict=True)]  # fmt: skip
    rates["findings"] = [
        "/findings?" + urlencode({unit: u, "from": start.isoformat(), "to": end.isoformat()})
        for u in rates["unit_id"]
    ]
    flagged = int(rates["above"].sum())
    st.caption(
        f"Share of hands with at least one finding, per 1,000 hands, with its 95% Wilson "
        f"interval. Flagged: significantly above the rest of the room by the {TEST_NAME}; "
        f"units under {MIN_HANDS} hands are not tested. Bars are coloured by the worst "
        f"severity found. {flagged} of {len(rates)} flagged."
    )
    colours = {**SEVERITY_COLOURS, "none": _NONE_COLOUR}
    base = alt.Chart(rates).encode(
        y=alt.Y("unit_id:N", sort=alt.EncodingSortField("per_1000", order="descending"),
                title=unit, axis=alt.Axis(labelOverlap=False))
    )
    bars = base.mark_bar().encode(
        x=alt.X("per_1000:Q", title="hands with a finding per 1,000"),
        color=alt.Color("worst:N", title="worst severity",
                        scale=alt.Scale(domain=list(colours), range=list(colours.values()))),
        stroke=alt.condition("datum.above", alt.value("#000"), alt.value(None)),
        strokeWidth=alt.condition("datum.above", alt.value(2), alt.value(0)),
        tooltip=["unit_id", "hands", "flagged", "per_1000", "ci_low", "ci_high",
                 "room_per_1000", "rate_ratio", "q_value", "flag"],
    )  # fmt: skip
    whiskers = base.mark_rule(color="#37474f").encode(x="ci_low:Q", x2="ci_high:Q")
    marks = base.transform_filter("datum.above").mark_text(
        align="left", dx=4, color="#c62828", fontWeight="bold"
    ).encode(x="ci_high:Q", text="flag:N")
    room = float(rates["flagged"].sum() * 1000 / max(1, rates["hands"].sum()))
    rule = alt.Chart(pd.DataFrame({"room": [room]})).mark_rule(
        color="#1565c0", strokeDash=[4, 3]
    ).encode(x="room:Q")
    st.altair_chart((bars + whiskers + marks + rule).properties(
        height=max(160, 24 * len(rates))), width="stretch")  # fmt: skip
    st.dataframe(
        rates.sort_values(["above", "per_1000"], ascending=False),
        column_order=["unit_id", "flag", "hands", "flagged", "per_1000", "ci_low", "ci_high",
                      "room_per_1000", "rate_ratio", "q_value", "critical", "major", "minor",
                      "findings"],
        column_config={
            "unit_id": unit, "flagged": "hands with findings", "per_1000": "per 1,000",
            "ci_low": "95% CI low", "ci_high": "95% CI high", "room_per_1000": "rest of room",
            "q_value": st.column_config.NumberColumn("q (BH)", format="%.4f"),
            "findings": st.column_config.LinkColumn("findings", display_text="open"),
        },
        hide_index=True,
        width="stretch",
    )  # fmt: skip
    return rates
