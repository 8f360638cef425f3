"""J505 seat-change-with-antes-carried."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from audit.facts.context import Result, money
from audit.facts.sequence import Run
from audit.rule import SequenceRule
from audit.rules._sequence import previous_row, seat_anchor
from schemas.findings import Severity


class SeatChangeWithAntesCarried(SequenceRule):
    """Flags a player who sits in another seat than on the previous deal while chips are carried.

    What it does:
        When the deal just before at the table left chips in the pot (antes of a
        passed-out deal, or forfeited money), every player seated on both deals must
        keep its seat. One finding per deal, on the first line of the first player
        who moved, listing every move.

    Why it matters:
        A player who moves while the pot is carried picks a better position for the
        same pot (or dodges the button's turn to ante last); the rule keeps the order
        of the unopened pot fixed.

    Example:
        Deal 1 is passed out with P-2 in seat 2; deal 2 has P-2 in seat 6: J505.

    Source:
        R-DH 10: "You may not change your seat between hands when there are multiple
        antes or forfeited money in the pot."
    """

    code = "J505"
    name = "seat-change-with-antes-carried"
    severity = Severity.MINOR
    source = "R-DH 10"
    summary = "A player changed seat between deals while antes or forfeited money were carried."

    def check(self, ctx: Run) -> Iterator[Result]:
        d, s = ctx.deals, ctx.seats
        before = previous_row(ctx)
        carried = (ctx.previous >= 0) & (d.carried_forward[before] != 0)
        # Seats of those deals whose player sat elsewhere in the deal before: each is
        # compared with every seat of that deal (at most ten, one column at a time).
        rows = np.flatnonzero(carried[s.deal])
        earlier = before[s.deal[rows]]
        first, count = d.seat_start[earlier], d.seat_count[earlier]
        player, seat = s.player[rows], s.seat[rows]
        moved = np.zeros(len(rows), dtype=np.bool_)
        for k in range(int(count.max()) if len(rows) else 0):
            there = np.where(k < count, first + k, 0)
            moved |= (k < count) & (s.player[there] == player) & (s.seat[there] != seat)
        for row in np.unique(s.deal[rows[moved]]).tolist():
            yield from self._deal(ctx, row)

    @staticmethod
    def _deal(ctx: Run, row: int) -> Iterator[Result]:
        prev_row = int(ctx.previous[row])
        deal, prev = ctx.deal(row), ctx.deal(prev_row)
        old = {s.player: s.seat for s in ctx.seats_of(prev_row)}
        seats = ctx.seats_of(row)
        moves = [(s, old[s.player]) for s in seats if s.player in old and old[s.player] != s.seat]
        if not moves:
            return
        player = ctx.labels.player_id
        named = [(player(row, s.seat), was, s.seat) for s, was in moves]
        listed = ", ".join(f"{p} from seat {a} to seat {b}" for p, a, b in named)
        previous = ctx.labels.hand_id(prev_row)
        line, index = seat_anchor(ctx, deal, moves[0][0])
        yield ctx.finding(
            row, f"{listed} while {money(prev.carried_forward)} was carried from deal {previous}",
            line=line, index=index, seat=moves[0][0].seat,
            evidence={"moves": [{"player": p, "from": a, "to": b} for p, a, b in named],
                      "carried_cents": prev.carried_forward, "previous": previous},
        )
