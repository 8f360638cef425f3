"""O202 unproven-opener-paid."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from audit.facts.context import Batch, Result, money
from audit.facts.tables import Known
from audit.facts.view import HandView, hand_view
from audit.rule import Rule
from audit.rules._openers import (
    YES,
    collections,
    opener_rows,
    openers_shown,
    required,
)
from schemas.findings import Severity


class UnprovenOpenerPaid(Rule):
    """Flags an opener that collected chips without ever showing its openers.

    What it does:
        Takes the opener at the end of the hand (the seat that opened, or the seat
        that declared openers after a false opener) and, if it collected chips,
        looks for its proof anywhere in the hand: a ``shows openers [..]`` whose
        cards are openers (and were dealt to it, where the deal is known), or a
        ``shows`` of the final hand whose kept cards plus discards are openers. No
        proof: flagged on its first ``collects`` line. A proof resting on ``??``
        cards makes the hand unverifiable. A misdeal's refunds are not a payment.
        Where the seat also split openers impossibly, O208 is reported instead.

    Why it matters:
        Showing openers is the price of the pot: an opener paid without it may have
        taken a pot that was never legally opened.

    Example:
        Everyone folds to seat 2's open; ``Seat 2: collects 3`` with no ``shows
        openers`` line: O202 on the collection.

    Source:
        R-JB 3: "Any player who has legally declared the pot opened must prove openers in
        order to win the pot."
        H-23.4: "The player who declares the pot open must show his opening cards before
        being able to win the pot."
        L-33: "If a player open a Jack-pot and win the stakes, he shall show his hand
        (notwithstanding any law which in ordinary circumstances permits him to keep it
        concealed) before he shall claim the pool; and if he have not two knaves, or the
        minimum hand with which the game may be opened according to the above laws, or a
        better hand, he shall not claim the pool, and he shall pay into the pool, as
        penalty, a sum equal to double the ante, and the next game shall be a Jack-pot as if
        the previous game had not been opened."
        (The laws' penalty is judged by J508.)
    """

    code = "O202"
    name = "unproven-opener-paid"
    severity = Severity.CRITICAL
    source = "R-JB 3, H-23.4, L-33"
    summary = "The opener collected chips without showing openers."

    def check(self, ctx: Batch) -> Iterator[Result]:
        opener = opener_rows(ctx, ctx.hands.opener)
        safe = np.maximum(opener, 0)
        doubtful = ((opener >= 0) & (ctx.seats.proof[safe] != YES)
                    & (ctx.seats.collected[safe] != 0) & ctx.judged)
        for hand in np.flatnonzero(doubtful).tolist():
            yield from self._hand(ctx, hand_view(ctx, hand))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        seat = view.row.opener
        paid = [(i, amount) for i, s, amount, _ in collections(view) if s == seat and amount > 0]
        if not paid:
            return
        shown = view.seats[seat].proof
        if shown is Known.YES:
            return
        minimum = required(view).value
        if shown is Known.UNKNOWN:
            yield ctx.unverifiable(view.hand, f"seat {seat}'s proof of openers has unrecorded "
                                   "cards", seat=seat)
            return
        first, _ = paid[0]
        total = sum(amount for _, amount in paid)
        yield ctx.finding(
            view.hand,
            f"opener seat {seat} collected {money(total)} without showing {minimum} or better",
            action=view.lines[first].row,
            lines=[view.lines[view.row.opens_index].line if view.row.opens_index >= 0
                   else None],
            evidence={"collected_cents": total, "openers": minimum,
                      "openers_shown": openers_shown(view, seat)},
        )
