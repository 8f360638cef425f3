"""J506 ineligible-player-dealt-in."""

from __future__ import annotations

from collections.abc import Iterator

from audit.replay import Replay
from audit.rule import Result, SequenceContext, SequenceRule, money
from audit.rules._sequence import anchor, carried_forward, dealt_in
from schemas.findings import Severity
from schemas.records import Verb

_DECLARING = (Verb.OPENS, Verb.DECLARES_OPENERS)


def _declared_all_in(replay: Replay, seat: int) -> bool:
    """The seat opened (or declared openers) all-in: R-JB 5 bars only that opener.

    A false opener that went all-in later, calling after the draw, opened with chips
    behind it and may play on like any other player.
    """
    return any(
        step.action.seat == seat and (step.action.all_in or step.all_in)
        for step in replay.steps
        if step.action.verb in _DECLARING
    )


class IneligiblePlayerDealtIn(SequenceRule):
    """Flags a player dealt into a carried pot it has no right to play.

    What it does:
        Two cases, judged against the deal just before at the table when that deal
        left chips in the pot. A player who falsely opened there while all-in (for
        the ante) is barred until the pot is won: dealing it in now is flagged. And
        a player who was not dealt into that deal (a newcomer, or one who sat it out)
        may not join while its money is carried. One finding per deal, on the first
        line of the first ineligible seat, listing them all. Only the deal just
        before is seen, so a bar is followed one deal forward.

    Why it matters:
        The carried pot belongs to the players of the deal it came from; an outsider
        who buys in for one ante takes a share of money it never risked, and an
        all-in false opener who comes back gets a free second try at a pot it
        forfeited.

    Example:
        Deal 1 is passed out with seats 1-3 dealt in; deal 2 deals in a new player in
        seat 5 while the 3 chips are carried: J506.

    Source:
        R-JB 5 ("If you are all in and falsely declare the pot open, you ... may not
        continue to play on any subsequent deals until a winner is determined"),
        R-DH 11 ("unless there is any additional money in the pot that has been
        forfeited during a hand in which you were not involved").
    """

    code = "J506"
    name = "ineligible-player-dealt-in"
    severity = Severity.MAJOR
    source = "R-JB 5, R-DH 11"
    summary = "A barred all-in false opener, or a player not in the carried pot, was dealt in."

    def check(self, ctx: SequenceContext) -> Iterator[Result]:
        before, deal, replay = ctx.previous, ctx.current, ctx.previous_replay
        if before is None or replay is None:
            return  # a table's first deal: who was in the carried pot is not in the input
        carried = carried_forward(before)
        if not carried:
            return
        earlier = replay.seats
        barred = {s.player_id for n, s in earlier.items()
                  if s.false_opener and _declared_all_in(replay, n)}
        involved = {earlier[n].player_id for n in dealt_in(before) if n in earlier}
        offenders: list[tuple[int, str, str]] = []
        for seat in deal.seats:
            if seat.seat not in dealt_in(deal):
                continue
            if seat.player_id in barred:
                offenders.append((seat.seat, seat.player_id, "falsely opened all-in"))
            elif seat.player_id not in involved:
                offenders.append((seat.seat, seat.player_id, "was not in that deal"))
        if not offenders:
            return
        first = offenders[0][0]
        listed = ", ".join(f"seat {n} ({p}, {why})" for n, p, why in offenders)
        action, line = anchor(deal, first)
        yield ctx.finding(
            f"dealt in while {money(carried)} from deal {before.hand_id} was carried: {listed}",
            action=action,
            seat=first,
            line=line,
            evidence={"seats": [n for n, _, _ in offenders],
                      "players": [p for _, p, _ in offenders],
                      "reasons": [why for _, _, why in offenders],
                      "carried": carried, "previous": before.hand_id},
        )
