"""B103 action-out-of-turn."""

from __future__ import annotations

from collections.abc import Iterator

from audit.rule import HandContext, Result, Rule
from audit.rules._betting import betting_steps
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

    def check(self, ctx: HandContext) -> Iterator[Result]:
        for step in betting_steps(ctx.replay):
            if step.in_turn or step.turn is None or not step.in_hand or step.all_in:
                continue
            a = step.action
            yield ctx.finding(
                f"seat {a.seat} {a.verb.value} while it was seat {step.turn}'s turn",
                action=a, evidence={"turn": step.turn, "verb": a.verb.value},
            )
