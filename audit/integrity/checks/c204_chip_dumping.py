"""C204: chips put in with a beaten hand against one particular player."""

from __future__ import annotations

import numpy as np

from audit.integrity.checks._pairs import (
    Exposures,
    PairDecisionTest,
    against_one,
    first_per_round,
    lone_opponent,
    popcount16,
    pressure,
)
from audit.integrity.features import BatchView
from audit.integrity.model import Level
from audit.integrity.replay import AFTER, V_BETS, V_CALLS, V_RAISES


class ChipDumping(PairDecisionTest):
    """Compares how often a player puts chips in with a beaten hand heads-up against one player
    with how often against anyone else.

    What it does:
        With the cards known, chips that move because of the cards are explained: the
        better hand wins what the worse hand pays to see it. What the cards do not
        explain is a player who keeps paying with a hand he can see is beaten, into one
        particular player: chip dumping. Decisions heads-up after the draw where the
        player's hand loses to the opponent's (no one all-in; a player's first such
        decision a round) are split by opponent and by the bets faced (none, one, two,
        three or more); the outcome is putting chips in (bet, raise or call)
        rather than checking or folding. The exact stratified test asks whether the
        player pays more often when the opponent is that player. The alert's effect is
        the odds ratio; the chips themselves are in the hands listed.

    Assumes:
        A player's willingness to pay off with a losing hand does not depend on who the
        opponent is (calling a known bluffer more often is a legitimate reason: review).

    Not valid when:
        Cards are missing (``??``): such decisions are left out.

    Minimum sample:
        10 such decisions against the player and 20 against others.

    Evidence:
        The hands where the beaten hand put chips in against the player.
    """

    code = "C204"
    name = "chip-dumping"
    level = Level.PLAYER_TO_PLAYER
    greater = True
    summary = "A player who pays one particular player with hands he can see are beaten."
    decisions_text = "heads-up decisions after the draw with a beaten hand"
    outcome_text = "put chips in"
    exposure_text = "against {b} ({a} paying)"

    def exposures(self, view: BatchView) -> Exposures | None:
        d = view.replayed.decisions
        pick = first_per_round(d, np.nonzero((d.section == AFTER) & (popcount16(d.live) == 1)
                                             & (d.beaten == d.live) & (d.best == 0)
                                             & ~d.all_in)[0])
        if not len(pick):
            return None
        verb = d.verb[pick]
        final = view.replayed.seats.final[view.batch.h_seat_start[d.hand[pick]] + d.actor[pick]]
        return against_one(
            view, d, pick, lone_opponent(d, pick),
            stratum=np.where(d.facing[pick], 1 + pressure(d, pick), 0),
            outcome=(verb == V_BETS) | (verb == V_RAISES) | (verb == V_CALLS),
            codes=(final << 8) | verb.astype(np.int64))
