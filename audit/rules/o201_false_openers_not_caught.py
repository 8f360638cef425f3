"""O201 false-openers-not-caught."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from audit.facts.context import Batch, Result
from audit.facts.tables import Known
from audit.facts.view import HandView, hand_view
from audit.rule import Rule
from audit.rules._openers import (
    YES,
    after_before_draw,
    dealt_text,
    opening_lines,
    opening_rows,
    required,
    ruled_false_after,
    ruled_false_later,
)
from schemas.findings import Severity
from schemas.records import Verb


class FalseOpenersNotCaught(Rule):
    """Flags a seat that opened (or declared) without openers and was never ruled.

    What it does:
        For the seat that opened the pot, and every seat that later ``declares
        openers``, reads the five cards it was dealt (rebuilt from kept cards and
        discards where the DEAL line has ``??``) and tests them against the deal's
        minimum (``Openers``, else the house progression; ace–joker is a pair of aces,
        jack–joker is not a pair of jacks; bobtails where the house allows them). A
        seat without openers and no later ``Floor: Seat N false openers`` is flagged
        on the line where play went on without the ruling: the draw, or, when the
        hand never reached it, the next line after the betting. A ruling at the
        showdown counts. Unknown cards make the hand unverifiable, unless the seat
        showed openers itself.

    Why it matters:
        A false opener who is not caught can win a pot the game never opened, and
        everyone who came in did so on a false premise.

    Example:
        ``Openers: JJ``, seat 2 dealt ``[Th Tc 9s 4d 2c]`` opens 10, seat 3 calls,
        both draw and seat 2 loses at the showdown with no ruling: O201 on the
        first draw line.

    Source:
        R-JB 1: "A pair of jacks or better is required to open the pot."
        H-23.1: "A player needs a pair of jacks or better to open."
        L-30: "In a Jack-pot every player shall pay into the pool a sum equal to the ante,
        and the game shall not be opened by any player unless he have two knaves, or better,
        in his original hand."
        Foster: "As there is no age or straddle in any form of jack pot, the player to the
        left of the dealer has the first say, and must examine his hand to see if he has
        Jacks or better; that is to say, either an actual pair of Jacks, or some hand that
        would beat a pair of Jacks if called upon to do so, such as two pairs, a straight,
        or triplets."
        Foster: "In some localities it is allowed to open jacks with a bobtail; that is, four
        cards of a flush or straight." (The ``bobtail`` knob, off by default.)
    """

    code = "O201"
    name = "false-openers-not-caught"
    severity = Severity.CRITICAL
    source = "R-JB 1, H-23.1, L-30, Foster"
    summary = "A seat opened without openers and the floor never ruled false openers."

    def check(self, ctx: Batch) -> Iterator[Result]:
        # An opening line can be flagged only where the seat's openers are not proven and
        # no false-openers ruling on it follows.
        rows, seats = opening_rows(ctx)
        at = ctx.seat_rows(ctx.actions.hand[rows], seats)
        held = np.where(at >= 0, ctx.seats.had_openers[np.maximum(at, 0)], YES)
        doubtful = (held != YES) & ~ruled_false_later(ctx, rows, seats)
        for hand in np.unique(ctx.actions.hand[rows[doubtful]]).tolist():
            yield from self._hand(ctx, hand_view(ctx, hand))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        lines = view.lines
        minimum = required(view).value
        for index, seat in opening_lines(view):
            if ruled_false_after(view, seat, index) is not None:
                continue
            opened = lines[index]
            how = "declared openers" if opened.verb is Verb.DECLARES_OPENERS else "opened"
            held = view.seats[seat].had_openers
            if held is Known.UNKNOWN:
                yield ctx.unverifiable(view.hand, f"seat {seat} {how} with unrecorded cards",
                                       seat=seat)
                continue
            if held is Known.YES:
                continue
            went_on = next((a for a in lines[index + 1:] if after_before_draw(a)), None)
            yield ctx.finding(
                view.hand,
                f"seat {seat} {how} without {minimum} (dealt {dealt_text(view, seat)}) "
                f"and no false-openers ruling followed",
                seat=seat,
                action=went_on.row if went_on is not None else None,
                line=None if went_on is not None else view.result_line,
                lines=[opened.line],
                evidence={"dealt": list(view.seats[seat].dealt_hand or ()), "openers": minimum,
                          "opened_line": opened.line},
            )
