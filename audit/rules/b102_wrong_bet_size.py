"""B102 wrong-bet-size."""

from __future__ import annotations

from collections.abc import Iterator

from audit.rule import HandContext, Result, Rule, money
from audit.rules._betting import betting_steps
from schemas.findings import Severity
from schemas.records import Verb

_SIZED = frozenset({Verb.OPENS, Verb.BETS, Verb.RAISES})


class WrongBetSize(Rule):
    """Flags a bet or raise that is not exactly one fixed-limit unit.

    What it does:
        Compares each ``opens``, ``bets`` and ``raises`` with the unit of its round:
        the small figure of ``Limit`` before the draw, the big one after. An open
        is one unit or two (a bet and a raise); a bet or a raise is one unit. A
        seat all-in may put in less. A raise by a seat whose betting was closed by
        an all-in raise of less than half a unit (it had already acted) is flagged
        too: such a raise does not reopen the betting.

    Why it matters:
        In fixed limit the size of every bet is fixed; a wrong size changes what
        every later caller must put in.

    Example:
        At 10/20, after the draw ``Seat 3: bets 10`` (the unit is 20), or before it
        ``Seat 1: opens 30``: B102 on that line. ``Seat 2: raises 4 to 14 and is
        all-in`` is legal.

    Source:
        R-DH intro: "Players in turn may check, open for the minimum, or open with a raise."
        R-DH intro: "The betting limit after the draw is twice the amount of the betting limit
        before the draw."
        R-DH 1: "A maximum of a bet and four raises is permitted in multihanded pots."
    """

    code = "B102"
    name = "wrong-bet-size"
    severity = Severity.MAJOR
    source = "R-DH intro, R-DH 1"
    summary = "A bet or raise that is not one fixed-limit unit (an open: one or two)."

    def check(self, ctx: HandContext) -> Iterator[Result]:
        for step in betting_steps(ctx.replay, _SIZED):
            a = step.action
            unit = step.unit
            amount = a.amount or 0
            if a.verb is Verb.OPENS and step.current_bet == 0:
                ok = amount in (unit, 2 * unit) or (a.all_in and amount < 2 * unit)
                what = f"opened for {money(amount)}; an open is {money(unit)} or {money(2 * unit)}"
            elif a.verb is Verb.BETS and step.current_bet == 0:
                ok = amount == unit or (a.all_in and amount < unit)
                what = f"bet {money(amount)}; a bet is {money(unit)}"
            elif a.verb is Verb.RAISES and not step.may_raise:
                ok = False
                what = ("raised after an all-in raise of less than half a unit, which did not "
                        "reopen the betting for a seat that had already acted")
            else:
                # A raise (or a second open or bet, read as one): X over the current bet.
                if a.verb is Verb.RAISES:
                    increase = amount
                else:
                    increase = step.stake + step.chips - step.current_bet
                ok = increase == unit or (a.all_in and increase < unit)
                what = f"raised by {money(increase)}; a raise is {money(unit)}"
            if not ok:
                yield ctx.finding(
                    f"seat {a.seat} {what}", action=a,
                    evidence={"amount_cents": amount, "unit_cents": unit,
                              "current_bet_cents": step.current_bet,
                              "all_in": a.all_in, "street": int(step.street or 0)},
                )
