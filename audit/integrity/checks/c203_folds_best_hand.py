"""C203: folds of the best hand to one particular player."""

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
from audit.integrity.replay import AFTER, V_FOLDS


class FoldsBestHand(PairDecisionTest):
    """Compares how often a player folds the best hand to one player's bet with how often to
    anyone else's.

    What it does:
        After the draw every live hand is known, so a fold of a hand that beats every
        other live hand is visible. Folding the best hand happens to honest players
        (a bet is scary); folding it to one particular player more often than to
        others is how chips are passed to a partner without a showdown. Decisions of a
        player facing a bet after the draw while holding the best hand (no one all-in)
        are split by who made the last bet or raise, by heads-up or multiway and by the
        bets and raises the round has seen (a player's first such decision a round); the
        exact stratified test asks whether folds are more frequent when the bettor is
        that player.

    Assumes:
        A player's fold of a winning hand does not depend on who bet (given heads-up
        or multiway). Reading one opponent as a strong player may legitimately make
        folds to him more likely: review the hands.

    Not valid when:
        Cards are missing (``??``): such decisions are left out.

    Minimum sample:
        10 such decisions facing the player and 20 facing others.

    Evidence:
        The hands where the best hand was folded to the player.
    """

    code = "C203"
    name = "folds-best-hand-to-player"
    level = Level.PLAYER_TO_PLAYER
    greater = True
    summary = "A player who folds the best hand to one particular player's bets."
    decisions_text = "decisions facing a bet with the best hand after the draw"
    outcome_text = "folded"
    exposure_text = "when {b} made the bet ({a} folding)"

    def exposures(self, view: BatchView) -> Exposures | None:
        d = view.replayed.decisions
        pick = first_per_round(d, np.nonzero((d.section == AFTER) & d.facing & (d.best == 1)
                                             & ~d.all_in & (d.aggressor >= 0))[0])
        if not len(pick):
            return None
        final = view.replayed.seats.final[view.batch.h_seat_start[d.hand[pick]] + d.actor[pick]]
        return against_one(
            view, d, pick, d.aggressor[pick],
            stratum=(popcount16(d.live[pick]) > 1).astype(np.int64) * 4 + pressure(d, pick),
            outcome=d.verb[pick] == V_FOLDS,
            codes=(final << 8) | d.verb[pick].astype(np.int64))
