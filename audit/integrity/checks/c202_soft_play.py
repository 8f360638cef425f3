"""C202: a player who holds the best hand but does not bet it into one particular player."""

from __future__ import annotations

import numpy as np

from audit.integrity.checks._pairs import (
    Exposures,
    PairDecisionTest,
    popcount16,
    seat_player,
)
from audit.integrity.features import BatchView
from audit.integrity.model import Level
from audit.integrity.replay import AFTER, TWO_PAIR_LEVEL, V_BETS, V_CALLS, V_CHECKS, V_RAISES


class SoftPlay(PairDecisionTest):
    """Compares how often a player bets or raises the best hand heads-up against the partner
    with how often against anyone else.

    What it does:
        After the draw every live hand is known from the log (dealt cards, discards and
        draws), so the analysis knows when a player's hand beats the only opponent left
        in the pot. Those decisions (the player holds the best hand, two pair or better,
        heads-up after the draw, no one all-in; checks, bets, calls and raises) are split
        by who the opponent is, and by whether the player faces a bet (bet or check;
        raise or call). Fair players value-bet a winning hand whoever is across; a pair
        that does not bet into each other (soft play) bets it less often against the
        partner. Both players' decisions towards each other are pooled (the strata are
        each player's own), and the exact stratified test asks whether they are less
        aggressive with each other than with others.

    Assumes:
        A player's choice to bet or raise a winning hand does not depend on who the
        opponent is. A real player may check to a known maniac to induce a bluff, so
        an alert is a case to review, never proof on its own.

    Not valid when:
        Cards are missing (``??``): such decisions are left out. Pairs of players who
        are not independent for an innocent reason (the house's own staff, a couple
        who share a bankroll) are what the test finds too.

    Minimum sample:
        10 such decisions against the partner and 20 against others.

    Evidence:
        The hands where the best hand checked or called against the partner.
    """

    code = "C202"
    name = "soft-play"
    level = Level.PAIR
    greater = False
    summary = "Two players who do not bet winning hands into each other."
    decisions_text = "decisions holding the best hand heads-up after the draw"
    outcome_text = "bet or raised"
    exposure_text = "with the other of {a} and {b} as the opponent"

    def exposures(self, view: BatchView) -> Exposures | None:
        d = view.replayed.decisions
        verb = d.verb
        strong = np.zeros(len(verb), dtype=np.bool_)
        final = view.replayed.seats.final
        start = view.batch.h_seat_start[d.hand].astype(np.int64)
        actor_final = final[start + d.actor]
        strong = (actor_final >> 20) >= TWO_PAIR_LEVEL
        pick = np.nonzero(
            (d.section == AFTER) & (d.best == 1) & strong & (popcount16(d.live) == 1)
            & ~d.all_in & ((verb == V_CHECKS) | (verb == V_BETS) | (verb == V_CALLS)
                           | (verb == V_RAISES)))[0]
        if not len(pick):
            return None
        opponent_local = np.log2(d.live[pick].astype(np.int64)).astype(np.int64)
        return Exposures(
            actor=seat_player(view, d, pick, d.actor[pick]),
            stratum=d.facing[pick].astype(np.int64),
            outcome=(verb[pick] == V_BETS) | (verb[pick] == V_RAISES),
            rows=view.batch.first + d.hand[pick].astype(np.int64),
            codes=(actor_final[pick] << 8) | verb[pick].astype(np.int64),
            exposed_index=np.arange(len(pick), dtype=np.int64),
            exposed_to=seat_player(view, d, pick, opponent_local),
        )
