"""O211 abandoned-without-penalty."""

from __future__ import annotations

from collections.abc import Iterator

from audit.replay import Street
from audit.rule import HandContext, Result, Rule, money
from audit.rules._openers import judged
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

    def check(self, ctx: HandContext) -> Iterator[Result]:
        penalty = ctx.profile.abandon_penalty
        if not penalty or not judged(ctx):
            return
        actions = ctx.record.actions
        for step in ctx.replay.steps:
            a = step.action
            if (a.verb is not Verb.FOLDS or a.actor is not Actor.SEAT or step.pot_open
                    or step.street is not Street.BEFORE_DRAW):
                continue
            paid = [p.amount or 0 for p in actions[a.index + 1:]
                    if p.verb is Verb.PENALTY and p.seat == a.seat]
            if penalty in paid:
                continue
            other = f" (penalty paid: {', '.join(map(money, paid))})" if paid else ""
            yield ctx.finding(
                f"seat {a.seat} abandoned its hand before the pot was opened and no penalty "
                f"of {money(penalty)} followed{other}",
                action=a, evidence={"penalty_cents": penalty, "paid_cents": paid},
            )
