"""J508 unproven-opener-not-penalised."""

from __future__ import annotations

from collections.abc import Iterator

from audit.replay import Replay
from audit.rule import Result, SequenceContext, SequenceRule, money
from schemas.findings import Severity
from schemas.records import Action, HandRecord, Section, Verb

#: Where a false opener is found "at the showdown" rather than before the draw (O205's).
_AFTER_THE_DRAW = frozenset({Section.DRAW, Section.AFTER_DRAW, Section.SHOWDOWN, Section.RESULT})


def found_unproven(record: HandRecord, replay: Replay) -> Action | None:
    """The floor's false-openers ruling on the deal's opener once the draw had begun."""
    opener = replay.original_opener
    return next((a for a in record.actions
                 if a.verb is Verb.FALSE_OPENERS and a.seat == opener
                 and a.section in _AFTER_THE_DRAW), None)


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

    def check(self, ctx: SequenceContext) -> Iterator[Result]:
        profile = ctx.profile
        if profile.unproven_opener_penalty_antes:
            yield from self._penalty(ctx)
        if profile.unproven_opener_rejackpot:
            yield from self._next_jackpot(ctx)

    @staticmethod
    def _penalty(ctx: SequenceContext) -> Iterator[Result]:
        """The double ante, paid in the deal where the floor found the opener out."""
        deal, replay = ctx.current, ctx.current_replay
        found = found_unproven(deal, replay)
        seat = replay.seat(replay.original_opener)
        if found is None or seat is None:
            return
        due = ctx.profile.unproven_opener_penalty_antes * deal.ante
        if seat.penalties >= due:
            return
        opened = replay.opens_index
        yield ctx.finding(
            f"seat {seat.seat} ({seat.player_id}) was found without openers after the draw "
            f"and paid {money(seat.penalties)} of the {money(due)} penalty",
            action=found, seat=seat.seat,
            lines=[deal.actions[opened].line if opened is not None else None],
            evidence={"opener": seat.seat, "player": seat.player_id,
                      "penalty_due_cents": due, "penalty_paid_cents": seat.penalties},
        )

    @staticmethod
    def _next_jackpot(ctx: SequenceContext) -> Iterator[Result]:
        """The deal after it: the next jack-pot of the carried pot."""
        before, deal, replay = ctx.previous, ctx.current, ctx.previous_replay
        if before is None or replay is None:
            return  # a table's first deal: the deal before is not in the input
        found = found_unproven(before, replay)
        seat = replay.seat(replay.original_opener)
        if found is None or seat is None:
            return
        if before.carried_out is not None and deal.jackpot == before.jackpot + 1:
            return
        yield ctx.finding(
            f"seat {seat.seat} ({seat.player_id}) was found without openers after the draw "
            f"on {before.hand_id}, but this deal is Jackpot {deal.jackpot}, not the next "
            f"jack-pot ({before.jackpot + 1}) of a carried pot",
            line=deal.first_line or None,
            evidence={"previous": before.hand_id, "opener": seat.seat,
                      "player": seat.player_id, "ruling_line": found.line,
                      "jackpot": deal.jackpot, "expected_jackpot": before.jackpot + 1,
                      "carried_out_cents": before.carried_out},
        )
