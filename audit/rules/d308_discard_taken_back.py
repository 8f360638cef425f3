"""D308 discard-taken-back."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from audit.facts.context import Batch, Result, cards_text
from audit.facts.view import HandView, Line, hand_view
from audit.rule import Rule
from ingest.scan.layout import (
    SEC_DRAW,
    UNKNOWN_CODE,
    V_DEALS,
    V_DISCARDS,
    V_MUCKS,
    V_SHOWS,
)
from schemas.findings import Severity
from schemas.records import UNKNOWN_CARD, Actor, Verb

_FINAL = frozenset({Verb.SHOWS, Verb.MUCKS})


_MATTER = (Verb.DISCARDS, Verb.DRAWS_FIFTH, Verb.DEALS, *_FINAL)


def _own(a: Line) -> bool:
    return (a.actor is Actor.SEAT or a.verb is Verb.DEALS) and a.seat is not None


class DiscardTakenBack(Rule):
    """Flags a card a seat discarded that comes back into its hand.

    What it does:
        Follows each seat's discards in log order. A discarded card that the seat
        is given again (in its own draw line, a ``draws fifth`` or a later
        ``Dealer: deals``) is flagged on that line; one that is in the seat's final
        hand (``shows [..]``, or ``mucks [..]`` with the cards recorded) is flagged
        on that line, unless already flagged where it came back. ``shows openers``
        is not a hand: split openers are proved with the discards set aside. Where
        the discards are ``??`` and the final hand holds a card the seat did not
        visibly draw, the check is unverifiable.

    Why it matters:
        A player who takes back a discard plays with more than five cards to choose
        from: the hand is not the one the draw gave.

    Example:
        ``Seat 5: discards [9s 5d 3c] draws [Ad 8h 7c]`` then ``Seat 5: shows [Ac Jk
        9s Ad 8h]``: the 9s was discarded; D308 at the ``shows`` line.

    Source:
        L-37: "Cards discarded shall be placed on the table, face downwards, and shall
        not again be taken into the hand of the player discarding them."
    """

    code = "D308"
    name = "discard-taken-back"
    severity = Severity.MAJOR
    source = "L-37"
    summary = "A card a seat discarded appears in its hand again."

    def check(self, ctx: Batch) -> Iterator[Result]:
        a = ctx.actions
        rows = ctx.rows(*_MATTER)
        rows = rows[(a.actor[rows] == 0) | (a.verb[rows] == V_DEALS)]
        keys = a.hand[rows].astype(np.int64) * 16 + a.seat[rows]
        verb = a.verb[rows]
        thrown = np.zeros(len(ctx) * 16, dtype=np.uint64)
        discarding = verb == V_DISCARDS
        np.bitwise_or.at(thrown, keys[discarding], a.cards_mask[rows[discarding]])
        # Only a seat that threw cards away can take one back: the others are left out.
        threw = thrown[keys] != 0
        rows, keys, verb = rows[threw], keys[threw], verb[threw]
        final = (verb == V_SHOWS) | (verb == V_MUCKS)
        received = np.where(verb == V_DISCARDS, a.drawn_mask[rows],
                            np.where((verb == V_DEALS) & (a.section[rows] < SEC_DRAW), 0,
                                     a.cards_mask[rows]).astype(np.uint64))
        back = np.zeros(len(ctx) * 16, dtype=np.uint64)
        named = np.zeros(len(ctx) * 16, dtype=bool)
        np.bitwise_or.at(back, keys, np.where(final, a.cards_mask[rows], received))
        named[keys[final & (a.cards_count[rows] > 0)]] = True
        unknown = np.uint64(1) << np.uint64(UNKNOWN_CODE)
        seats = np.flatnonzero(thrown)  # every seat that threw a card (the keys left)
        thrown_by, back_to = thrown[seats], back[seats]
        suspects = ((thrown_by & back_to & ~unknown) != 0) | (((thrown_by & unknown) != 0)
                                                             & named[seats])
        for hand in np.unique(seats[suspects] // 16).tolist():
            yield from self._hand(ctx, hand_view(ctx, hand))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        if not any(a.cards for a in view.lines_of(Verb.DISCARDS)):
            return
        lines: dict[int, list[Line]] = {}
        for a in view.lines_of(*_MATTER):
            if _own(a):
                lines.setdefault(a.seat, []).append(a)  # type: ignore[arg-type]  # _own
        first: dict[int, int] = {}
        for a in view.lines:
            if a.seat in lines and a.seat not in first and _own(a):
                first[a.seat] = a.index
        for seat in sorted(lines, key=first.__getitem__):
            yield from self._seat(ctx, view, seat, lines[seat])

    def _seat(self, ctx: Batch, view: HandView, seat: int, own: list[Line]
              ) -> Iterator[Result]:
        discarded: list[str] = []
        hidden = False
        seen_drawn: list[str] = []
        reported: set[str] = set()
        for a in own:
            if a.verb is Verb.DISCARDS:
                discarded.extend(c for c in a.cards or () if c != UNKNOWN_CARD)
                hidden = hidden or UNKNOWN_CARD in (a.cards or ())
            if a.verb in _FINAL:
                hand = a.cards or ()
                back = [c for c in hand if c in discarded and c not in reported]
                if not back and hidden and any(
                        c not in seen_drawn for c in hand if c != UNKNOWN_CARD):
                    yield ctx.unverifiable(
                        view.hand, f"seat {seat} discarded ?? cards; its final hand cannot be "
                        "checked", seat=seat)
                    continue
            else:
                hand = a.received
                seen_drawn.extend(hand)
                back = [c for c in hand if c in discarded]
            if back:
                reported.update(back)
                yield ctx.finding(
                    view.hand,
                    f"seat {seat} discarded {cards_text(back)} and "
                    + ("holds it again in its final hand " if a.verb in _FINAL
                       else "was dealt it again in ") + cards_text(hand),
                    action=a.row, seat=seat, evidence={"cards": back, "hand": list(hand),
                                                       "discarded": list(discarded)},
                )
