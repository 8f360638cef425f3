"""The showdown and the RESULT: who shows, who mucks, pots and side pots, rake, awards.

Pots are built from each seat's chips in: the main pot holds every seat's chips up
to the smallest all-in, each side pot the next layer, numbered in that order. An
uneven split gives the odd cents one each to the winners clockwise from the button
(spec: the odd chip to the first winning seat clockwise from the button).

An uncalled bet is never handed back: it stays in the pot its owner wins (the spec
allows it); above an all-in it is a side pot only its owner contests.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from audit.evaluator import category, evaluate, ranks
from openers.generator.state import DealState, SeatState
from schemas.records import Actor, Section, Verb


def strength_of(hand: list[str] | tuple[str, ...]) -> tuple[int, int]:
    """(category level, top rank) of a final hand, for a player's betting decisions."""
    try:
        strength = evaluate(hand)
    except ValueError:  # a fouled hand (wrong number of cards) is worth nothing
        return 0, 0
    level = category(strength).level
    return level, ranks(strength)[0] if level else 0


def power(s: SeatState) -> int:
    """The evaluator's strength of the seat's hand; -1 for a hand that is not five cards."""
    try:
        return evaluate(s.hand)
    except ValueError:
        return -1


def best_seats(st: DealState) -> set[int]:
    """Seats holding the best hand among the live seats."""
    live = st.live()
    top = max(power(s) for s in live)
    return {s.seat for s in live if power(s) == top}


@dataclass(slots=True)
class Pot:
    """A main pot (``number`` 0) or side pot, its chips and the seats that may win it."""

    number: int
    amount: int
    eligible: list[SeatState]


def build_pots(st: DealState) -> list[Pot]:
    """The main pot and side pots from the seats' chips in, dead money in the main pot."""
    live = st.live()
    levels = sorted({s.total for s in live if s.all_in})
    top = max((s.total for s in st.seats), default=0)
    bounds = [lvl for lvl in levels if lvl < top] + [top]
    pots: list[Pot] = []
    prev = 0
    for bound in bounds:
        amount = sum(min(s.total, bound) - min(s.total, prev) for s in st.seats)
        eligible = [s for s in live if s.total >= bound or (bound == top and not s.all_in)]
        if amount > 0 and eligible:
            pots.append(Pot(len(pots), amount, eligible))
        elif amount > 0 and pots:  # chips nobody live reached stay with the layer below
            pots[-1].amount += amount
        prev = bound
    extra = st.dead_money + st.setup.carried
    if pots:
        pots[0].amount += extra
    else:
        pots.append(Pot(0, extra, live))
    return pots


def _winners(pot: Pot) -> list[SeatState]:
    best = max(power(s) for s in pot.eligible)
    return [s for s in pot.eligible if power(s) == best]


def _clockwise_key(st: DealState) -> Callable[[SeatState], tuple[bool, int]]:
    """Sort key: seats clockwise from the button's left (the odd chip goes to the first)."""
    button = st.setup.button
    return lambda s: (s.seat <= button, s.seat)


def _rake(st: DealState, main: int) -> int:
    t = st.table
    if not t.rake_percent:
        return 0
    whole_units = main * t.rake_percent // 100 // 100 * 100
    return min(t.rake_cap, whole_units)


def showdown(st: DealState, rng: random.Random, first: int) -> None:
    """Live hands show or muck, starting at ``first`` and going clockwise."""
    live = st.live()
    pots = build_pots(st)
    winners = {s.seat for pot in pots for s in _winners(pot)}
    order = sorted(live, key=lambda s: (s.seat < first, s.seat))
    readings = st.table.readings or st.forces.record_readings
    for s in order:
        if s.seat == st.short_drawer:
            st.draft.add(Section.SHOWDOWN, Actor.SEAT, Verb.MUCKS, s.seat)
            s.folded = True
            continue
        if s.seat in winners or s.seat == st.false_opener or rng.random() < 0.35:
            strength = power(s)
            reading = category(strength).value if readings and strength >= 0 else None
            st.draft.add(Section.SHOWDOWN, Actor.SEAT, Verb.SHOWS, s.seat,
                         cards=tuple(s.hand), reading=reading)
        else:
            cards = tuple(s.hand) if rng.random() < 0.5 else None
            st.draft.add(Section.SHOWDOWN, Actor.SEAT, Verb.MUCKS, s.seat, cards=cards)
            s.folded = True


def refund_weak_callers(st: DealState) -> None:
    """Forced O209: give a caller of the opener's bet that cannot beat openers its bet back."""
    winners = {s.seat for pot in build_pots(st) for s in _winners(pot)}
    for s in st.seats:
        if s.seat not in st.after_draw_callers or not s.in_hand or s.seat in winners:
            continue
        if any(x.all_in for x in st.seats):
            return
        level, top = strength_of(s.hand)
        if level > 1 or (level == 1 and top >= 11):
            continue
        call = st.draft.find(Verb.CALLS, s.seat, Section.AFTER_DRAW)[0].amount or 0
        s.total -= call
        s.stack += call
        st.draft.add(Section.SHOWDOWN, Actor.DEALER, Verb.RETURNS, s.seat, amount=call)
        st.events.add("refund_weak_caller")
        return


def award(st: DealState) -> None:
    """Write the RESULT: pot, rake, collections (stacks are credited)."""
    pots = build_pots(st)
    draft = st.draft
    draft.pot = sum(p.amount for p in pots)
    key = _clockwise_key(st)
    contested = len(st.live()) > 1 or st.opener is not None
    draft.rake = _rake(st, pots[0].amount) if contested else 0
    for pot in pots:
        amount = pot.amount - (draft.rake if pot.number == 0 else 0)
        winners = sorted(_winners(pot) if len(pot.eligible) > 1 else pot.eligible, key=key)
        share, odd = divmod(amount, len(winners))
        for i, s in enumerate(winners):
            chips = share + (1 if i < odd else 0)
            s.stack += chips
            draft.add(Section.RESULT, Actor.SEAT, Verb.COLLECTS, s.seat, amount=chips,
                      side_pot=pot.number or None)
