"""B106 draw-before-stakes-equal."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from audit.facts.context import Batch, Result, money
from audit.rule import Rule
from schemas.findings import Severity


class DrawBeforeStakesEqual(Rule):
    """Flags a draw that began while a seat still in the hand had not matched the bet.

    What it does:
        At the first line of the draw (or of AFTER DRAW when nobody drew), every
        seat in the hand that is not all-in must have put in the highest stake of
        the round before the draw. One finding per seat short, at that line.

    Why it matters:
        A seat that draws without having called plays for a pot it has not paid
        for.

    Example:
        Seat 1 opens 10, seat 3 raises to 20, seat 1 never acts again, and the
        draw begins: B106 for seat 1 (10 of 20) at the first draw line.

    Source:
        L-36: "Before drawing any card or cards, a player shall make his stake equal to
        the highest stake on the table, and he shall discard as many cards, and no more, as
        he intends to draw."
        R-DH intro: "After the first betting round the players have the opportunity to draw
        new cards to replace the ones they discard."
    """

    code = "B106"
    name = "draw-before-stakes-equal"
    severity = Severity.MAJOR
    source = "L-36, R-DH intro"
    summary = "The draw began while a seat in the hand had not matched the highest stake."

    def check(self, ctx: Batch) -> Iterator[Result]:
        s = ctx.seats
        short = np.flatnonzero(s.short_at_draw & (ctx.hands.draw_index[s.hand] >= 0))
        # In each hand, clockwise from the first seat left of the button.
        short = short[np.lexsort((s.position[short], s.hand[short]))]
        for r in short.tolist():
            seat = ctx.seat(r)
            first = ctx.action_row(seat.hand, int(ctx.hands.draw_index[seat.hand]))
            yield ctx.finding(
                seat.hand,
                f"the draw began with seat {seat.seat} at {money(seat.stake_at_draw)} of a "
                f"{money(seat.bet_at_draw)} bet",
                action=first, seat=seat.seat,
                evidence={"stake_cents": seat.stake_at_draw, "current_bet_cents": seat.bet_at_draw},
            )
