"""J508 unproven-opener-not-penalised."""

from __future__ import annotations

from collections.abc import Iterator

from audit.rule import Result, SequenceContext, SequenceRule, money
from schemas.findings import Severity
from schemas.records import Action, HandRecord, Section, Verb

#: Where a false opener is found "at the showdown" rather than before the draw (O205's).
_AFTER_THE_DRAW = frozenset({Section.DRAW, Section.AFTER_DRAW, Section.SHOWDOWN, Section.RESULT})


class UnprovenOpenerNotPenalised(SequenceRule):
    """Flags an opener found without openers after the draw who was not dealt with as L-33 says.

    What it does:
        Where the house follows L-33 (laws): when the floor found the opener of the
        deal just before without openers once the draw had begun (``Floor: Seat N
        false openers`` in the draw, after it or at the showdown), that seat must
        have paid ``Floor: Seat N penalty`` of twice the ante, and the pot must have
        been carried so that this deal is the next jack-pot (``Jackpot`` one more)
        "as if the previous game had not been opened". One finding per deal, on its
        first line. A false opener nobody caught is O201's finding (and an unproven
        one paid is O202's), not this rule's: J508 judges what the house did once
        it knew; a false opener found before the draw is settled by the O rules.

    Why it matters:
        The double-ante penalty is what makes opening without openers costly; without
        it, and without the pot carrying on, a false opener risks nothing.

    Example:
        A laws house; seat 1 opens with ``[Th Ts 4c 8d 2s]`` on a jacks deal, shows
        it at the showdown, ``Floor: Seat 1 false openers``; the pot goes to seat 2
        and the next deal is ``Jackpot: 1``, with no penalty paid: J508.

    Source:
        L-33 ("he shall not claim the pool, and he shall pay into the pool, as
        penalty, a sum equal to double the ante, and the next game shall be a
        Jack-pot as if the previous game had not been opened").
    """

    code = "J508"
    name = "unproven-opener-not-penalised"
    severity = Severity.MAJOR
    source = "L-33"
    summary = "An opener found without openers at the showdown was not penalised as L-33 says."

    def check(self, ctx: SequenceContext) -> Iterator[Result]:
        profile = ctx.profile
        penalty_antes = profile.unproven_opener_penalty_antes
        if not penalty_antes and not profile.unproven_opener_rejackpot:
            return
        before, deal, replay = ctx.previous, ctx.current, ctx.previous_replay
        if before is None or replay is None:
            return  # a table's first deal: the deal to judge is not in the input
        found = self._found_at_showdown(before, replay.original_opener)
        seat = replay.seat(replay.original_opener)
        if found is None or seat is None:
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
            f"seat {seat.seat} ({seat.player_id}) was found without openers after the draw "
            f"on {before.hand_id}, and " + " and ".join(faults),
            line=deal.first_line or None,
            evidence={"previous": before.hand_id, "opener": seat.seat,
                      "player": seat.player_id, "ruling_line": found.line,
                      "penalty_due": due, "penalty_paid": seat.penalties,
                      "carried_on": carried_on},
        )

    @staticmethod
    def _found_at_showdown(record: HandRecord, opener: int | None) -> Action | None:
        """The floor's false-openers ruling on the opener once the draw had begun, if any."""
        return next((a for a in record.actions
                     if a.verb is Verb.FALSE_OPENERS and a.seat == opener
                     and a.section in _AFTER_THE_DRAW), None)
