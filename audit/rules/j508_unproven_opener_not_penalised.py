"""J508 unproven-opener-not-penalised."""

from __future__ import annotations

from collections.abc import Iterator

from audit.openers_test import is_openers
from audit.rule import Result, SequenceContext, SequenceRule, money
from schemas.findings import Severity
from schemas.records import Game, Section, Verb


class UnprovenOpenerNotPenalised(SequenceRule):
    """Flags an opener who claimed the pot without openers and was not dealt with as L-33 says.

    What it does:
        Where the house follows L-33 (laws): when the opener of the deal just before
        stayed in to the end (won uncontested or went to the showdown, or was found
        false there) and its five dealt cards were not openers for that deal, it must
        have paid ``Floor: Seat N penalty`` of twice the ante, and the pot must have
        been carried so that this deal is the next jack-pot (``Jackpot`` one more)
        "as if the previous game had not been opened". One finding per deal, on its
        first line. Unverifiable when the opener's dealt cards are unknown. An opener
        who folded, or was found false before the draw, is judged by the O rules.

    Why it matters:
        The double-ante penalty is what makes opening without openers costly; without
        it, and without the pot carrying on, a false opener risks nothing.

    Example:
        A laws house; seat 1 opens with ``[Th Ts 4c 8d 2s]`` on a jacks deal, wins
        at the showdown and the next deal is ``Jackpot: 1`` with no penalty paid:
        J508.

    Source:
        L-33 ("he shall not claim the pool, and he shall pay into the pool, as
        penalty, a sum equal to double the ante, and the next game shall be a
        Jack-pot as if the previous game had not been opened").
    """

    code = "J508"
    name = "unproven-opener-not-penalised"
    severity = Severity.MAJOR
    source = "L-33"
    summary = "An opener who claimed the pot without openers was not penalised as L-33 says."

    def check(self, ctx: SequenceContext) -> Iterator[Result]:
        profile = ctx.profile
        penalty_antes = profile.unproven_opener_penalty_antes
        if not penalty_antes and not profile.unproven_opener_rejackpot:
            return
        before, deal = ctx.previous, ctx.current
        if before.game is not Game.JACKS_OR_BETTER:
            return
        replay = ctx.previous_replay
        opener = replay.opener if replay.opener is not None else replay.original_opener
        seat = replay.seat(opener)
        if seat is None or seat.folded or seat.fouled:
            return
        if seat.false_opener and self._ruled_before_draw(ctx, seat.seat):
            return
        dealt = replay.dealt_hand(seat.seat)
        required = before.openers or profile.openers_for(before.jackpot, before.game)
        if dealt is None:
            yield ctx.unverifiable(
                f"the opener's (seat {seat.seat}) dealt cards on {before.hand_id} are unknown",
                seat=seat.seat)
            return
        if is_openers(dealt, required, bobtail=profile.bobtail):
            return
        due = penalty_antes * before.ante
        faults = []
        if seat.penalties < due:
            faults.append(f"paid {money(seat.penalties)} of the {money(due)} penalty")
        carried_on = before.carried_out is not None and deal.jackpot == before.jackpot + 1
        if profile.unproven_opener_rejackpot and not carried_on:
            faults.append(f"this deal is Jackpot {deal.jackpot}, not the next jack-pot "
                          f"({before.jackpot + 1}) of a carried pot")
        if not faults:
            return
        yield ctx.finding(
            f"seat {seat.seat} ({seat.player_id}) opened {before.hand_id} with "
            f"[{' '.join(dealt)}], no openers for {required.value}, and " + " and ".join(faults),
            line=deal.first_line or None,
            evidence={"previous": before.hand_id, "opener": seat.seat,
                      "player": seat.player_id, "dealt": list(dealt),
                      "required": required.value, "penalty_due": due,
                      "penalty_paid": seat.penalties, "carried_on": carried_on},
        )

    @staticmethod
    def _ruled_before_draw(ctx: SequenceContext, seat: int) -> bool:
        """The floor found the false opener before the draw (the O rules' question)."""
        return any(a.verb is Verb.FALSE_OPENERS and a.seat == seat
                   and a.section in (Section.ANTES, Section.DEAL, Section.BEFORE_DRAW)
                   for a in ctx.previous.actions)
