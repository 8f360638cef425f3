"""The Hand page's search: by player, dealer, table, day, pot size and finding code."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

import streamlit as st

from dashboards.state import load
from dashboards.ui import hand_link_config, with_hand_links, with_money

#: Most hands a search lists.
SEARCH_LIMIT = 200


def _cents(text: str) -> int | None:
    """A typed amount (``12``, ``2.50``, ``$1,200``) in cents; None if empty or unreadable."""
    cleaned = text.strip().lstrip("$€£").replace(",", "")
    try:
        return int(Decimal(cleaned) * 100) if cleaned else None
    except InvalidOperation:
        return None


def hand_search_form() -> None:
    """Criteria in a form; the matching hands (newest first) with links to each."""
    with st.form("h_search"):
        c1, c2, c3, c4 = st.columns(4)
        player = c1.text_input("Player id contains", max_chars=80, key="hs_player")
        dealer = c2.text_input("Dealer id contains", max_chars=80, key="hs_dealer")
        table = c3.text_input("Table id contains", max_chars=80, key="hs_table")
        code = c4.text_input("Finding code", max_chars=8, key="hs_code")
        c5, c6, c7 = st.columns([2, 1, 1])
        days = c5.date_input("Days", value=[], key="hs_days")
        low = c6.text_input("Pot at least", max_chars=20, key="hs_min")
        high = c7.text_input("Pot at most", max_chars=20, key="hs_max")
        asked = st.form_submit_button("Search")
    if not asked and "hs_asked" not in st.session_state:
        return
    st.session_state["hs_asked"] = True
    start, end = (days[0], days[-1]) if isinstance(days, tuple) and days else (None, None)
    hands = load(
        "hand_find", player=player, dealer=dealer, table=table, code=code, start=start,
        end=end, min_pot=_cents(low), max_pot=_cents(high), limit=SEARCH_LIMIT,
    )  # fmt: skip
    total = int(hands["total"].iloc[0]) if not hands.empty else 0
    st.caption(f"{total:,} hands match" + (f" (the newest {SEARCH_LIMIT} shown)"
                                             if total > SEARCH_LIMIT else ""))  # fmt: skip
    if not hands.empty:
        st.dataframe(
            with_money(with_hand_links(hands.drop(columns=["total"])), ["pot"]),
            column_config={**hand_link_config(), "time_text": "time (room)"},
            hide_index=True,
            width="stretch",
        )
