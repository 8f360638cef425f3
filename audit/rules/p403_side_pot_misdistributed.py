"""P403 side-pot-misdistributed."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from audit.facts.context import Batch, Result, money, spread
from audit.facts.tables import seats_of
from audit.facts.view import HandView, hand_view
from audit.rule import Rule
from audit.rules._openers import collections
from audit.rules._pots import pot_label
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

    def check(self, ctx: Batch) -> Iterator[Result]:
        s, h = ctx.seats, ctx.hands
        rows = np.flatnonzero(s.all_in & (s.collected != 0))
        # The most each can win, as _hand counts it: only a seat paid more is looked at.
        hand = s.hand[rows]
        owner, others = spread(h.seat_start[hand], h.seat_count[hand])
        most = h.carried[hand] + h.penalties[hand] + np.bincount(
            owner, weights=np.minimum(s.total[others], s.total[rows][owner]),
            minlength=len(rows)).astype(np.int64)
        hands = np.unique(hand[s.collected[rows] > most])
        for hand in hands[ctx.hands.misdeal_index[hands] < 0].tolist():
            yield from self._hand(ctx, hand_view(ctx, hand))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        dead_money = view.row.carried + view.row.penalties
        eligible = {}
        for k in range(view.row.pot_count):
            pot = ctx.pot(view.row.pot_start + k)
            eligible[pot.number] = set(seats_of(pot.eligible))
        every = collections(view)
        for seat in view.seats.values():
            if not seat.all_in or not seat.collected:
                continue
            most = dead_money + sum(min(o.total, seat.total) for o in view.seats.values())
            if seat.collected <= most:
                continue
            mine = [c for c in every if c[1] == seat.seat]
            if not mine:
                continue
            where = next((c for c in mine if seat.seat not in eligible.get(c[3], ())), mine[-1])
            yield ctx.finding(
                view.hand,
                f"seat {seat.seat}, all-in for {money(seat.total)}, collected "
                f"{money(seat.collected)} but could win at most {money(most)} "
                f"(it took {money(where[2])} from {pot_label(where[3])})",
                action=view.lines[where[0]].row,
                evidence={"pot": where[3], "all_in_total_cents": seat.total,
                          "collected_cents": seat.collected, "max_winnable_cents": most,
                          "excess_cents": seat.collected - most},
            )
