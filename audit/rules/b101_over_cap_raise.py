"""B101 over-cap-raise."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from audit.facts.context import Batch, Result
from audit.rule import Rule
from ingest.scan.layout import (
    V_BETS,
    V_OPENS,
    V_RAISES,
)
from schemas.findings import Severity


class OverCapRaise(Rule):
    """Flags a raise past the house cap in a multihanded betting round.

    What it does:
        Counts the bet and the full raises of each betting round (an open for two
        units counts as a bet and a raise; an all-in raise under half a unit does
        not count) and flags a raise that goes past a bet and ``cap_raises`` raises
        while three or more seats that are not all-in are in the hand. Once the
        round reaches the cap multihanded it stays capped even if a seat folds;
        heads-up before the cap, raising is unlimited.

    Why it matters:
        The cap limits how much two players can squeeze a third caught in the
        middle; a raise past it puts chips in the pot that the rules forbid.

    Example:
        Four seats in, before the draw at 10/20: opens 10, raises to 20, 30, 40,
        50 (a bet and four raises), then ``Seat 1: raises 10 to 60``: B101 on that
        line. The same sixth bet with only two seats left before the cap is legal.

    Source:
        R-DH 1: "A maximum of a bet and four raises is permitted in multihanded pots."
        The foster and laws profiles have no cap (``cap_raises``).
    """

    code = "B101"
    name = "over-cap-raise"
    severity = Severity.MAJOR
    source = "R-DH 1"
    summary = "More than a bet and four raises in a multihanded betting round."

    def check(self, ctx: Batch) -> Iterator[Result]:
        cap = ctx.profile.cap_raises
        if cap is None:
            return
        limit = cap + 1
        a = ctx.actions
        raising = (a.verb == V_OPENS) | (a.verb == V_BETS) | (a.verb == V_RAISES)
        flagged = (a.betting & raising & (a.level_after > limit) & (a.level_after > a.level)
                   & ((a.multi_level >= limit) | (a.contenders >= 3)))
        for r in np.flatnonzero(flagged).tolist():
            row = ctx.action(r)
            yield ctx.finding(
                row.hand,
                f"seat {row.seat} made bet number {row.level_after} of the round "
                f"(cap: a bet and {cap} raises) with {row.contenders} seats able to bet",
                action=r,
                evidence={"bets": row.level_after, "cap": limit,
                          "contenders": row.contenders, "level_before": row.level},
            )
