"""B108 bet-before-open."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from audit.facts.context import Batch, Result, money, verb_name
from audit.rule import Rule
from ingest.scan.layout import (
    ACTOR_SEAT,
    GAME_JACKS_OR_BETTER,
    SEC_BEFORE_DRAW,
    V_BETS,
    V_RAISES,
)
from schemas.findings import Severity


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

    def check(self, ctx: Batch) -> Iterator[Result]:
        a = ctx.actions
        flagged = ((ctx.hands.game[a.hand] == GAME_JACKS_OR_BETTER) & (a.actor == ACTOR_SEAT)
                   & (a.section == SEC_BEFORE_DRAW)
                   & ((a.verb == V_BETS) | ((a.verb == V_RAISES) & ~a.pot_open)))
        for r in np.flatnonzero(flagged).tolist():
            row = ctx.action(r)
            verb = verb_name(row.verb)
            yield ctx.finding(
                row.hand,
                f"seat {row.seat} {verb} {money(max(row.amount, 0))} before the draw "
                "without opening the pot",
                action=r, evidence={"verb": verb, "pot_open": row.pot_open},
            )
