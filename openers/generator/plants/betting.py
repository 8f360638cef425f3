"""Planters for the betting rules B101-B108."""

from __future__ import annotations

import random

from audit.house import Profile
from openers.generator.plants.base import Plant, jacks_only, on_event
from openers.generator.plants.helpers import collected, section_rows, spare_cards
from openers.generator.state import DealState, Forces, TableSettings
from schemas.records import TURN_VERBS, Actor, Section, Verb


def _capped(table: TableSettings, profile: Profile) -> bool:
    return profile.cap_raises is not None


def _short_call(st: DealState, rng: random.Random) -> tuple[str, ...] | None:
    """B105: a caller after the draw put in half the call, and lost."""
    if "short_call" not in st.events or collected(st, st.short_caller):
        return None
    return ("B105",)


def _unmatched(st: DealState, rng: random.Random) -> tuple[str, ...] | None:
    """B106: the draw began while a seat owed chips; that seat won nothing."""
    if "skip_closing_call" not in st.events or collected(st, st.unmatched):
        return None
    return ("B106",)


def _short_all_in_call(st: DealState, rng: random.Random) -> tuple[str, ...] | None:
    """B107: a seat all-in for the ante opened; its first caller put in half a unit, and lost."""
    if "short_all_in_call" not in st.events or collected(st, st.short_caller):
        return None
    return ("B107",)


def _out_of_turn(st: DealState, rng: random.Random) -> tuple[str, ...] | None:
    """B103: the second seat to act passes before the first (the first then passes too)."""
    rows = section_rows(st, Section.BEFORE_DRAW)
    turns = [r for r in rows if r.verb in TURN_VERBS]
    if len(turns) < 3 or turns[0].verb is not Verb.CHECKS or turns[1].verb is not Verb.CHECKS:
        return None
    if rows.index(turns[1]) != rows.index(turns[0]) + 1:
        return None
    i = st.draft.rows.index(turns[0])
    st.draft.rows[i], st.draft.rows[i + 1] = st.draft.rows[i + 1], st.draft.rows[i]
    return ("B103",)


def _folded_seat_draws(st: DealState, rng: random.Random) -> tuple[str, ...] | None:
    """B104: a seat that folded before the draw still draws two cards."""
    draws = [r for r in section_rows(st, Section.DRAW)
             if r.verb in (Verb.DISCARDS, Verb.STANDS_PAT)]
    if not draws or st.draft.find(Verb.DRAWS_FIFTH):
        return None
    folded = [s for s in st.seats if s.folded and s.seat != st.opener
              and st.draft.find(Verb.FOLDS, s.seat, Section.BEFORE_DRAW)]
    cards = spare_cards(st, 2)
    if not folded or cards is None:
        return None
    s = rng.choice(folded)
    discards = tuple(s.dealt[:2])
    row = st.draft.add(Section.DRAW, Actor.SEAT, Verb.DISCARDS, s.seat, cards=discards,
                       drawn=cards)
    st.draft.rows.remove(row)
    st.draft.insert_after(draws[-1], row)
    return ("B104",)


def _bet_not_open(st: DealState, rng: random.Random) -> tuple[str, ...] | None:
    """B108: the opener's opening bet is written as a bet."""
    opens = st.draft.find(Verb.OPENS, st.opener, Section.BEFORE_DRAW)
    if not opens or st.opener is None or opens[0].amount != st.table.small:
        return None
    opens[0].verb = Verb.BETS
    return ("B108",)


PLANTS = (
    Plant("B101", Forces(over_cap=True), on_event("over_cap", "B101"), applies=_capped),
    Plant("B102", Forces(wrong_bet_size=True), on_event("wrong_bet_size", "B102")),
    Plant("B103", Forces(), _out_of_turn),
    Plant("B104", Forces(), _folded_seat_draws),
    Plant("B105", Forces(short_call=True), _short_call),
    Plant("B106", Forces(skip_closing_call=True), _unmatched),
    Plant("B107", Forces(all_in_opener=True), _short_all_in_call, applies=jacks_only),
    Plant("B108", Forces(), _bet_not_open, applies=jacks_only),
)
