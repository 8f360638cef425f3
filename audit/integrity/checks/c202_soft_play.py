"""C202: a player who holds the best hand but does not bet it into one particular player."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

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
from audit.integrity.replay import AFTER, TWO_PAIR_LEVEL, V_BETS, V_CALLS, V_CHECKS, V_RAISES


def hand_class(strength: npt.NDArray[np.int64], *, dealt: bool) -> npt.NDArray[np.int64]:
    """0 weak, 1 medium, 2 strong: before the draw high card or a pair below jacks, jacks or
    better, two pair or better; after it one pair or less, two pair, three of a kind or better."""
    level = strength >> 20
    if dealt:
        pair_rank = (strength >> 16) & 0xF
        jacks_or_better = (level == 1) & (pair_rank >= 11)
        return np.where(level >= TWO_PAIR_LEVEL, 2, np.where(jacks_or_better, 1, 0))
    return np.where(level >= TWO_PAIR_LEVEL + 1, 2, np.where(level == TWO_PAIR_LEVEL, 1, 0))


class SoftPlay(PairDecisionTest):
    """Compares how often a player bets or raises heads-up against the partner with how often
    heads-up against anyone else, in comparable spots.

    What it does:
        Every decision of a player heads-up in a pot (one live opponent, no one all-in;
        checks, bets, calls and raises) is put in a stratum of comparable spots: before or
        after the draw, facing a bet or not, and how good the player's hand is (before the
        draw: the dealt hand, weak / jacks or better / two pair or better; after it: the
        final hand, one pair or less / two pair / three of a kind or better, and whether it
        beats the opponent's, which the log shows since every card is recorded) and, facing
        a bet, how many bets and raises the round has seen. Only a player's first decision
        of each betting round counts (the rest follow from it). Fair players bet and raise
        by their cards whoever is across; a pair that does not bet into each other (soft
        play) is less aggressive against the partner in the same spots. Both players'
        decisions towards each other are pooled (each in his own strata), and the exact
        stratified test asks whether they bet or raise each other less often than they
        bet or raise others.

    Assumes:
        In a given spot a player's choice to bet or raise does not depend on who the
        opponent is. A real player may check to a known maniac to induce a bluff, so an
        alert is a case to review, never proof on its own.

    Not valid when:
        Cards are missing (``??``): decisions after the draw are then left out. Pairs of
        players who are not independent for an innocent reason (staff, a couple who share
        a bankroll) are what the test finds too.

    Minimum sample:
        10 heads-up decisions against the partner and 20 against others.

    Evidence:
        The hands where one checked or called heads-up against the other.
    """

    code = "C202"
    name = "soft-play"
    level = Level.PAIR
    greater = False
    summary = "Two players who do not bet or raise into each other heads-up."
    decisions_text = "heads-up decisions"
    outcome_text = "bet or raised"
    exposure_text = "with the other of {a} and {b} as the opponent"

    def exposures(self, view: BatchView) -> Exposures | None:
        d = view.replayed.decisions
        verb = d.verb
        start = view.batch.h_seat_start[d.hand].astype(np.int64)
        seat = start + d.actor
        final = view.replayed.seats.final[seat]
        dealt = view.dealt_strength[seat]
        after = d.section == AFTER
        known = np.where(after, (final >= 0) & (d.best >= 0), dealt >= 0)
        pick = first_per_round(d, np.nonzero(
            known & (popcount16(d.live) == 1) & ~d.all_in
            & np.isin(verb, (V_CHECKS, V_BETS, V_CALLS, V_RAISES)))[0])
        if not len(pick):
            return None
        a = after[pick]
        facing = d.facing[pick]
        spot = np.where(facing, 1 + pressure(d, pick), 0)  # 0 unbet, 1..3 bets faced
        before_stratum = spot * 3 + hand_class(dealt[pick], dealt=True)
        after_class = hand_class(final[pick], dealt=False) * 2 + d.best[pick]
        after_stratum = 12 + spot * 6 + after_class
        return against_one(
            view, d, pick, lone_opponent(d, pick),
            stratum=np.where(a, after_stratum, before_stratum).astype(np.int64),
            outcome=(verb[pick] == V_BETS) | (verb[pick] == V_RAISES),
            codes=(np.where(a, final[pick], np.maximum(dealt[pick], 0)) << 8)
            | verb[pick].astype(np.int64))
