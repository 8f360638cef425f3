"""D304 draw-out-of-order."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from audit.facts.context import Batch, Result
from audit.facts.view import HandView, Line, hand_view
from audit.rule import Rule
from audit.rules._deal import (
    DRAW_TURNS,
)
from schemas.findings import Severity


class DrawOutOfOrder(Rule):
    """Flags a seat served in the draw before a seat that comes earlier clockwise.

    What it does:
        The seats entitled to draw (in the hand at their draw line) are served
        clockwise from the first of them left of the button. Each seat's first
        draw turn (``discards .. draws ..`` or ``stands pat``) is placed in that
        rotation; a turn is out of order when a seat earlier in the rotation takes
        its own turn after it. A seat that never draws (it folded in the draw) is
        simply skipped; ``draws fifth`` lines are D303's; a seat not entitled to
        draw that draws is B104's. One finding per line served too early.

    Why it matters:
        The order of the draw decides which cards each seat gets; a seat served
        early takes the cards the seats before it were owed.

    Example:
        Button 4; seats 1 and 2 are in the hand. ``Seat 2: discards [..] draws
        [..]`` comes before ``Seat 1: discards [..] draws [..]``: D304 on seat 2's
        line.

    Source:
        L-34: "The first player to the left of the dealer shall have first draw."
        L-35: "The turn to draw shall pass from right to left." (Each player after the one on
        his right: the log's clockwise order.)
    """

    code = "D304"
    name = "draw-out-of-order"
    severity = Severity.MINOR
    source = "L-34, L-35"
    summary = "The seats were not served the draw clockwise from the first left of the button."

    def check(self, ctx: Batch) -> Iterator[Result]:
        a = ctx.actions
        turns = ctx.rows(*DRAW_TURNS)
        turns = turns[a.in_hand[turns] & (a.position[turns] >= 0)]
        h, position = a.hand[turns], a.position[turns]
        back = (h[1:] == h[:-1]) & (position[1:] < position[:-1])
        for hand in np.unique(h[1:][back]).tolist():
            yield from self._hand(ctx, hand_view(ctx, hand))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        position = {n: i for i, n in enumerate(view.order)}
        turns: list[tuple[Line, int]] = []
        seen: set[int] = set()
        for a in view.lines_of(*DRAW_TURNS):
            if a.seat in position and a.seat not in seen and a.in_hand:
                seen.add(a.seat)
                turns.append((a, position[a.seat]))
        for k, (a, pos) in enumerate(turns):
            skipped = [b.seat for b, later in turns[k + 1:] if later < pos]
            if skipped:
                yield ctx.finding(
                    view.hand,
                    f"seat {a.seat} was served the draw before seat "
                    f"{' and seat '.join(map(str, skipped))}, which "
                    f"{'comes' if len(skipped) == 1 else 'come'} first clockwise from the button",
                    action=a.row, evidence={"skipped": skipped,
                                            "order": [b.seat for b, _ in turns]},
                )
