"""B108 bet-before-open."""

from __future__ import annotations

from collections.abc import Iterator

from audit.rule import HandContext, Result, Rule, money
from schemas.findings import Severity
from schemas.records import Actor, Game, Section, Verb


class BetBeforeOpen(Rule):
    """Flags, in Jacks or Better, a bet before the draw that is not an ``opens``.

    What it does:
        Before the draw of a Jacks-or-Better deal the first bet is an ``opens`` (it
        declares openers) and later ones are raises of it. A ``bets`` line before
        the draw, or a ``raises`` before any seat opened, is flagged. The replay
        still treats such a first bet as the opening of the pot. Draw High, which
        opens on anything, is not judged.

    Why it matters:
        A bet that is not an open declares nothing: the openers rules (proof, false
        openers) cannot be applied to it.

    Example:
        ``Seat 1: bets 10`` in BEFORE DRAW of a Jacks-or-Better hand: B108.

    Source:
        R-JB 1: "A pair of jacks or better is required to open the pot."
    """

    code = "B108"
    name = "bet-before-open"
    severity = Severity.MINOR
    source = "R-JB 1"
    summary = "In Jacks or Better, a bet before the draw that is not an opens."

    def check(self, ctx: HandContext) -> Iterator[Result]:
        if ctx.record.game is not Game.JACKS_OR_BETTER:
            return
        for step in ctx.replay.steps:
            a = step.action
            if a.actor is not Actor.SEAT or a.section is not Section.BEFORE_DRAW:
                continue
            if a.verb is Verb.BETS or (a.verb is Verb.RAISES and not step.pot_open):
                yield ctx.finding(
                    f"seat {a.seat} {a.verb.value} {money(a.amount or 0)} before the draw "
                    "without opening the pot",
                    action=a, evidence={"verb": a.verb.value, "pot_open": step.pot_open},
                )
