"""J507 missing-ante-or-fattener."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from audit.facts.context import Result, money
from audit.facts.sequence import Run
from audit.rule import SequenceRule
from audit.rules._sequence import previous_row
from schemas.findings import Severity


class MissingAnteOrFattener(SequenceRule):
    """Flags a seat dealt in without its full ante (or, where the house fattens, its fattener).

    What it does:
        On a deal with ``Ante`` above 0, every seat dealt in must ante that much,
        unless it antes all it has (all-in). Where the house fattens (foster), the
        deal after a passed-out one is a fattened deal and each seat must put in at
        least the fattener (one counter), whatever the header says. Past the house's
        limit of anted deals no ante is due (antes there are J501's). The previous
        deal is needed only to know whether this deal is fattened: on a table's first
        deal the ante is judged, and where a fattener would change the verdict (a
        ``Jackpot`` above 1 in a fattening house) the deal is unverifiable. One
        finding per deal, on the first short ante line, or, when the seats short did
        not ante at all, on the first line after the antes (play went on without it),
        listing every seat.

    Why it matters:
        The ante is what a seat pays to receive a hand; a seat dealt in for less
        plays for the others' money, and a missing fattener leaves the jack-pot
        short for everyone.

    Example:
        ``Ante: 1`` with ``Seat 1: antes 1`` and ``Seat 3: antes 1`` but no line for
        seat 2, which is dealt ``[..]``: J507 on the first DEAL line.

    Source:
        R-JB 1: "If no player opens the pot, the button moves forward and each player
        must ante again, unless the limit of antes has been reached for that particular
        game."
        Foster: "When the original ante is two counters only, and no one holds Jacks or
        better on the first deal, each player must contribute another white counter to
        “fatten,” and the cards are dealt again."
    """

    code = "J507"
    name = "missing-ante-or-fattener"
    severity = Severity.MAJOR
    source = "R-JB 1, Foster"
    summary = "A seat dealt in did not ante in full (or fatten) without being all-in."

    def check(self, ctx: Run) -> Iterator[Result]:
        profile = ctx.profile
        limit, fattening = profile.ante_limit, profile.fattening
        d, s = ctx.deals, ctx.seats
        before = previous_row(ctx)
        judged = ctx.in_sequence.copy()
        if limit is not None:
            judged &= d.jackpot <= limit
        fattened = (fattening is not None) & (ctx.previous >= 0) & d.passed_out[before]
        due = np.where(fattened, np.maximum(d.ante, fattening or 0), d.ante)
        owing = np.maximum(d.ante, fattening or 0)
        # Per seat row: only a seat dealt in owes.
        seat_due = due[s.deal]
        short = s.dealt_in & (seat_due > 0) & (s.ante < np.minimum(seat_due, s.stack))
        if fattening is not None:
            seat_owing = owing[s.deal]
            short |= (s.dealt_in & (seat_owing > 0) & (s.ante < np.minimum(seat_owing, s.stack))
                      & (ctx.previous[s.deal] == -1) & (d.jackpot[s.deal] > 1))
        rows = np.unique(s.deal[short])
        for row in rows[judged[rows]].tolist():
            yield from self._deal(ctx, row, int(due[row]), bool(fattened[row]))

    @staticmethod
    def _deal(ctx: Run, row: int, due: int, fattened: bool) -> Iterator[Result]:
        deal = ctx.deal(row)
        fattening = ctx.profile.fattening
        seats = sorted((s for s in ctx.seats_of(row) if s.dealt_in), key=lambda s: s.seat)

        def short_of(amount: int) -> list[object]:
            if amount <= 0:
                return []
            return [s for s in seats if s.ante < min(amount, s.stack)]

        short = short_of(due)
        prev_row = int(ctx.previous[row])
        if not short:
            if prev_row < 0 and fattening is not None and deal.jackpot > 1:
                owing = short_of(max(deal.ante, fattening))
                if owing:
                    yield ctx.unverifiable(
                        row, f"deal {deal.jackpot} of the pot is the table's first in the input: "
                        f"whether seats {', '.join(str(s.seat) for s in owing)} owed the "  # type: ignore[attr-defined]
                        f"{money(fattening)} fattener needs the previous deal",
                        seat=owing[0].seat)  # type: ignore[attr-defined]
            return
        where = next((s for s in short if s.ante_index >= 0), None)  # type: ignore[attr-defined]
        what = "fattener" if fattened else "ante"
        listed = ", ".join(f"seat {s.seat} {money(s.ante)}" for s in short)  # type: ignore[attr-defined]
        if where is not None:
            line, index = where.ante_line, where.ante_index  # type: ignore[attr-defined]
        elif deal.after_antes_index >= 0:
            line, index = deal.after_antes_line, deal.after_antes_index
        else:
            line, index = deal.first_line or None, None
        yield ctx.finding(
            row, f"{what} of {money(due)} not paid in full: {listed}",
            line=line, index=index, seat=short[0].seat,  # type: ignore[attr-defined]
            evidence={"due_cents": due, "fattened": fattened,
                      "seats": [s.seat for s in short],  # type: ignore[attr-defined]
                      "paid_cents": {s.seat: s.ante for s in short},  # type: ignore[attr-defined]
                      "previous": ctx.labels.hand_id(prev_row) if prev_row >= 0 else None},
        )
