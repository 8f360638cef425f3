"""J502 button-wrong-after-passed-out."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from audit.facts.context import Result
from audit.facts.sequence import Run
from audit.profiles import PassedOutButton
from audit.rule import SequenceRule
from audit.rules._sequence import previous_row
from schemas.findings import Severity


class ButtonWrongAfterPassedOut(SequenceRule):
    """Flags a button that did the opposite of the house's rule after a passed-out deal.

    What it does:
        Compares the ``Button`` of a deal with the one of the passed-out deal just
        before it at the table. Where the house moves the button (robert, house23,
        laws) it must not stay on the same seat; where the same dealer deals again
        until the pot opens ("dealing off the jack", foster) it must not move, unless
        its seat was vacated. A misdeal's redeal is the same deal and is not judged.
        One finding per deal, on its first line (the header holds the fault).

    Why it matters:
        The button fixes who acts first and last on every deal; keeping it when it
        should move gives one seat the best position twice in a row.

    Example:
        Deal 1 at button 3 is passed out; deal 2 (``Jackpot: 2``) has ``Button: 3``
        again in a robert house: J502.

    Source:
        R-JB 1: "If no player opens the pot, the button moves forward and each player
        must ante again, unless the limit of antes has been reached for that particular
        game."
        H-23.1: "In the event that no player opens, the button progresses one player and all
        players ante once more."
        Foster: "The best practice is for the same dealer to deal again until some one gets
        Jacks or better. This is called dealing off the jack."
        Not an exception: "unless" (it stops the antes past the limit, J501's question; the
        button moves either way).
    """

    code = "J502"
    name = "button-wrong-after-passed-out"
    severity = Severity.MINOR
    source = "R-JB 1, H-23.1, Foster"
    summary = "After a passed-out deal the button did not move, or moved where it should stay."

    def check(self, ctx: Run) -> Iterator[Result]:
        d, before = ctx.deals, previous_row(ctx)
        after = (ctx.previous >= 0) & d.passed_out[before]
        moves = ctx.profile.passed_out_button is PassedOutButton.MOVES
        if moves:
            flagged = after & (d.button == d.button[before])
        else:
            seated = ((d.seat_mask >> d.button[before].astype(np.int64)) & 1) != 0
            flagged = after & (d.button != d.button[before]) & seated
        for row in np.flatnonzero(flagged).tolist():
            deal, prev = ctx.deal(row), ctx.deal(int(ctx.previous[row]))
            previous = ctx.labels.hand_id(int(ctx.previous[row]))
            if moves:
                message = (f"the button stayed on seat {deal.button} after passed-out deal "
                           f"{previous}; the house moves it")
            else:
                message = (f"the button moved from seat {prev.button} to seat {deal.button} "
                           f"after passed-out deal {previous}; the house deals off the jack")
            yield ctx.finding(
                row, message, seat=deal.button, line=deal.first_line or None,
                evidence={"button": deal.button, "previous_button": prev.button,
                          "previous": previous,
                          "house": ctx.profile.passed_out_button.value},
            )
