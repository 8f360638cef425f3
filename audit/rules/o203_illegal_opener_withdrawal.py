"""O203 illegal-opener-withdrawal."""

from __future__ import annotations

from collections.abc import Iterator

from audit.facts.context import Batch, Result, money
from audit.facts.view import HandView, hand_view
from audit.house import FalseOpenerStyle
from audit.rule import Rule
from audit.rules._openers import (
    WAGERS,
    before_draw_complete,
    declarations,
    false_openers,
    hands_of,
)
from schemas.findings import Severity
from schemas.records import Actor, Verb


class IllegalOpenerWithdrawal(Rule):
    """Flags an opener taking back its opening bet, or any bet once the action closed.

    What it does:
        Follows the opener's bets (the seat that opened, and a seat that declared
        openers after a false opener) and judges each ``withdraws`` line of it:
        taking back chips of the opening bet (the chips of its ``opens`` line) is
        flagged at any time; taking back any bet is flagged once the action before
        the draw is complete (every seat still in has acted and matched, or the
        draw began). Where the house makes a false opener forfeit every chip
        (Foster), any withdrawal by a seat ruled false openers is flagged.

    Why it matters:
        The opening bet is what a false opener owes the pot; money taken back after
        the action closed changes a pot the others have already played for.

    Example:
        Seat 1 opens 10, seat 2 raises to 20, seat 1 calls, seat 3 calls, then
        ``Seat 1: withdraws 10`` before the draw: O203 (the action was complete).

    Source:
        R-JB 2: "The false opener has a dead hand and the opening bet stays in the pot.
        Any other bet placed in the pot by the opener may be withdrawn, provided the action
        before the draw is not completed."
        R-JB 6: "Once action has been completed before the draw, the opener may not withdraw
        any bets, whether or not the hand contains openers."
        H-23.2: "The opening bet from the dead hand remains in the pot, though later bets may
        be taken back if the round of action prior to the draw has not already ended."
        H-23.6: "The opening player may not withdraw any bets if action prior to the draw has
        been completed, regardless of whether or not there are any openers in the hand."
        Foster: "Should a player open a jack without the hand to justify it, and discover his
        error before he draws, the best usage demands that his hand is foul, and that he
        forfeits to the pool whatever amount he may have opened for, and any raises that he
        may have stood."
        Not an exception: "whether" (the bar holds either way).
    """

    code = "O203"
    name = "illegal-opener-withdrawal"
    severity = Severity.MAJOR
    source = "R-JB 2, R-JB 6, H-23.2, H-23.6"
    summary = "The opener took back its opening bet, or a bet after the action closed."

    def check(self, ctx: Batch) -> Iterator[Result]:
        for hand in hands_of(ctx, ctx.rows(Verb.WITHDRAWS)).tolist():
            if ctx.hands.original_opener[hand]:
                yield from self._hand(ctx, hand_view(ctx, hand))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        opener = view.row.original_opener
        openers = {opener, *(s for _, s in declarations(view))}
        first_bet = view.lines[max(view.row.opens_index, 0)].chips
        forfeits = ctx.profile.false_opener is not FalseOpenerStyle.DEAD_HAND_REFUND
        false_seats = {s for _, s in false_openers(view)}
        complete = before_draw_complete(view)
        bets = dict.fromkeys(openers, 0)
        for a in view.lines:
            if a.seat not in openers or a.actor is not Actor.SEAT:
                continue
            if a.verb in WAGERS:
                bets[a.seat] += a.chips
            if a.verb is not Verb.WITHDRAWS:
                continue
            taken = -a.chips
            bets[a.seat] -= taken
            if forfeits and a.seat in false_seats:
                why = "a false opener forfeits every chip it put in"
            elif a.index >= complete:
                why = "the action before the draw was complete"
            elif a.seat == opener and bets[a.seat] < first_bet:
                why = f"its opening bet of {money(first_bet)} stays in the pot"
            else:
                continue
            yield ctx.finding(
                view.hand, f"opener seat {a.seat} withdrew {money(taken)}: {why}", action=a.row,
                evidence={"withdrawn_cents": taken, "opening_bet_cents": first_bet,
                          "bets_left_cents": bets[a.seat]},
            )
