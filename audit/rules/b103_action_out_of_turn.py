"""B103 action-out-of-turn."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from audit.facts.context import Batch, Result, verb_name
from audit.rule import Rule
from schemas.findings import Severity


class ActionOutOfTurn(Rule):
    """Flags a betting action taken when it was another seat's turn.

    What it does:
        Follows the format spec's "Order of play": before the draw the first seat
        left of the button acts first, after it the opener (or the next seat that
        can still bet); the turn goes clockwise among the seats still to act. A
        check, open, bet, call, raise or fold by a seat in the hand while the turn
        is another seat's is flagged. The action stands (it is binding) and the turn
        stays with the seat it skipped; a seat that acted out of turn is passed over
        unless the bet changed since, so one slip is reported once.

    Why it matters:
        Acting out of turn gives the seats still to act information they should
        not have, and can be used to signal a partner.

    Example:
        Button 4, seats 1-4: ``Seat 2: checks`` before seat 1 has acted: B103 on
        that line; seat 1 acting next is in turn.

    Source:
        R-DH intro: "Players in turn may check, open for the minimum, or open with a raise."
    """

    code = "B103"
    name = "action-out-of-turn"
    severity = Severity.MINOR
    source = "R-DH intro"
    summary = "A seat acts when it is not its turn."

    def check(self, ctx: Batch) -> Iterator[Result]:
        a = ctx.actions
        flagged = a.betting & ~a.in_turn & (a.turn != 0) & a.in_hand & ~a.all_in
        for r in np.flatnonzero(flagged).tolist():
            row = ctx.action(r)
            verb = verb_name(row.verb)
            yield ctx.finding(
                row.hand, f"seat {row.seat} {verb} while it was seat {row.turn}'s turn",
                action=r, evidence={"turn": row.turn, "verb": verb},
            )
