"""J505 seat-change-with-antes-carried."""

from __future__ import annotations

from collections.abc import Iterator

from audit.rule import Result, SequenceContext, SequenceRule, money
from audit.rules._sequence import anchor, carried_forward, seat_of_player
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

    def check(self, ctx: SequenceContext) -> Iterator[Result]:
        before, deal = ctx.previous, ctx.current
        if before is None:
            return  # a table's first deal: no earlier seating to compare with
        carried = carried_forward(before)
        if not carried:
            return
        old = seat_of_player(before)
        moves = [(player, old[player], seat) for player, seat in seat_of_player(deal).items()
                 if player in old and old[player] != seat]
        if not moves:
            return
        seat = moves[0][2]
        listed = ", ".join(f"{p} from seat {a} to seat {b}" for p, a, b in moves)
        action, line = anchor(deal, seat)
        yield ctx.finding(
            f"{listed} while {money(carried)} was carried from deal {before.hand_id}",
            action=action,
            seat=seat,
            line=line,
            evidence={"moves": [{"player": p, "from": a, "to": b} for p, a, b in moves],
                      "carried_cents": carried, "previous": before.hand_id},
        )
