"""D301 misdeal-not-called."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np

from audit.facts.context import Batch, IntArray, Result
from audit.facts.view import HandView, Line, hand_view
from audit.rule import Rule
from audit.rules._deal import (
    HAND_SIZE,
    SEAT_KEY,
    per_seat,
)
from schemas.findings import Severity
from schemas.records import Verb


def _hands(keys: IntArray) -> list[int]:
    return np.unique(keys // SEAT_KEY).tolist()


def _counts(lines: Iterable[Line]) -> dict[int, int]:
    counts: dict[int, int] = {}
    for a in lines:
        if a.seat is not None and a.verb in (Verb.DEALT, Verb.DEALS):
            counts[a.seat] = counts.get(a.seat, 0) + len(a.cards or ())
    return counts


class MisdealNotCalled(Rule):
    """Flags a deal where a seat had fewer or more than five cards and play went on.

    What it does:
        Counts the cards each seat dealt in holds when play begins (its DEAL line
        plus any ``Dealer: deals`` before the first player's line; ``??`` counts as a
        card). A seat with another count than five needs a ``Dealer: misdeal``
        somewhere in the hand. The one exception is the button short exactly one
        card that a ``Dealer: deals`` line completes before the draw (R-DH 4). One
        finding per hand, at the first player line after the deal (where play
        went on without the misdeal), naming every seat miscounted.

    Why it matters:
        A hand of six cards is a better hand than the deck allowed; a short hand
        changes every other seat's cards. Either voids the deal.

    Example:
        ``Seat 4: [Ah Kd 9c 7s 3h 2d]`` and the betting starts with no misdeal:
        D301 at the first betting line, seat 4 with six cards.

    Source:
        R-DH 4: "Five cards constitute a playing hand. Less than five cards for a
        player (other than the button) before action has been taken is a misdeal."
        R-DH 4: "The button may receive the fifth card even if action has taken place."
    """

    code = "D301"
    name = "misdeal-not-called"
    severity = Severity.MAJOR
    source = "R-DH 4"
    summary = "A seat had other than five cards when play began, and no misdeal was called."

    def check(self, ctx: Batch) -> Iterator[Result]:
        a, hands = ctx.actions, ctx.hands
        rows = ctx.rows(Verb.DEALT, Verb.DEALS)
        h = a.hand[rows]
        limit = np.where(hands.first_play >= 0, hands.first_play, hands.action_count)[h]
        early = rows[a.index[rows] < limit]
        held = per_seat(ctx, early, np.maximum(a.cards_count[early], 0))
        deals = ctx.rows(Verb.DEALT)  # the seats dealt in: is what they hold five cards?
        dealt = a.hand[deals].astype(np.int64) * SEAT_KEY + a.seat[deals]
        for hand in _hands(dealt[held[dealt] != HAND_SIZE]):
            if hands.misdeal_index[hand] < 0:
                yield from self._hand(ctx, hand_view(ctx, hand))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        lines = view.lines
        first = view.row.first_play
        start = lines[first] if first >= 0 else None
        limit = start.index if start is not None else len(lines)
        deal_lines = view.lines_of(Verb.DEALT, Verb.DEALS)
        counts = _counts(a for a in deal_lines if a.index < limit)
        later = _counts(a for a in deal_lines
                        if a.index >= limit and a.before_draw and a.verb is Verb.DEALS)
        dealt = {a.seat for a in view.lines_of(Verb.DEALT)}
        button = view.row.button
        wrong = {
            seat: n for seat, n in counts.items()
            if seat in dealt and n != HAND_SIZE and not (
                seat == button and n == HAND_SIZE - 1 and later.get(seat, 0) == 1)
        }
        if not wrong:
            return
        order = view.order
        seats = sorted(wrong, key=lambda s: order.index(s) if s in order else len(order) + s)
        described = ", ".join(f"seat {s} had {wrong[s]}" for s in seats)
        line = start.line if start is not None else view.result_line
        yield ctx.finding(
            view.hand, f"{described} cards when play began, and no misdeal was called",
            action=start.row if start is not None else None, seat=seats[0], line=line,
            lines=[a.line for a in deal_lines if a.seat in wrong and a.index < limit],
            evidence={"cards_held": {str(s): wrong[s] for s in seats}},
        )
