"""B105 inconsistent-call-or-raise."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from audit.facts.context import Batch, Result, money
from audit.rule import Rule
from ingest.scan.layout import (
    V_CALLS,
    V_RAISES,
)
from schemas.findings import Severity
from schemas.records import Verb


class InconsistentCallOrRaise(Rule):
    """Flags a call that does not match the bet, or a ``raises X to Y`` that does not add up.

    What it does:
        A ``calls X`` must bring the seat's stake in the round exactly to the current
        bet (less only when the seat goes all-in); a call with nothing to call is
        flagged too. A ``raises X to Y`` must have Y equal to the current bet plus X.
        The replay goes on with the chips the line gives (Y for a raise).

    Why it matters:
        A wrong call leaves the stakes unequal or puts in chips nobody asked for;
        the pot no longer matches the betting.

    Example:
        Current bet 20, seat 5 has 10 in: ``Seat 5: calls 20`` (it owes 10), or
        ``Seat 3: raises 10 to 40`` over a bet of 20: B105 on that line.

    Source:
        No seed sentence: a consistency check of the hand log (the chips of a line
        must add up).
    """

    code = "B105"
    name = "inconsistent-call-or-raise"
    severity = Severity.MAJOR
    source = "—"
    summary = "A call that does not match the bet, or a raise X to Y that does not add up."

    def check(self, ctx: Batch) -> Iterator[Result]:
        a = ctx.actions
        rows = ctx.rows(Verb.CALLS, Verb.RAISES)
        rows = rows[a.betting[rows]]
        amount = np.maximum(a.amount[rows], 0)
        owed = a.current_bet[rows] - a.stake[rows]
        calls = a.verb[rows] == V_CALLS
        good_call = ((amount == owed) & (owed > 0)) | (a.says_all_in[rows] & (amount > 0)
                                                       & (amount < owed))
        raises = a.verb[rows] == V_RAISES
        to_amount = a.to_amount[rows]
        bad_raise = (to_amount >= 0) & (to_amount != a.current_bet[rows] + amount)
        for r in rows[(calls & ~good_call) | (raises & bad_raise)].tolist():
            row = ctx.action(r)
            paid, bet, stake = max(row.amount, 0), row.current_bet, row.stake
            evidence: dict[str, object] = {
                "amount_cents": paid, "current_bet_cents": bet, "stake_cents": stake}
            if row.verb == V_CALLS:
                evidence["owed_cents"] = bet - stake
                yield ctx.finding(
                    row.hand,
                    f"seat {row.seat} calls {money(paid)} but owed {money(max(bet - stake, 0))} "
                    f"(bet {money(bet)}, in {money(stake)})",
                    action=r, evidence=evidence,
                )
            else:
                evidence["to_cents"] = row.to_amount
                yield ctx.finding(
                    row.hand,
                    f"seat {row.seat} raises {money(paid)} to {money(row.to_amount)} over a bet "
                    f"of {money(bet)} (should be to {money(bet + paid)})",
                    action=r, evidence=evidence,
                )
