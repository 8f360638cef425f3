"""P402 chips-not-conserved."""

from __future__ import annotations

from collections.abc import Iterator

from audit.rule import HandContext, Result, Rule, money
from audit.rules._pots import collections_of
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

    def check(self, ctx: HandContext) -> Iterator[Result]:
        record = ctx.record
        put_in = ctx.replay.pot_total
        paid = sum(c.amount for c in collections_of(ctx.replay))
        carried_out = record.carried_out or 0
        paid_out = paid + record.rake + carried_out
        problems = []
        if put_in != record.pot:
            problems.append(f"the chips put in come to {money(put_in)}")
        if paid_out != record.pot:
            parts = [f"collections {money(paid)}"]
            if record.rake:
                parts.append(f"rake {money(record.rake)}")
            if record.carried_out is not None:
                parts.append(f"carried {money(carried_out)}")
            paid_text = " + ".join(parts) if len(parts) > 1 else "the collections"
            problems.append(f"{paid_text} come to {money(paid_out)}")
        if not problems:
            return
        yield ctx.finding(
            f"Pot is {money(record.pot)} but " + " and ".join(problems),
            line=record.result_line or None,
            evidence={"recorded_pot_cents": record.pot, "put_in_cents": put_in,
                      "collected_cents": paid, "rake_cents": record.rake,
                      "carried_out_cents": record.carried_out,
                      "paid_out_cents": paid_out, "carried_in_cents": record.carried,
                      "penalties_cents": ctx.replay.penalties},
        )
