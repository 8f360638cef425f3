"""B102 wrong-bet-size."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from audit.facts.context import Batch, Result, money
from audit.rule import Rule
from ingest.scan.layout import (
    V_BETS,
    V_OPENS,
    V_RAISES,
)
from schemas.findings import Severity
from schemas.records import Verb


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

    def check(self, ctx: Batch) -> Iterator[Result]:
        a = ctx.actions
        rows = ctx.rows(Verb.OPENS, Verb.BETS, Verb.RAISES)  # the lines that size a bet
        rows = rows[a.betting[rows]]
        verb, unit, bet = a.verb[rows], a.unit[rows], a.current_bet[rows]
        amount = np.maximum(a.amount[rows], 0)
        all_in = a.says_all_in[rows]
        opens = (verb == V_OPENS) & (bet == 0)
        bets = (verb == V_BETS) & (bet == 0)
        closed = (verb == V_RAISES) & ~a.may_raise[rows] & ~opens & ~bets
        increase = np.where(verb == V_RAISES, amount, a.stake[rows] + a.chips[rows] - bet)
        ok = np.where(
            opens, (amount == unit) | (amount == 2 * unit) | (all_in & (amount < 2 * unit)),
            np.where(bets, (amount == unit) | (all_in & (amount < unit)),
                     ~closed & ((increase == unit) | (all_in & (increase < unit)))))
        for r, increase_r in zip(rows[~ok].tolist(), increase[~ok].tolist(), strict=True):
            row = ctx.action(r)
            unit_r, amount_r = row.unit, max(row.amount, 0)
            if row.verb == V_OPENS and row.current_bet == 0:
                what = (f"opened for {money(amount_r)}; an open is {money(unit_r)} or "
                        f"{money(2 * unit_r)}")
            elif row.verb == V_BETS and row.current_bet == 0:
                what = f"bet {money(amount_r)}; a bet is {money(unit_r)}"
            elif row.verb == V_RAISES and not row.may_raise:
                what = ("raised after an all-in raise of less than half a unit, which did not "
                        "reopen the betting for a seat that had already acted")
            else:
                raised = int(increase_r)
                what = f"raised by {money(raised)}; a raise is {money(unit_r)}"
            yield ctx.finding(
                row.hand, f"seat {row.seat} {what}", action=r,
                evidence={"amount_cents": amount_r, "unit_cents": unit_r,
                          "current_bet_cents": row.current_bet,
                          "all_in": row.says_all_in, "street": row.street},
            )
