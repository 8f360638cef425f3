"""D305 discards-and-draws-differ."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from audit.facts.context import Batch, Result
from audit.facts.view import HandView, hand_view
from audit.rule import Rule
from audit.rules._deal import (
    DRAW_LINES,
    HAND_SIZE,
    RECEIVING,
    SEAT_KEY,
    per_seat,
    receipts_of,
    seats_at_draw,
)
from schemas.findings import Severity


class DiscardsAndDrawsDiffer(Rule):
    """Flags a seat that received another number of cards in the draw than it discarded.

    What it does:
        For every seat in the hand when the draw began, adds up its discards and
        the cards it was given in the draw or later (``draws``, ``draws fifth``, a
        ``Dealer: deals`` after the deal); ``??`` counts as a card. They must be
        equal. A seat short of five cards before the draw may instead be given
        what completes its hand (R-DH 4). Too many cards is flagged on the line
        that went over; too few at the line where play went on past the draw (a
        five-card draw whose fifth card never came is short one card).

    Why it matters:
        A seat that gets more cards than it threw away chooses among extra cards;
        one that gets fewer holds a fouled hand. Either way the deck is off for
        every later seat.

    Example:
        ``Seat 2: discards [9s 5d 3c] draws [Ah 8h]``: three out, two in; D305 at the
        first line after the draw.

    Source:
        L-36: "Before drawing any card or cards, a player shall make his stake equal to
        the highest stake on the table, and he shall discard as many cards, and no more, as
        he intends to draw."
        L-39: "Each player, after discarding, shall ask for the same number of cards he has
        discarded, and the dealer shall place on the table, in front of such player, such
        number of cards, face downwards, from the top of the pack."
    """

    code = "D305"
    name = "discards-and-draws-differ"
    severity = Severity.MAJOR
    source = "L-36, L-39"
    summary = "A seat received a different number of cards in the draw than it discarded."

    def check(self, ctx: Batch) -> Iterator[Result]:
        a, s = ctx.actions, ctx.seats
        rows = ctx.rows(*RECEIVING)
        got = per_seat(ctx, rows, a.received_count[rows])
        got = got[s.hand.astype(np.int64) * SEAT_KEY + s.seat]
        discarded, dealt = s.discards_count, s.dealt_count
        odd = s.at_draw & (got != discarded) & ~(
            (dealt < HAND_SIZE) & (got == discarded + HAND_SIZE - dealt))
        for hand in np.unique(s.hand[odd]).tolist():
            yield from self._hand(ctx, hand_view(ctx, hand))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        lines_all = view.lines
        for n in seats_at_draw(view):
            seat = view.seats[n]
            discarded = len(seat.discards)
            lines = receipts_of(view, n)
            got = sum(len(a.received) for a in lines)
            allowed = {discarded}
            if len(seat.dealt) < HAND_SIZE:
                allowed.add(discarded + HAND_SIZE - len(seat.dealt))
            if got in allowed:
                continue
            evidence = {"discarded": discarded, "received": got,
                        "lines": [a.line for a in lines]}
            message = (f"seat {n} discarded {discarded} and received {got} "
                       f"card{'' if got == 1 else 's'}")
            if got > max(allowed):
                total = 0
                for a in lines:
                    total += len(a.received)
                    if total > max(allowed):
                        yield ctx.finding(view.hand, message, action=a.row, evidence=evidence)
                        break
                continue
            last = max([a.index for a in lines_all if a.seat == n and a.verb in DRAW_LINES]
                       + [a.index for a in lines] + [max(view.row.draw_index, 0) - 1])
            went_on = next((a.line for a in lines_all[last + 1:] if a.after_draw),
                           view.result_line)
            yield ctx.finding(view.hand, message, seat=n, line=went_on,
                              lines=[a.line for a in lines], evidence=evidence)
