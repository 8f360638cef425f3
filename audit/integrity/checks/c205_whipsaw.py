"""C205: two players who raise a third between them."""

from __future__ import annotations

import numpy as np

from audit.integrity.checks._pairs import (
    Exposures,
    PairDecisionTest,
    against_one,
    first_per_round,
    popcount16,
    pressure,
)
from audit.integrity.features import BatchView
from audit.integrity.model import Level
from audit.integrity.replay import V_RAISES


class Whipsaw(PairDecisionTest):
    """Compares how often a player re-raises one player's bet with a third player caught in the
    pot with how often he re-raises anyone else's.

    What it does:
        Whipsawing is two partners raising and re-raising with a third player between
        them, so the third pays more to stay in or is driven out. Decisions of a player
        facing a bet or raise with at least one other live player besides the bettor
        (no one all-in; a player's first such decision a round, since a raising war is
        one event) are split by who made the last bet or raise, by before or after the
        draw and by the bets and raises the round has seen (the house's cap stops
        raising whoever bet); the outcome is raising. Both players' decisions towards each
        other are pooled, and the exact stratified test asks whether they raise each
        other more often than they raise others.

    Assumes:
        A player's choice to raise does not depend on who made the bet he faces.

    Not valid when:
        The house has no cap and raising wars are common between particular regulars
        for innocent reasons: review the hands.

    Minimum sample:
        10 such decisions facing the partner's bet and 20 facing others'.

    Evidence:
        The hands where one of the two re-raised the other with a third player in.
    """

    code = "C205"
    name = "whipsaw"
    level = Level.PAIR
    greater = True
    summary = "Two players who raise each other with a third player caught between them."
    decisions_text = "decisions facing a bet with a third player in"
    outcome_text = "raised"
    exposure_text = "when the bet was the other's of {a} and {b}"

    def exposures(self, view: BatchView) -> Exposures | None:
        d = view.replayed.decisions
        pick = first_per_round(d, np.nonzero(d.facing & (d.aggressor >= 0)
                                             & (popcount16(d.live) >= 2) & ~d.all_in)[0])
        if not len(pick):
            return None
        return against_one(
            view, d, pick, d.aggressor[pick],
            stratum=d.section[pick].astype(np.int64) * 8 + pressure(d, pick, most=6),
            outcome=d.verb[pick] == V_RAISES, codes=d.verb[pick].astype(np.int64))
