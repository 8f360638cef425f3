"""B104 action-not-in-hand."""

from __future__ import annotations

from collections.abc import Iterator

from audit.rule import HandContext, Result, Rule
from schemas.findings import Severity
from schemas.records import Actor, Verb

#: Lines a seat out of the hand may not write.
_IN_HAND_ONLY = frozenset({
    Verb.CHECKS, Verb.OPENS, Verb.BETS, Verb.CALLS, Verb.RAISES,
    Verb.DISCARDS, Verb.STANDS_PAT, Verb.DRAWS_FIFTH, Verb.COLLECTS,
})
#: Lines an all-in seat may not write (it may still draw and win).
_NOT_ALL_IN = frozenset({Verb.BETS, Verb.CALLS, Verb.RAISES})


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

    def check(self, ctx: HandContext) -> Iterator[Result]:
        replay = ctx.replay
        for step in replay.steps:
            a = step.action
            verb = a.verb
            if a.actor is not Actor.SEAT or verb not in _IN_HAND_ONLY:
                continue
            if verb is Verb.COLLECTS and replay.misdeal_index is not None:
                continue
            seat = replay.seat(a.seat)
            if not step.in_hand:
                why = ("is not seated" if seat is None else "was never dealt in"
                       if not seat.dealt_in else "is dead" if _dead_before(ctx, a.seat, a.index)
                       else "had folded")
                yield ctx.finding(f"seat {a.seat} {verb.value} but {why}", action=a,
                                  evidence={"verb": verb.value, "reason": why})
            elif step.all_in and verb in _NOT_ALL_IN:
                yield ctx.finding(f"seat {a.seat} {verb.value} although already all-in",
                                  action=a, evidence={"verb": verb.value, "reason": "all-in"})


def _dead_before(ctx: HandContext, seat: int | None, index: int) -> bool:
    """Whether a floor ruling made ``seat`` dead before line ``index``."""
    return any(
        a.index < index and a.seat == seat and a.verb in (Verb.FALSE_OPENERS, Verb.FOULED_HAND)
        for a in ctx.record.actions
    )
