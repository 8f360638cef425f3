"""P402 chips-not-conserved."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from audit.facts.context import Batch, Result, money
from audit.rule import Rule
from audit.rules._pots import paid_rows
from schemas.findings import Severity


class ChipsNotConserved(Rule):
    """Flags a RESULT whose ``Pot`` does not match the chips put in, or the chips paid out.

    What it does:
        Two balances, both from the log alone. In: the antes, opens, bets, calls,
        raises and penalties of the deal plus ``Carried``, less every ``withdraws``
        and every ``Dealer: returns``, must equal ``Pot``. Out: ``Pot`` must equal
        the ``collects`` lines plus ``Rake``, plus ``Passed out: carried X`` when the
        deal was passed out. One finding per hand, on the ``Pot`` line, naming both
        figures of each balance that fails (a misdeal's refunds count as collections).

    Why it matters:
        Chips that appear or vanish between the table and the result are either a
        recording error that makes every later figure wrong, or money taken.

    Example:
        Three antes of 1, an open of 10 and a call of 10 make 23, but the RESULT says
        ``Pot: 22`` and ``Seat 2: collects 22``: P402 (in: 23, Pot: 22). With
        ``Pot: 23`` and ``Seat 2: collects 22`` and no rake, P402 (out: 22 of 23).

    Source:
        No seed sentence: accounting. The format spec defines ``Pot`` as every chip
        put in during the deal plus ``Carried``, less chips withdrawn or returned.
    """

    code = "P402"
    name = "chips-not-conserved"
    severity = Severity.CRITICAL
    source = "— (accounting)"
    summary = "Pot differs from the chips put in, or from collections plus rake (plus carried)."

    def check(self, ctx: Batch) -> Iterator[Result]:
        h, a = ctx.hands, ctx.actions
        rows = paid_rows(ctx)
        paid = np.bincount(a.hand[rows], weights=np.maximum(a.amount[rows], 0),
                           minlength=len(ctx)).astype(np.int64)
        paid_out = paid + h.rake + np.maximum(h.carried_out, 0)
        flagged = np.flatnonzero((h.pot_total != h.pot) | (paid_out != h.pot))
        for hand in flagged.tolist():
            row = ctx.hand(hand)
            collected, out = int(paid[hand]), int(paid_out[hand])
            carried_out = None if row.carried_out < 0 else row.carried_out
            problems = []
            if row.pot_total != row.pot:
                problems.append(f"the chips put in come to {money(row.pot_total)}")
            if out != row.pot:
                parts = [f"collections {money(collected)}"]
                if row.rake:
                    parts.append(f"rake {money(row.rake)}")
                if carried_out is not None:
                    parts.append(f"carried {money(carried_out)}")
                paid_text = " + ".join(parts) if len(parts) > 1 else "the collections"
                problems.append(f"{paid_text} come to {money(out)}")
            yield ctx.finding(
                hand, f"Pot is {money(row.pot)} but " + " and ".join(problems),
                line=ctx.labels.result_line(hand) or None,
                evidence={"recorded_pot_cents": row.pot, "put_in_cents": row.pot_total,
                          "collected_cents": collected, "rake_cents": row.rake,
                          "carried_out_cents": carried_out,
                          "paid_out_cents": out, "carried_in_cents": row.carried,
                          "penalties_cents": row.penalties},
            )
