"""Planters for the pot and showdown rules P401-P404."""

from __future__ import annotations

import random

from audit.evaluator import HandCategory, category, evaluate
from openers.generator.plants.base import Plant
from openers.generator.plants.helpers import has_side_pots
from openers.generator.state import DealState, Forces
from schemas.records import JOKER, Section, Verb


def _wrong_award(st: DealState, rng: random.Random) -> tuple[str, ...] | None:
    """P401: the main pot goes to a shown hand that lost, nothing else changes."""
    collects = st.draft.find(Verb.COLLECTS)
    if len(collects) != 1 or has_side_pots(st):
        return None
    winner = st.by_seat(collects[0].seat or 0)
    losers = [st.by_seat(r.seat or 0) for r in st.draft.find(Verb.SHOWS, section=Section.SHOWDOWN)
              if r.seat != winner.seat]
    losers = [s for s in losers if evaluate(s.hand) < evaluate(winner.hand)]
    if not losers:
        return None
    collects[0].seat = rng.choice(losers).seat
    return ("P401",)


def _wrong_pot(st: DealState, rng: random.Random) -> tuple[str, ...] | None:
    """P402: the RESULT's Pot line is off by a chip (the collections stay right)."""
    if st.draft.carried_out is not None:
        return None
    st.draft.pot += rng.choice((-1, 1)) * min(st.table.small, st.draft.pot)
    return ("P402",)


def _side_pot_to_all_in(st: DealState, rng: random.Random) -> tuple[str, ...] | None:
    """P403: an all-in seat that won the main pot also takes a side pot it had no stake in."""
    collects = st.draft.find(Verb.COLLECTS)
    for main in (r for r in collects if r.side_pot is None):
        seat = st.by_seat(main.seat or 0)
        if not seat.all_in:
            continue
        for side in (r for r in collects if r.side_pot is not None and r.seat != seat.seat):
            others = [r for r in collects if r.side_pot == side.side_pot and r is not side]
            if others:
                continue
            side.seat = seat.seat
            return ("P403",)
    return None


_JOKER_MISREAD = {
    HandCategory.ONE_PAIR: HandCategory.THREE_OF_A_KIND,
    HandCategory.TWO_PAIR: HandCategory.FULL_HOUSE,
    HandCategory.THREE_OF_A_KIND: HandCategory.FOUR_OF_A_KIND,
}


def _misread(st: DealState, rng: random.Random) -> tuple[str, ...] | None:
    """P404: a shown hand's reading names another category (the joker read as wild, if any)."""
    shows = [r for r in st.draft.find(Verb.SHOWS) if r.reading is not None and r.cards]
    if not shows:
        return None
    row = rng.choice(shows)
    actual = category(evaluate(row.cards or ()))
    wrong = _JOKER_MISREAD.get(actual) if JOKER in (row.cards or ()) else None
    if wrong is None:
        wrong = rng.choice([c for c in HandCategory if c is not actual])
    row.reading = wrong.value
    return ("P404",)


PLANTS = (
    Plant("P401", Forces(), _wrong_award),
    Plant("P402", Forces(), _wrong_pot),
    Plant("P403", Forces(short_stack_best=True), _side_pot_to_all_in),
    Plant("P404", Forces(record_readings=True), _misread),
)
