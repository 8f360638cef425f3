"""B106 draw-before-stakes-equal."""

from __future__ import annotations

from collections.abc import Iterator

from audit.rule import HandContext, Result, Rule, money
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

    def check(self, ctx: HandContext) -> Iterator[Result]:
        replay = ctx.replay
        if replay.draw_index is None or not replay.unmatched_at_draw:
            return
        first = ctx.record.actions[replay.draw_index]
        for short in replay.unmatched_at_draw:
            yield ctx.finding(
                f"the draw began with seat {short.seat} at {money(short.stake)} of a "
                f"{money(short.current_bet)} bet",
                action=first, seat=short.seat,
                evidence={"stake_cents": short.stake, "current_bet_cents": short.current_bet},
            )
