"""J508 unproven-opener-not-penalised."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from audit.facts.context import Result, money
from audit.facts.sequence import Run
from audit.rule import SequenceRule
from audit.rules._sequence import previous_row
from schemas.findings import Severity


class UnprovenOpenerNotPenalised(SequenceRule):
    """Flags an opener found without openers after the draw who was not dealt with as L-33 says.

    What it does:
        Where the house follows L-33 (laws): when the floor finds a deal's opener
        without openers once the draw has begun (``Floor: Seat N false openers`` in
        the draw, after it or at the showdown), that seat must pay ``Floor: Seat N
        penalty`` of twice the ante in that deal: a missing or short penalty is
        flagged on that deal, on the line of the floor's ruling, whether or not a
        next deal follows (the last deal of a night or of a file too). And the pot
        must be carried so that the next deal of the table is the next jack-pot
        (``Jackpot`` one more) "as if the previous game had not been opened": a next
        deal that is not is flagged on that next deal, on its first line. Both
        faults: two findings, one on each deal. A false opener nobody caught is
        O201's finding (and an unproven one paid is O202's), not this rule's: J508
        judges what the house did once it knew; a false opener found before the draw
        is settled by the O rules.

    Why it matters:
        The double-ante penalty is what makes opening without openers costly; without
        it, and without the pot carrying on, a false opener risks nothing.

    Example:
        A laws house; seat 1 opens with ``[Th Ts 4c 8d 2s]`` on a jacks deal, shows
        it at the showdown, ``Floor: Seat 1 false openers``, and the pot is carried
        with no penalty paid: J508 on that deal, at the ruling. Had the penalty been
        paid but the pot pushed to seat 2, the next deal (``Jackpot: 1``) gets J508.

    Source:
        L-33: "If a player open a Jack-pot and win the stakes, he shall show his hand
        (notwithstanding any law which in ordinary circumstances permits him to keep it
        concealed) before he shall claim the pool; and if he have not two knaves, or
        the minimum hand with which the game may be opened according to the above
        laws, or a better hand, he shall not claim the pool, and he shall pay into the
        pool, as penalty, a sum equal to double the ante, and the next game shall be a
        Jack-pot as if the previous game had not been opened."
    """

    code = "J508"
    name = "unproven-opener-not-penalised"
    severity = Severity.MAJOR
    source = "L-33"
    summary = "An opener found without openers at the showdown was not penalised as L-33 says."

    def check(self, ctx: Run) -> Iterator[Result]:
        profile = ctx.profile
        d = ctx.deals
        found = ctx.in_sequence & (d.found_unproven_index >= 0)
        if profile.unproven_opener_penalty_antes:
            for row in np.flatnonzero(found).tolist():
                yield from self._penalty(ctx, row)
        if profile.unproven_opener_rejackpot:
            before = previous_row(ctx)
            after = (ctx.previous >= 0) & found[before]
            carried_on = (d.carried_out[before] >= 0) & (d.jackpot == d.jackpot[before] + 1)
            for row in np.flatnonzero(after & ~carried_on).tolist():
                yield from self._next_jackpot(ctx, row)

    @staticmethod
    def _opener(ctx: Run, row: int) -> object | None:
        deal = ctx.deal(row)
        return next((s for s in ctx.seats_of(row) if s.seat == deal.original_opener), None)

    @classmethod
    def _penalty(cls, ctx: Run, row: int) -> Iterator[Result]:
        """The double ante, paid in the deal where the floor found the opener out."""
        deal = ctx.deal(row)
        seat = cls._opener(ctx, row)
        if seat is None:
            return
        due = ctx.profile.unproven_opener_penalty_antes * deal.ante
        paid = seat.penalties  # type: ignore[attr-defined]
        if paid >= due:
            return
        n = seat.seat  # type: ignore[attr-defined]
        player = ctx.labels.player_id(row, n)
        yield ctx.finding(
            row, f"seat {n} ({player}) was found without openers after the draw and paid "
            f"{money(paid)} of the {money(due)} penalty",
            line=deal.found_unproven_line, index=deal.found_unproven_index, seat=n,
            lines=[deal.opens_line if deal.opens_line >= 0 else None],
            evidence={"opener": n, "player": player, "penalty_due_cents": due,
                      "penalty_paid_cents": paid},
        )

    @classmethod
    def _next_jackpot(cls, ctx: Run, row: int) -> Iterator[Result]:
        """The deal after it: the next jack-pot of the carried pot."""
        prev_row = int(ctx.previous[row])
        deal, prev = ctx.deal(row), ctx.deal(prev_row)
        seat = cls._opener(ctx, prev_row)
        if seat is None:
            return
        n = seat.seat  # type: ignore[attr-defined]
        player = ctx.labels.player_id(prev_row, n)
        previous = ctx.labels.hand_id(prev_row)
        yield ctx.finding(
            row, f"seat {n} ({player}) was found without openers after the draw on {previous}, "
            f"but this deal is Jackpot {deal.jackpot}, not the next jack-pot "
            f"({prev.jackpot + 1}) of a carried pot",
            line=deal.first_line or None,
            evidence={"previous": previous, "opener": n, "player": player,
                      "ruling_line": prev.found_unproven_line, "jackpot": deal.jackpot,
                      "expected_jackpot": prev.jackpot + 1,
                      "carried_out_cents": prev.carried_out if prev.carried_out >= 0 else None},
        )
