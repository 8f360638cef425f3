"""J506 ineligible-player-dealt-in."""

from __future__ import annotations

from collections.abc import Iterator

from audit.replay import Replay
from audit.rule import Result, SequenceContext, SequenceRule, money
from audit.rules._sequence import anchor, carried_forward, dealt_in, forfeited
from schemas.findings import Severity
from schemas.records import Verb

_DECLARING = (Verb.OPENS, Verb.DECLARES_OPENERS)


def _declared_all_in(replay: Replay, seat: int) -> int | None:
    """The line where the seat opened (or declared openers) all-in, if it did.

    R-JB 5 bars only that opener: a false opener that went all-in later, calling
    after the draw, opened with chips behind it and may play on like any other player.
    """
    return next((step.action.line for step in replay.steps
                 if step.action.verb in _DECLARING and step.action.seat == seat
                 and (step.action.all_in or step.all_in)), None)


class IneligiblePlayerDealtIn(SequenceRule):
    """Flags a player dealt into a carried pot it has no right to play.

    What it does:
        Two cases, judged against the deal just before at the table when that deal
        left chips in the pot. A player who falsely opened there while all-in (for
        the ante) is barred until the pot is won: dealing it in now is flagged. And
        while that deal left forfeited money in the pot (a false opener's chips, a
        penalty, the bets of a hand ruled dead), a player who was not dealt into it
        (a newcomer, or one who sat it out) may not join. A carried pot of antes alone
        bars nobody: a newcomer may pay the ante and be dealt in. One finding per
        deal, on the first line of the first ineligible seat, listing them all. Only
        the deal just before is seen: forfeited money carried in from an earlier deal,
        and a bar older than one deal, are not followed.

    Why it matters:
        Forfeited money belongs to the players of the hand it was lost in; an outsider
        who buys in for one ante takes a share of money it never risked, and an
        all-in false opener who comes back gets a free second try at a pot it
        forfeited.

    Example:
        Deal 1: seat 1 opens without openers, the floor rules it false, the pot is
        killed and carried with its opening bet; deal 2 deals in a new player in seat
        5: J506. Had deal 1 simply passed out (antes only), seat 5 would be clean.

    Source:
        R-JB 5: "If you are all in and falsely declare the pot open, you will lose the
        ante money and may not continue to play on any subsequent deals until a winner
        is determined."
        R-DH 11: "You have the right to pay the ante (whether single or multiple) at any
        time and receive a hand, unless there is any additional money in the pot that
        has been forfeited during a hand in which you were not involved."
    """

    code = "J506"
    name = "ineligible-player-dealt-in"
    severity = Severity.MAJOR
    source = "R-JB 5, R-DH 11"
    summary = "A barred all-in false opener, or a newcomer to forfeited money, was dealt in."

    def check(self, ctx: SequenceContext) -> Iterator[Result]:
        before, deal, replay = ctx.previous, ctx.current, ctx.previous_replay
        if before is None or replay is None:
            return  # a table's first deal: who was in the carried pot is not in the input
        carried = carried_forward(before)
        if not carried:
            return
        lost = forfeited(before, replay)
        earlier = replay.seats
        barred = {s.player_id: line for n, s in earlier.items()
                  if s.false_opener and (line := _declared_all_in(replay, n)) is not None}
        involved = {earlier[n].player_id for n in dealt_in(before) if n in earlier}
        offenders: list[tuple[int, str, str]] = []
        for seat in deal.seats:
            if seat.seat not in dealt_in(deal):
                continue
            if seat.player_id in barred:
                offenders.append((seat.seat, seat.player_id, "falsely opened all-in"))
            elif lost and seat.player_id not in involved:
                offenders.append((seat.seat, seat.player_id, "was not in that deal"))
        if not offenders:
            return
        first = offenders[0][0]
        listed = ", ".join(f"seat {n} ({p}, {why})" for n, p, why in offenders)
        action, line = anchor(deal, first)
        own = [a.line for n, _, _ in offenders if (a := anchor(deal, n)[0]) is not None]
        yield ctx.finding(
            f"dealt in while {money(carried)} from deal {before.hand_id} was carried"
            + (f" ({money(lost)} of it forfeited)" if lost else "") + f": {listed}",
            action=action,
            seat=first,
            line=line,
            lines=own,
            evidence={"seats": [n for n, _, _ in offenders],
                      "players": [p for _, p, _ in offenders],
                      "reasons": [why for _, _, why in offenders],
                      "carried_cents": carried, "forfeited_cents": lost,
                      "previous": before.hand_id,
                      "false_open_lines": sorted({barred[p] for _, p, _ in offenders
                                                  if p in barred})},
        )
