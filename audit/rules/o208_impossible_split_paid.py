"""O208 impossible-split-paid."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from audit.facts.context import Batch, Result, cards_text, money
from audit.facts.view import HandView, hand_view
from audit.opening import could_have_held_openers
from audit.replay.cards import known
from audit.rule import Rule
from audit.rules._openers import (
    collections,
    required,
)
from schemas.findings import Severity
from schemas.records import Verb


class ImpossibleSplitPaid(Rule):
    """Flags a seat that split openers and won although it could not have held them.

    What it does:
        For every seat with a ``splits openers`` line that collected chips, puts its
        final hand (the shown cards, else the replayed hand) beside its discards,
        as the dealer does with the discards set aside, and asks whether any five
        cards the seat could have been dealt (the discards plus some of the final
        cards) were openers. If none could, its first ``collects`` line is flagged
        (this replaces O202 for that seat). Unknown final cards or discards make the
        hand unverifiable.

    Why it matters:
        Splitting is allowed only to a real opener; the set-aside discards are the
        one proof left, and a seat they disprove must lose the pot.

    Example:
        Seat 2 opens, ``splits openers``, ``discards [9c 4d] draws [Ah 5h]``, shows
        ``[Th 8h 7h Ah 5h]`` and collects: the dealt hand was at best ``Th 8h 7h``
        with ``9c 4d``, no pair of jacks: O208 on the collection.

    Source:
        R-JB 9: "If you declare that you are splitting openers, but it is determined that
        you could not possibly have had openers when your final hand is compared with your
        discards, you will lose the pot."
        H-23.10: "Further to the previous rule, if the dealer determines from the discarded
        cards that the opening player could not have had openers, that player will be
        disqualified from the pot."
    """

    code = "O208"
    name = "impossible-split-paid"
    severity = Severity.CRITICAL
    source = "R-JB 9, H-23.10"
    summary = "A seat that split openers won without any possible openers."

    def check(self, ctx: Batch) -> Iterator[Result]:
        s = ctx.seats
        split = np.flatnonzero(s.split_openers & (s.collected != 0))
        hands = np.unique(s.hand[split])
        for hand in hands[ctx.judged[hands]].tolist():
            yield from self._hand(ctx, hand_view(ctx, hand))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        minimum, bobtail = required(view), ctx.profile.bobtail
        paid_all = collections(view)
        for n in view.order:
            state = view.seats[n]
            paid = [(i, x) for i, s, x, _ in paid_all if s == n and x > 0]
            if not state.split_openers or not paid:
                continue
            final = state.final
            if final is None or not known(state.discards):
                yield ctx.unverifiable(view.hand, f"seat {n} split openers; final hand or "
                                       "discards unrecorded", seat=n)
                continue
            try:
                possible = could_have_held_openers(final, state.discards, minimum,
                                                   bobtail=bobtail)
            except ValueError:
                continue
            if possible:
                continue
            total = sum(x for _, x in paid)
            yield ctx.finding(
                view.hand,
                f"seat {n} split openers and collected {money(total)}, but final hand "
                f"{cards_text(final)} with discards {cards_text(state.discards)} could not "
                f"have held {minimum.value}",
                action=view.lines[paid[0][0]].row,
                lines=[a.line for a in view.lines
                       if a.seat == n and a.verb in (Verb.SPLITS_OPENERS, Verb.DISCARDS)],
                evidence={"final": list(final), "discards": list(state.discards),
                          "collected_cents": total, "openers": minimum.value},
            )
