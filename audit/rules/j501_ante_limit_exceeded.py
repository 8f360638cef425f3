"""J501 ante-limit-exceeded."""

from __future__ import annotations

from collections.abc import Iterator

from audit.rule import Result, SequenceContext, SequenceRule, money
from schemas.findings import Severity
from schemas.records import Verb


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

    def check(self, ctx: SequenceContext) -> Iterator[Result]:
        limit = ctx.profile.ante_limit
        deal = ctx.current
        if limit is None or deal.jackpot <= limit:
            return
        antes = [a for a in deal.actions if a.verb is Verb.ANTES and (a.amount or 0) > 0]
        if not antes:
            return
        taken = sum(a.amount or 0 for a in antes)
        seats = [a.seat for a in antes]
        yield ctx.finding(
            f"deal {deal.jackpot} of an unopened pot took {money(taken)} in antes from "
            f"{len(seats)} seats; the house antes only the first {limit} deals",
            action=antes[0],
            evidence={"jackpot": deal.jackpot, "ante_limit": limit, "seats": seats,
                      "antes_cents": taken,
                      "previous": ctx.previous.hand_id if ctx.previous else None},
        )
