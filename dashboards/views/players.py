"""Players: hands, opens, false and split openers, pots won, findings naming the seat."""

from __future__ import annotations

import streamlit as st

from dashboards.state import guard, load
from dashboards.ui import hand_link_config, money, with_hand_links

st.title("Players")
snap = guard()
if snap is None:
    st.stop()

st.subheader("Players named in most findings")
st.dataframe(load("players_most_findings", limit=15), hide_index=True, width="stretch")

text = st.text_input("Find a player (id contains)", max_chars=80, key="p_search")
matches = load("player_search", text=text, limit=50)
if matches.empty:
    st.info("No player id contains that text.")
    st.stop()
player = st.selectbox(
    "Player",
    matches["player_id"].tolist(),
    format_func=lambda p: (
        f"{p} ({int(matches.loc[matches['player_id'] == p, 'hands'].iloc[0]):,} hands)"
    ),
    key="p_player",
)
stats = load("player_stats", player_id=player).iloc[0]
cols = st.columns(7)
cols[0].metric("Hands", f"{int(stats['hands']):,}")
cols[1].metric("Opens", f"{int(stats['opens']):,}")
cols[2].metric("False openers", f"{int(stats['false_openers']):,}")
cols[3].metric("Split openers", f"{int(stats['split_openers']):,}")
cols[4].metric("Pots won", f"{int(stats['pots_won']):,}")
cols[5].metric("Chips won", money(int(stats["chips_won"])))
cols[6].metric(
    "Findings on seat", f"{int(stats['findings']):,}", help="Findings that name this player's seat"
)
st.caption(f"At {int(stats['tables'])} tables, {stats['first_day']} to {stats['last_day']}.")

left, right = st.columns([1, 2])
with left:
    st.subheader("By code")
    st.dataframe(load("player_findings", player_id=player), hide_index=True, width="stretch")
with right:
    st.subheader("Findings")
    rows = load("player_finding_rows", player_id=player)
    st.dataframe(
        with_hand_links(rows),
        column_config=hand_link_config(),
        hide_index=True,
        width="stretch",
    )
