"""J507 missing-ante-or-fattener."""

from __future__ import annotations

from collections.abc import Iterator

from audit.rule import Result, SequenceContext, SequenceRule, money
from audit.rules._sequence import dealt_in, first_line_after_antes, passed_out
from schemas.findings import Severity
from schemas.records import Verb


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

    def check(self, ctx: SequenceContext) -> Iterator[Result]:
        deal = ctx.current
        limit = ctx.profile.ante_limit
        if limit is not None and deal.jackpot > limit:
            return  # past the house's limit of antes none is due (antes there are J501's)
        fattening = ctx.profile.fattening
        before = ctx.previous
        fattened = fattening is not None and before is not None and passed_out(before)
        due = max(deal.ante, fattening or 0) if fattened else deal.ante
        short = _short(ctx, due)
        if not short:
            # A first deal with Jackpot above 1 may follow a passed-out deal the input
            # lacks: its fattener is unknown, said only where it would change the verdict.
            if (before is None and fattening is not None and deal.jackpot > 1
                    and (owing := _short(ctx, max(deal.ante, fattening)))):
                yield ctx.unverifiable(
                    f"deal {deal.jackpot} of the pot is the table's first in the input: "
                    f"whether seats {', '.join(map(str, owing))} owed the {money(fattening)} "
                    "fattener needs the previous deal", seat=owing[0])
            return
        replay = ctx.current_replay
        lines = {a.seat: a for a in deal.actions if a.verb is Verb.ANTES}
        # A short ante line is the fault itself; a missing one shows when play goes on.
        where = next((lines[n] for n in short if n in lines), None) or first_line_after_antes(deal)
        what = "fattener" if fattened else "ante"
        listed = ", ".join(f"seat {n} {money(replay.seats[n].ante)}" for n in short)
        yield ctx.finding(
            f"{what} of {money(due)} not paid in full: {listed}",
            action=where,
            seat=short[0],
            line=None if where is not None else deal.first_line or None,
            evidence={"due_cents": due, "fattened": fattened, "seats": short,
                      "paid_cents": {n: replay.seats[n].ante for n in short},
                      "previous": before.hand_id if before else None},
        )


def _short(ctx: SequenceContext, due: int) -> list[int]:
    """Seats dealt in that anted less than ``due`` without anteing all they had."""
    if due <= 0:
        return []
    deal, replay = ctx.current, ctx.current_replay
    stacks = {s.seat: s.stack for s in deal.seats}
    # A seat with fewer chips than the ante owes all it has; all-in for less is legal.
    return [n for n in sorted(dealt_in(deal))
            if n in replay.seats and replay.seats[n].ante < min(due, stacks.get(n, 0))]
