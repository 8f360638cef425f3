"""O209 refund-to-weak-caller."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from audit.cards import RANK_CHAR
from audit.evaluator import describe, describe_strength
from audit.facts.context import Batch, Result, cards_text, money
from audit.facts.tables import Known
from audit.facts.view import HandView, Line, hand_view
from audit.opening import MINIMUM_PAIR
from audit.replay.showdown import strength
from audit.rule import Rule
from audit.rules._openers import (
    dealt_text,
    hands_of,
    required,
)
from ingest.scan.layout import ACTOR_SEAT
from schemas.findings import Severity
from schemas.records import Actor, Verb

_SETS_BET = frozenset({Verb.BETS, Verb.RAISES})


_MINIMUM_PAIR_CHAR = {openers: RANK_CHAR[rank] for openers, rank in MINIMUM_PAIR.items()}


class RefundToWeakCaller(Rule):
    """Flags a caller of the opener's after-draw bet who got it back without beating openers.

    What it does:
        Finds the seats that called, after the draw, a bet or raise made by the
        opener, and every later ``Dealer: returns X to Seat N`` to such a seat. The
        caller's final hand is compared with the opener's openers, the five cards
        the opener was dealt: if it does not beat them, the return is flagged. Where
        the opener had no openers (found false at the showdown) the caller must beat
        the table's minimum, the weakest pair of jacks (or queens, ...). Unknown
        cards make the hand unverifiable; a hand that is not five distinct cards (a
        seat dealt twice, a repeated card) is not compared: D301, D302 and D307 judge
        the deal.

    Why it matters:
        A caller who sees the opener's hand has bought information; refunding a
        caller who could not beat the openers gives it away for free.

    Example:
        Seat 1 opened with ``[Kd Kc 9s 5h 2c]``, bets 20 after the draw, seat 2 calls
        20 with a pair of tens, and ``Dealer: returns 20 to Seat 2``: O209.

    Source:
        R-JB 11: "After the draw, if you call the opener's bet and cannot beat openers,
        you will not get your bet back."
        H-23.11: "If a player calls the opener's bet following the draw, that player will not
        have his bet returned if he cannot beat the openers."
    """

    code = "O209"
    name = "refund-to-weak-caller"
    severity = Severity.MINOR
    source = "R-JB 11, H-23.11"
    summary = "A caller of the opener's after-draw bet who cannot beat openers got it back."

    def check(self, ctx: Batch) -> Iterator[Result]:
        # A return can be flagged only to a seat that called after the draw before it.
        a = ctx.actions
        calls = ctx.rows(Verb.CALLS)
        calls = calls[(a.street[calls] == 2) & (a.actor[calls] == ACTOR_SEAT)]
        first_call = np.full(len(ctx) * 16, np.iinfo(np.int64).max, dtype=np.int64)
        np.minimum.at(first_call, a.hand[calls].astype(np.int64) * 16 + a.seat[calls],
                      a.index[calls])
        returns = ctx.rows(Verb.RETURNS)
        keys = a.hand[returns].astype(np.int64) * 16 + a.seat[returns]
        returns = returns[first_call[keys] < a.index[returns]]
        for hand in hands_of(ctx, returns).tolist():
            if ctx.hands.opener[hand] or ctx.hands.original_opener[hand]:
                yield from self._hand(ctx, hand_view(ctx, hand))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        opener = view.row.opener or view.row.original_opener
        callers: dict[int, int] = {}
        bettor: int | None = None
        for a in view.lines:
            if a.street == 2 and a.actor is Actor.SEAT:
                if a.verb in _SETS_BET:
                    bettor = a.seat
                elif a.verb is Verb.CALLS and bettor == opener and a.seat is not None:
                    callers.setdefault(a.seat, a.index)
            if a.verb is not Verb.RETURNS or a.seat not in callers or a.index < callers[a.seat]:
                continue
            yield from self._judge(ctx, view, opener, a.seat, -a.chips, a)

    def _judge(self, ctx: Batch, view: HandView, opener: int, seat: int, amount: int,
               line: Line) -> Iterator[Result]:
        final = view.seats[seat].final
        bar = self._openers_bar(view, opener)
        if final is None or bar is None:
            yield ctx.unverifiable(view.hand, f"refund to seat {seat}: its final hand or the "
                                   "opener's openers are unrecorded", seat=seat)
            return
        cards, what = bar
        mine, openers = strength(final), strength(cards)
        if mine is None or openers is None:
            return
        if mine > openers:
            return
        yield ctx.finding(
            view.hand,
            f"seat {seat} got {money(amount)} back after calling the opener, but its "
            f"{cards_text(final)} ({describe_strength(mine)}) does not beat {what}",
            action=line.row,
            evidence={"returned_cents": amount, "final": list(final), "openers": list(cards),
                      "opener": opener},
        )

    @staticmethod
    def _openers_bar(view: HandView, opener: int) -> tuple[tuple[str, ...], str] | None:
        held = view.seats[opener].had_openers
        dealt = view.seats[opener].dealt_hand
        if held is Known.NO:
            rank = _MINIMUM_PAIR_CHAR[required(view)]
            weakest = (f"{rank}c", f"{rank}d", "4h", "3s", "2c")
            return weakest, f"the minimum openers of the table ({describe(weakest)})"
        if held is Known.YES and dealt is not None:
            return dealt, f"seat {opener}'s openers {dealt_text(view, opener)}"
        return None
