"""D302 fouled-hand-played."""

from __future__ import annotations

from collections.abc import Iterator

from audit.replay import SeatState
from audit.rule import HandContext, Result, Rule, money
from audit.rules._draw import received, seats_at_draw
from schemas.findings import Severity
from schemas.records import Action, Actor, HandRecord, Verb

HAND_SIZE = 5
#: A seat's lines that play its hand on: betting, the showdown, and winning chips.
#: Folding gives the hand up, so a fouled seat that folds played nothing on.
_PLAYS = frozenset({Verb.CHECKS, Verb.OPENS, Verb.BETS, Verb.CALLS, Verb.RAISES,
                    Verb.SHOWS, Verb.MUCKS, Verb.COLLECTS})
_DRAW_LINES = frozenset({Verb.DISCARDS, Verb.STANDS_PAT, Verb.DRAWS_FIFTH})


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

    def check(self, ctx: HandContext) -> Iterator[Result]:
        replay = ctx.replay
        record = ctx.record
        for n in seats_at_draw(replay):
            seat = replay.seats[n]
            held = _held_after_draw(seat)
            if held == HAND_SIZE:
                continue
            ruled = any(a.verb is Verb.FOULED_HAND and a.seat == n for a in record.actions)
            line = _first_play(record, n, _last_draw(record, n, replay.draw_index or 0),
                               collections_only=ruled)
            if line is None:
                continue
            if ruled:
                message = (f"seat {n} held {held} cards after the draw, was ruled fouled, "
                           f"and still collected {money(line.amount or 0)}")
            else:
                message = (f"seat {n} held {held} cards after the draw and played on "
                           f"({line.verb.value}) without a fouled-hand ruling")
            draws = [a.line for a in record.actions if a.seat == n and received(a)]
            yield ctx.finding(message, action=line, seat=n, lines=draws, evidence={
                "cards_held": held, "ruled_fouled": ruled, "dealt": len(seat.dealt),
                "discarded": len(seat.discards), "received": len(seat.drawn) + len(seat.fifth),
            })


def _held_after_draw(seat: SeatState) -> int:
    return len(seat.dealt) - len(seat.discards) + len(seat.drawn) + len(seat.fifth)


def _last_draw(record: HandRecord, seat: int, draw_index: int) -> int:
    """Index of the seat's last line in the draw (or just before the draw began)."""
    last = draw_index - 1
    for a in record.actions:
        if a.seat == seat and (a.verb in _DRAW_LINES or received(a)):
            last = max(last, a.index)
    return last


def _first_play(record: HandRecord, seat: int, after: int,
                *, collections_only: bool) -> Action | None:
    """The seat's first line after index ``after`` that plays its hand on (or collects)."""
    for a in record.actions[after + 1:]:
        if a.actor is not Actor.SEAT or a.seat != seat:
            continue
        if a.verb is Verb.COLLECTS and (a.amount or 0) > 0:
            return a
        if not collections_only and a.verb in _PLAYS and a.verb is not Verb.COLLECTS:
            return a
    return None
