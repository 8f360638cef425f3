"""B104 action-not-in-hand."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from audit.facts.context import Batch, Result, verb_name
from audit.facts.tables import SeatStatus
from audit.rule import Rule
from ingest.scan.layout import (
    ACTOR_SEAT,
    V_COLLECTS,
    VERBS,
    V,
)
from schemas.findings import Severity
from schemas.records import Verb


def _verbs(*verbs: Verb) -> np.ndarray:
    """Per verb code: whether it is one of ``verbs`` (indexed by a column of verb codes)."""
    return np.isin(np.arange(len(VERBS)), [V[v] for v in verbs])


_IN_HAND_ONLY = _verbs(Verb.CHECKS, Verb.OPENS, Verb.BETS, Verb.CALLS, Verb.RAISES,
                       Verb.DISCARDS, Verb.STANDS_PAT, Verb.DRAWS_FIFTH, Verb.COLLECTS)


_NOT_ALL_IN = _verbs(Verb.BETS, Verb.CALLS, Verb.RAISES)


_WHY = {SeatStatus.UNSEATED: "is not seated", SeatStatus.NOT_DEALT: "was never dealt in",
        SeatStatus.DEAD: "is dead", SeatStatus.FOLDED: "had folded"}


class ActionNotInHand(Rule):
    """Flags a bet, call, raise, draw or collection by a seat that is not in the hand.

    What it does:
        A seat that folded, was ruled dead (false openers, fouled hand) or was never
        dealt in (no DEAL line, or no ``Seat`` line at all) may not check, open,
        bet, call, raise, draw or collect; a seat already all-in may not bet, call
        or raise (it may still draw and win what it is eligible for). After a
        misdeal every seat collects its chips back, so collections are not judged
        then.

    Why it matters:
        Chips moved by a seat that has no hand, or that has no chips left, are
        money in the wrong place.

    Example:
        ``Seat 6: folds`` before the draw, then ``Seat 6: discards [4c] draws [9h]``:
        B104 on the draw line.

    Source:
        No seed sentence: a consistency check of the hand log (a seat out of the hand
        cannot act).
    """

    code = "B104"
    name = "action-not-in-hand"
    severity = Severity.MAJOR
    source = "—"
    summary = "A seat out of the hand (or all-in) bets, calls, raises, draws or collects."

    def check(self, ctx: Batch) -> Iterator[Result]:
        a = ctx.actions
        rows = np.flatnonzero((a.actor == ACTOR_SEAT) & _IN_HAND_ONLY[a.verb])
        verbs = a.verb[rows]
        rows = rows[~((verbs == V_COLLECTS) & (ctx.hands.misdeal_index[a.hand[rows]] >= 0))]
        out = ~a.in_hand[rows]
        flagged = rows[out | (a.all_in[rows] & _NOT_ALL_IN[a.verb[rows]])]
        for r in flagged.tolist():
            row = ctx.action(r)
            verb = verb_name(row.verb)
            if not row.in_hand:
                why = _WHY[SeatStatus(row.status)]
                yield ctx.finding(row.hand, f"seat {row.seat} {verb} but {why}", action=r,
                                  evidence={"verb": verb, "reason": why})
            else:
                yield ctx.finding(row.hand, f"seat {row.seat} {verb} although already all-in",
                                  action=r, evidence={"verb": verb, "reason": "all-in"})
