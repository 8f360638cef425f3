"""D302 fouled-hand-played."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from audit.facts.context import Batch, Result, money
from audit.facts.view import HandView, Line, hand_view
from audit.rule import Rule
from audit.rules._deal import (
    DRAW_LINES,
    HAND_SIZE,
    seats_at_draw,
)
from schemas.findings import Severity
from schemas.records import Actor, Verb

_PLAYS = frozenset({Verb.CHECKS, Verb.OPENS, Verb.BETS, Verb.CALLS, Verb.RAISES,
                    Verb.SHOWS, Verb.MUCKS, Verb.COLLECTS})


def _first_play(lines: list[Line], seat: int, after: int, *, collections_only: bool
                ) -> Line | None:
    for a in lines[after + 1:]:
        if a.actor is not Actor.SEAT or a.seat != seat:
            continue
        if a.verb is Verb.COLLECTS and (a.amount or 0) > 0:
            return a
        if not collections_only and a.verb in _PLAYS and a.verb is not Verb.COLLECTS:
            return a
    return None


class FouledHandPlayed(Rule):
    """Flags a seat that held other than five cards after the draw and played on or won.

    What it does:
        For every seat in the hand when the draw began, counts its cards after the
        draw: dealt (with any ``Dealer: deals`` before the draw), less discards,
        plus drawn, fifth and later dealt cards (``??`` counts as a card). A seat
        with another count than five must be ruled ``Floor: Seat N fouled hand``.
        Without that ruling, the first line on which it plays on after its draw
        (a bet, call, check, show, muck or collection) is flagged; with it, a
        collection is still flagged (a fouled hand cannot win). A seat that folds
        played nothing on.

    Why it matters:
        A fouled hand is dead: if it plays on it takes chips from live hands, and
        if it wins, the pot went to a hand that had no right to it.

    Example:
        Seat 2 discards three and receives two, is never ruled fouled, and shows
        four cards at the showdown: D302 at the ``shows`` line.

    Source:
        R-DH 4: "More or fewer than five cards after the draw constitutes a fouled
        hand."
        R-DH 4: "If action has been taken, a player with fewer than five cards may draw the
        number of cards necessary to complete a five-card hand."
    """

    code = "D302"
    name = "fouled-hand-played"
    severity = Severity.CRITICAL
    source = "R-DH 4"
    summary = "A seat held other than five cards after the draw and played on or won chips."

    def check(self, ctx: Batch) -> Iterator[Result]:
        s = ctx.seats
        held = s.dealt_count - s.discards_count + s.drawn_count + s.fifth_count
        fouled = np.flatnonzero(s.at_draw & (held != HAND_SIZE))
        for hand in np.unique(s.hand[fouled]).tolist():
            yield from self._hand(ctx, hand_view(ctx, hand))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        lines = view.lines
        for n in seats_at_draw(view):
            seat = view.seats[n]
            held = len(seat.dealt) - len(seat.discards) + len(seat.drawn) + len(seat.fifth)
            if held == HAND_SIZE:
                continue
            ruled = any(a.verb is Verb.FOULED_HAND and a.seat == n for a in lines)
            last = view.row.draw_index - 1
            for a in lines:
                if a.seat == n and (a.verb in DRAW_LINES or a.received):
                    last = max(last, a.index)
            line = _first_play(lines, n, last, collections_only=ruled)
            if line is None:
                continue
            if ruled:
                message = (f"seat {n} held {held} cards after the draw, was ruled fouled, "
                           f"and still collected {money(line.amount or 0)}")
            else:
                message = (f"seat {n} held {held} cards after the draw and played on "
                           f"({line.verb.value}) without a fouled-hand ruling")
            draws = [a.line for a in lines if a.seat == n and a.received]
            yield ctx.finding(view.hand, message, action=line.row, seat=n, lines=draws, evidence={
                "cards_held": held, "ruled_fouled": ruled, "dealt": len(seat.dealt),
                "discarded": len(seat.discards), "received": len(seat.drawn) + len(seat.fifth),
            })
