"""P403 side-pot-misdistributed."""

from __future__ import annotations

from collections.abc import Iterator

from audit.rule import HandContext, Result, Rule, money
from audit.rules._pots import collections_of, pot_label
from schemas.findings import Severity


class SidePotMisdistributed(Rule):
    """Flags an all-in seat that collected more than it could win.

    What it does:
        For each seat that went all-in, the most it can win is, from every seat
        (itself included), at most what it put in itself, plus the dead money of the
        main pot (``Carried`` and penalties). A seat that collected more took chips of
        a side pot it had no stake in. One finding per such seat, on its collection
        from a pot it was not eligible for (else its last collection); the evidence
        names that pot, so the same pot's P401 is not reported as well.

    Why it matters:
        An all-in player cannot win what it could not have lost; paying it a side pot
        takes the money of the players who kept betting.

    Example:
        Seat 1 is all-in for 16 with two callers who put in 41 each: it can win at most
        16 from each seat, 48 plus the fourth seat's ante. ``Seat 1: collects 49`` and
        ``Seat 1: collects 50 from side pot 1``: P403 on the side pot line.

    Source:
        No seed sentence: accounting of side pots; the format spec numbers side pots
        from 1 in the order the all-ins created them.
    """

    code = "P403"
    name = "side-pot-misdistributed"
    severity = Severity.CRITICAL
    source = "—"
    summary = "An all-in seat collected more than it could win from the other seats."

    def check(self, ctx: HandContext) -> Iterator[Result]:
        replay = ctx.replay
        if replay.misdeal_index is not None:
            return
        dead_money = ctx.record.carried + replay.penalties
        eligible = {p.number: set(p.eligible) for p in replay.pots}
        for seat in replay.seats.values():
            if not seat.all_in or not seat.collected:
                continue
            most = dead_money + sum(min(o.total, seat.total) for o in replay.seats.values())
            if seat.collected <= most:
                continue
            mine = [c for c in collections_of(replay) if c.seat == seat.seat]
            if not mine:
                continue
            where = next((c for c in mine if seat.seat not in eligible.get(c.pot, ())), mine[-1])
            yield ctx.finding(
                f"seat {seat.seat}, all-in for {money(seat.total)}, collected "
                f"{money(seat.collected)} but could win at most {money(most)} "
                f"(it took {money(where.amount)} from {pot_label(where.pot)})",
                action=replay.steps[where.index].action,
                evidence={"pot": where.pot, "all_in_total_cents": seat.total,
                          "collected_cents": seat.collected, "max_winnable_cents": most,
                          "excess_cents": seat.collected - most},
            )
