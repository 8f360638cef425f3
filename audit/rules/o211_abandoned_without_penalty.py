"""O211 abandoned-without-penalty."""

from __future__ import annotations

from collections.abc import Iterator

from audit.facts.context import Batch, Result, money
from audit.facts.view import HandView, hand_view
from audit.rule import Rule
from audit.rules._openers import (
    hands_of,
)
from ingest.scan.layout import ACTOR_SEAT, V_FOLDS
from schemas.findings import Severity
from schemas.records import Actor, Verb


class AbandonedWithoutPenalty(Rule):
    """Flags a seat that threw its hand away before the pot was opened and paid nothing.

    What it does:
        Where the house charges a penalty for abandoning a hand before the pot is
        open (the ``abandon_penalty`` knob; Foster's five counters, 5.00 in the
        ``foster`` profile), each ``folds`` before the draw while the pot is still
        unopened must be followed, later in the hand, by ``Floor: Seat N penalty X``
        for that seat with the house's amount. A fold without it (or with another
        amount) is flagged on the fold. Off where the house has no such penalty, and
        in Draw High, which has no declarations of openers to protect.

    Why it matters:
        A seat that throws its cards in before the pot is opened tells the players
        still to declare how few opponents they face, which changes their betting.

    Example:
        ``# profile: foster``: seat 1 checks, ``Seat 2: folds``, seat 3 opens, and no
        ``Floor: Seat 2 penalty 5`` follows: O211 on the fold.

    Source:
        Foster: "In some places players are allowed to throw down their cards when they
        pass; but in first-class games a penalty of five white counters must be paid into the
        pool by any player abandoning his hand before the second round of declarations, as it
        gives an undue advantage to players with medium hands to know that they have only a
        limited number of possible opponents."
    """

    code = "O211"
    name = "abandoned-without-penalty"
    severity = Severity.MINOR
    source = "Foster"
    summary = "A seat abandoned its hand before the pot was opened without the house penalty."

    def check(self, ctx: Batch) -> Iterator[Result]:
        penalty = ctx.profile.abandon_penalty
        if not penalty:
            return
        a = ctx.actions
        folds = ctx.rows(Verb.FOLDS)
        folds = folds[(a.actor[folds] == ACTOR_SEAT) & ~a.pot_open[folds]
                      & (a.street[folds] == 1) & (a.verb[folds] == V_FOLDS)]
        for hand in hands_of(ctx, folds).tolist():
            yield from self._hand(ctx, hand_view(ctx, hand), penalty)

    def _hand(self, ctx: Batch, view: HandView, penalty: int) -> Iterator[Result]:
        lines = view.lines
        for a in lines:
            if (a.verb is not Verb.FOLDS or a.actor is not Actor.SEAT or a.pot_open
                    or a.street != 1):
                continue
            paid = [p.amount or 0 for p in lines[a.index + 1:]
                    if p.verb is Verb.PENALTY and p.seat == a.seat]
            if penalty in paid:
                continue
            other = f" (penalty paid: {', '.join(map(money, paid))})" if paid else ""
            yield ctx.finding(
                view.hand,
                f"seat {a.seat} abandoned its hand before the pot was opened and no penalty "
                f"of {money(penalty)} followed{other}",
                action=a.row, evidence={"penalty_cents": penalty, "paid_cents": paid},
            )
