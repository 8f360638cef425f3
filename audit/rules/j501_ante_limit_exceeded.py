"""J501 ante-limit-exceeded."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from audit.facts.context import Result, money
from audit.facts.sequence import Run
from audit.rule import SequenceRule
from schemas.findings import Severity


class AnteLimitExceeded(SequenceRule):
    """Flags antes taken on a deal of an unopened pot past the house's limit of antes.

    What it does:
        With a house limit of L anted deals (``ante_limit``; three in most games),
        deals 1 to L of one unopened pot are anted and later ones are not
        (``Ante: 0``). A deal whose ``Jackpot`` is above L on which any seat antes
        is flagged once, on its first ante line, with the seats and chips taken.
        Houses without a limit (foster, laws) are not checked. Only the deal itself
        is read, so a table's first deal is judged too.

    Why it matters:
        Past the limit the pot is already fed by every player; more antes take
        chips from players who have not chosen to play, and reward whoever sits
        out longest.

    Example:
        A robert house, a fourth consecutive unopened deal (``Jackpot: 4``) with
        ``Seat 1: antes 1``: J501 on that line.

    Source:
        R-JB 1: "If no player opens the pot, the button moves forward and each player
        must ante again, unless the limit of antes has been reached for that particular
        game."
        R-JB 1: "(Most games allow three consecutive deals before anteing stops.)"
        H-23.1: "This process is repeated as necessary as long as the limit of antes has not
        been reached."
    """

    code = "J501"
    name = "ante-limit-exceeded"
    severity = Severity.MAJOR
    source = "R-JB 1, H-23.1"
    summary = "A deal past the house's limit of anted deals was anted."

    def check(self, ctx: Run) -> Iterator[Result]:
        limit = ctx.profile.ante_limit
        if limit is None:
            return
        d = ctx.deals
        flagged = ctx.in_sequence & (d.jackpot > limit) & (d.antes_count > 0)
        for row in np.flatnonzero(flagged).tolist():
            deal = ctx.deal(row)
            seats = [deal.antes_seats >> (4 * k) & 15 for k in range(min(deal.antes_count, 16))]
            previous = int(ctx.previous[row])
            yield ctx.finding(
                row,
                f"deal {deal.jackpot} of an unopened pot took {money(deal.antes_total)} in "
                f"antes from {len(seats)} seats; the house antes only the first {limit} deals",
                line=deal.first_ante_line, index=deal.first_ante_index,
                seat=deal.first_ante_seat or None,
                evidence={"jackpot": deal.jackpot, "ante_limit": limit, "seats": seats,
                          "antes_cents": deal.antes_total,
                          "previous": ctx.labels.hand_id(previous) if previous >= 0 else None},
            )
