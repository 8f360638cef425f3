"""J504 carried-chips-lost-or-invented."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from audit.facts.context import Result, money
from audit.facts.sequence import Run
from audit.rule import SequenceRule
from audit.rules._sequence import previous_row
from schemas.findings import Severity


class CarriedChipsLostOrInvented(SequenceRule):
    """Flags a ``Carried`` that is not what the previous deal of the table left in the pot.

    What it does:
        The chips a deal carries in must be exactly what the deal just before it at
        the table left: its ``Passed out: carried X``; after a misdeal, the void
        deal's own ``Carried`` (the redeal plays the same pot); after a deal that was
        won, nothing. One finding per deal, on its first line, with both figures.

    Why it matters:
        Carried chips belong to the players of the unopened pot; a lower figure means
        chips left the table between deals, a higher one that chips came from
        nowhere, and every award of the pot is then wrong.

    Example:
        Deal 1 ends ``Passed out: carried 6``; deal 2 says ``Carried: 5``: J504
        (one chip lost).

    Source:
        L-29: "If the game be not opened by any player, the ante and straddles, if any,
        shall remain in the pool, and the next game shall be a Jack-pot."
        R-JB 2: "The first bet and antes will remain in the pot, and all players who were
        involved in that hand are entitled to play the next hand after anteing again."
    """

    code = "J504"
    name = "carried-chips-lost-or-invented"
    severity = Severity.CRITICAL
    source = "L-29, R-JB 2"
    summary = "Carried is not the chips the previous deal of the table left in the pot."

    def check(self, ctx: Run) -> Iterator[Result]:
        d, before = ctx.deals, previous_row(ctx)
        flagged = (ctx.previous >= 0) & (d.carried != d.carried_forward[before])
        for row in np.flatnonzero(flagged).tolist():
            deal, prev = ctx.deal(row), ctx.deal(int(ctx.previous[row]))
            previous = ctx.labels.hand_id(int(ctx.previous[row]))
            left = prev.carried_forward
            how = "lost" if deal.carried < left else "invented"
            if prev.misdealt:
                why = f"misdealt deal {previous} carried {money(left)}"
            elif prev.carried_out >= 0:
                why = f"passed-out deal {previous} left {money(left)}"
            else:
                why = f"the previous deal {previous} was played out and left nothing"
            yield ctx.finding(
                row,
                f"Carried is {money(deal.carried)} but {why}: "
                f"{money(abs(deal.carried - left))} {how}",
                line=deal.first_line or None,
                evidence={"carried_cents": deal.carried, "expected_cents": left,
                          "difference_cents": deal.carried - left, "previous": previous},
            )
