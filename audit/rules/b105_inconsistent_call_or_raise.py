"""B105 inconsistent-call-or-raise."""

from __future__ import annotations

from collections.abc import Iterator

from audit.rule import HandContext, Result, Rule, money
from audit.rules._betting import betting_steps
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

    def check(self, ctx: HandContext) -> Iterator[Result]:
        for step in betting_steps(ctx.replay, frozenset({Verb.CALLS, Verb.RAISES})):
            a = step.action
            amount = a.amount or 0
            evidence = {"amount_cents": amount, "current_bet_cents": step.current_bet,
                        "stake_cents": step.stake}
            if a.verb is Verb.CALLS:
                owed = step.current_bet - step.stake
                if amount == owed and owed > 0:
                    continue
                if a.all_in and 0 < amount < owed:
                    continue
                evidence["owed_cents"] = owed
                yield ctx.finding(
                    f"seat {a.seat} calls {money(amount)} but owed {money(max(owed, 0))} "
                    f"(bet {money(step.current_bet)}, in {money(step.stake)})",
                    action=a, evidence=evidence,
                )
            elif a.to_amount is not None and a.to_amount != step.current_bet + amount:
                evidence["to_cents"] = a.to_amount
                yield ctx.finding(
                    f"seat {a.seat} raises {money(amount)} to {money(a.to_amount)} over a bet "
                    f"of {money(step.current_bet)} (should be to "
                    f"{money(step.current_bet + amount)})",
                    action=a, evidence=evidence,
                )
