"""D301 misdeal-not-called."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from audit.rule import HandContext, Result, Rule
from audit.rules._draw import before_draw, first_seat_action
from schemas.findings import Severity
from schemas.records import Action, Verb

HAND_SIZE = 5


class MisdealNotCalled(Rule):
    """Flags a deal where a seat had fewer or more than five cards and play went on.

    What it does:
        Counts the cards each seat dealt in holds when play begins (its DEAL line
        plus any ``Dealer: deals`` before the first player's line; ``??`` counts as a
        card). A seat with another count than five needs a ``Dealer: misdeal``
        somewhere in the hand. The one exception is the button short exactly one
        card that a ``Dealer: deals`` line completes before the draw (R-DH 4). One
        finding per hand, at the first player line after the deal (where play
        went on without the misdeal), naming every seat miscounted.

    Why it matters:
        A hand of six cards is a better hand than the deck allowed; a short hand
        changes every other seat's cards. Either voids the deal.

    Example:
        ``Seat 4: [Ah Kd 9c 7s 3h 2d]`` and the betting starts with no misdeal:
        D301 at the first betting line, seat 4 with six cards.

    Source:
        R-DH 4: "Five cards constitute a playing hand. Less than five cards for a
        player (other than the button) before action has been taken is a misdeal."
        R-DH 4: "The button may receive the fifth card even if action has taken place."
    """

    code = "D301"
    name = "misdeal-not-called"
    severity = Severity.MAJOR
    source = "R-DH 4"
    summary = "A seat had other than five cards when play began, and no misdeal was called."

    def check(self, ctx: HandContext) -> Iterator[Result]:
        replay = ctx.replay
        record = ctx.record
        if replay.misdeal_index is not None:
            return
        start = first_seat_action(record)
        limit = start.index if start is not None else len(record.actions)
        deal_lines = ctx.actions_of(Verb.DEALT, Verb.DEALS)
        counts = _counts(a for a in deal_lines if a.index < limit)
        later = _counts(a for a in deal_lines
                        if a.index >= limit and before_draw(a) and a.verb is Verb.DEALS)
        dealt = {a.seat for a in ctx.actions_of(Verb.DEALT)}
        wrong = {
            seat: n for seat, n in counts.items()
            if seat in dealt and n != HAND_SIZE and not (
                seat == record.button and n == HAND_SIZE - 1
                and later.get(seat, 0) == 1
            )
        }
        if not wrong:
            return
        # Clockwise from the button's left, as the dealer deals (unseated seats last).
        seats = sorted(wrong, key=lambda s: replay.order.index(s) if s in replay.order
                       else len(replay.order) + s)
        described = ", ".join(f"seat {s} had {wrong[s]}" for s in seats)
        line = start.line if start is not None else record.result_line
        yield ctx.finding(
            f"{described} cards when play began, and no misdeal was called",
            action=start, seat=seats[0], line=line,
            lines=[a.line for a in deal_lines if a.seat in wrong and a.index < limit],
            evidence={"cards_held": {str(s): wrong[s] for s in seats}},
        )


def _counts(actions: Iterable[Action]) -> dict[int, int]:
    """Cards each seat received by deal lines and ``Dealer: deals`` among ``actions``."""
    counts: dict[int, int] = {}
    for a in actions:
        if a.seat is not None and a.verb in (Verb.DEALT, Verb.DEALS):
            counts[a.seat] = counts.get(a.seat, 0) + len(a.cards or ())
    return counts
