"""C206: passing with openers when the partner sits behind."""

from __future__ import annotations

import numpy as np

from audit.integrity.checks._pairs import (
    Exposures,
    PairDecisionTest,
    expand_mask,
    popcount16,
    seat_player,
)
from audit.integrity.features import BatchView
from audit.integrity.model import Level
from audit.integrity.replay import V_CHECKS, V_OPENS


class PassingOpeners(PairDecisionTest):
    """Compares how often a player passes with openers when one player sits behind him with how
    often he passes otherwise.

    What it does:
        Passing with openers is legal, and a known signal between partners: it leaves
        the opening to the partner behind, who can then raise (or a third player is
        trapped between them). Before the pot is open, each turn of a player whose
        dealt hand opens under the deal's minimum (Jacks or Better deals only) is
        either a pass (check) or an open. Those decisions are split by whether the
        other player is still to act behind, and by how many players are still to act
        (a pass is naturally likelier with many behind). Both players' decisions
        towards each other are pooled; the exact stratified test asks whether they pass
        openers more often with the other behind.

    Assumes:
        A player's decision to pass openers depends on his cards and how many players
        are behind, not on who they are; and nothing shared by the players of a deal
        or a stretch of deals makes them pass together (decisions of different deals
        are independent given their strata).

    Not valid when:
        Draw High deals (everyone has openers) are not counted. A house where passing
        openers is usual for one particular position may need the strata refined.
        Deals where everyone with openers passes for a reason of the deal (a house
        custom of checking around on some deals, a simulation that forces a pass-out)
        count every player's pass as exposed to whoever sat behind: in runs of such
        deals, players seated together then look like partners. The false alerts
        this gave on a generated room with forced pass-outs (one deal in 80) came
        with the tell: most of the pair's exposed passes were in deals that every
        player with openers passed.

    Minimum sample:
        10 hands with openers with the other behind and 20 without.

    Evidence:
        The hands where one passed openers with the other behind.
    """

    code = "C206"
    name = "passes-openers-partner-behind"
    level = Level.PAIR
    greater = True
    summary = "Two players who pass with openers when the other sits behind."
    decisions_text = "turns with openers before the open"
    outcome_text = "passed"
    exposure_text = "with the other of {a} and {b} still to act behind"

    def exposures(self, view: BatchView) -> Exposures | None:
        d = view.replayed.decisions
        pick = np.nonzero(d.preopen & (d.openers == 1)
                          & ((d.verb == V_CHECKS) | (d.verb == V_OPENS)))[0]
        if not len(pick):
            return None
        index, partner = expand_mask(view, d, pick, d.behind[pick])
        strength = view.dealt_strength[view.batch.h_seat_start[d.hand[pick]].astype(np.int64)
                                       + d.actor[pick]]
        return Exposures(
            actor=seat_player(view, d, pick, d.actor[pick]),
            stratum=np.minimum(popcount16(d.behind[pick]), 15),
            outcome=d.verb[pick] == V_CHECKS,
            rows=view.batch.first + d.hand[pick].astype(np.int64),
            codes=(np.maximum(strength, 0) << 8) | d.verb[pick].astype(np.int64),
            exposed_index=index,
            exposed_to=partner,
        )
