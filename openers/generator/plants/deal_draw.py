"""Planters for the deal and draw rules D301-D308."""

from __future__ import annotations

import random

from audit.evaluator import category, evaluate
from openers.generator.plants.base import Plant, on_event
from openers.generator.plants.helpers import (
    collected,
    reached_showdown,
    section_rows,
    spare_cards,
)
from openers.generator.state import DealState, Forces
from schemas.records import JOKER, Section, Verb


def _six_cards(st: DealState, rng: random.Random) -> tuple[str, ...] | None:
    """D301: a seat that folded before the draw was dealt six cards, and play went on."""
    folded = [s for s in st.seats if s.seat != st.setup.button and s.seat != st.opener
              and st.draft.find(Verb.FOLDS, s.seat, Section.BEFORE_DRAW)]
    extra = spare_cards(st, 1)
    if not folded or extra is None:
        return None
    s = rng.choice(folded)
    row = st.draft.find(Verb.DEALT, s.seat)[0]
    row.cards = (*(row.cards or ()), *extra)
    return ("D301",)


def _fouled_played(st: DealState, rng: random.Random) -> tuple[str, ...] | None:
    """D302 with D305: a seat drew one card short, was not ruled fouled, and mucked."""
    seat = st.short_drawer
    if "short_draw" not in st.events or not reached_showdown(st, seat) or collected(st, seat):
        return None
    return ("D302", "D305")


def _draw_order(st: DealState, rng: random.Random) -> tuple[str, ...] | None:
    """D304: two neighbouring seats' draws are served the wrong way round."""
    rows = section_rows(st, Section.DRAW)
    if any(r.verb in (Verb.DRAWS_FIFTH, Verb.EXPOSES, Verb.SPLITS_OPENERS) for r in rows):
        return None
    draws = [r for r in rows if r.verb in (Verb.DISCARDS, Verb.STANDS_PAT)]
    pairs = [i for i in range(len(draws) - 1)
             if rows.index(draws[i + 1]) == rows.index(draws[i]) + 1]
    if not pairs:
        return None
    first = draws[rng.choice(pairs)]
    i = st.draft.rows.index(first)
    st.draft.rows[i], st.draft.rows[i + 1] = st.draft.rows[i + 1], st.draft.rows[i]
    return ("D304",)


def _duplicate_burn(st: DealState, rng: random.Random) -> tuple[str, ...] | None:
    """D307: the burned card is a card some seat holds (or the joker in a deck without it)."""
    burns = [r for r in st.draft.find(Verb.BURNS) if r.cards]
    if not burns:
        return None
    if not st.table.joker and rng.random() < 0.3:
        burns[0].cards = (JOKER,)
    else:
        burns[0].cards = (rng.choice(rng.choice(st.seats).dealt),)
    return ("D307",)


def _taken_back(st: DealState, rng: random.Random) -> tuple[str, ...] | None:
    """D308: a losing seat shows one of its discards in place of a drawn card."""
    winners = [s for s in st.seats if collected(st, s.seat)]
    if any(s.all_in for s in st.seats) or not winners or not st.draft.find(Verb.SHOWS):
        return None
    best = max(evaluate(s.hand) for s in winners)
    for row in st.draft.find(Verb.SHOWS, section=Section.SHOWDOWN):
        s = st.by_seat(row.seat or 0)
        if s.seat == st.opener or collected(st, s.seat) or not s.drawn or not s.discards:
            continue
        shown = [s.discards[0] if c == s.drawn[0] else c for c in s.hand]
        strength = evaluate(shown)
        if strength >= best:
            continue
        row.cards = tuple(shown)
        if row.reading is not None:
            row.reading = category(strength).value
        return ("D308",)
    return None


PLANTS = (
    Plant("D301", Forces(), _six_cards),
    Plant("D302", Forces(short_draw=True, short_draw_played=True), _fouled_played),
    Plant("D303", Forces(five_at_once=True), on_event("five_at_once", "D303")),
    Plant("D304", Forces(), _draw_order),
    Plant("D305", Forces(short_draw=True), on_event("short_draw", "D305")),
    Plant("D306", Forces(expose_and_give=True), on_event("expose_and_give", "D306")),
    Plant("D307", Forces(record_burn=True), _duplicate_burn),
    Plant("D308", Forces(), _taken_back),
)
