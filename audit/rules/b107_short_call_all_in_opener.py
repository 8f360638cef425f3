"""B107 short-call-all-in-opener."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from audit.facts.context import Batch, Result, money
from audit.rule import Rule
from schemas.findings import Severity
from schemas.records import Verb


class ShortCallAllInOpener(Rule):
    """Flags a caller who came in for less than a full unit behind an all-in opener.

    What it does:
        When the pot was opened by a seat all-in for the antes (``opens 0 and is
        all-in``), the opening bet is still one full unit and every caller must put
        it in. A call before the draw that leaves a seat (not itself all-in) under
        one unit is flagged; this replaces B105 for that call and B106 for that seat.

    Why it matters:
        Letting callers in cheaply after an all-in opener changes the price of the
        pot for everyone who must call later.

    Example:
        ``Seat 2: opens 0 and is all-in`` at 10/20, then ``Seat 3: calls 5``:
        B107 on the call.

    Source:
        R-DH 12: "If the pot has been declared open by an all-in player playing for just
        the antes, all callers must come in for the full opening bet."
    """

    code = "B107"
    name = "short-call-all-in-opener"
    severity = Severity.MAJOR
    source = "R-DH 12"
    summary = "A caller came in for less than a unit behind an opener all-in for the antes."

    def check(self, ctx: Batch) -> Iterator[Result]:
        a = ctx.actions
        rows = ctx.rows(Verb.CALLS)
        rows = rows[ctx.hands.opened_all_in[a.hand[rows]]]  # behind an opener all-in
        called = a.stake[rows] + np.maximum(a.amount[rows], 0)
        flagged = (a.betting[rows] & (a.street[rows] == 1) & ~a.says_all_in[rows]
                   & (called < a.unit[rows]))
        for r, total in zip(rows[flagged].tolist(), called[flagged].tolist(), strict=True):
            row = ctx.action(r)
            yield ctx.finding(
                row.hand,
                f"seat {row.seat} called {money(total)} behind an opener all-in for the "
                f"antes; the opening bet is {money(row.unit)}",
                action=r, evidence={"called_cents": total, "unit_cents": row.unit,
                                    "opener": int(ctx.hands.original_opener[row.hand])},
            )
