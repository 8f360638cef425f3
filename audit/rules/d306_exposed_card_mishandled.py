"""D306 exposed-card-mishandled."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from audit.facts.context import Batch, Result, cards_text
from audit.facts.view import HandView, Line, hand_view
from audit.rule import Rule
from audit.rules._deal import (
    receipts_of,
)
from ingest.scan.layout import SEC_DRAW, UNKNOWN_CODE
from schemas.findings import Severity
from schemas.records import UNKNOWN_CARD, Verb


class ExposedCardMishandled(Rule):
    """Flags an exposed card kept when it had to be refused, or refused when it had to be kept.

    What it does:
        A card the dealer exposes to a seat before the draw (``Dealer: exposes [c]
        to Seat N`` in ANTES, DEAL or BEFORE DRAW) must be in that seat's dealt
        hand; if it is not, the finding is on the ``exposes`` line. A card exposed
        in the draw (or later) must not be given to that seat: if it is among the
        cards the seat then received, the finding is on the line that gave it.
        Where the seat's cards are ``??`` a shown final hand decides (the card in it,
        and not dealt, was given on the ``??`` line); else the check is unverifiable.

    Why it matters:
        Before the draw a player may not trade an exposed card for an unknown one;
        in the draw a player may not take a card everybody has seen and chosen to
        deal to him. Either way one seat gets cards the procedure denied it.

    Example:
        ``Dealer: exposes [Qh] to Seat 3`` in the DRAW, then ``Seat 3: discards [2c]
        draws [Qh]``: D306 on seat 3's draw line.

    Source:
        R-DH 3: "Any card that is exposed by the dealer before the draw must be kept."
        R-DH 8: "On the draw, an exposed card cannot be taken. The draw is completed to each
        player in order, and then the exposed card is replaced."
        L-40: "If the dealer, in giving to any player the number of cards demanded after the
        discard, expose a card or cards; such exposed card or cards shall be returned to the
        pack, and shall not be given to the" (the seed's text ends there).
    """

    code = "D306"
    name = "exposed-card-mishandled"
    severity = Severity.MAJOR
    source = "R-DH 3, R-DH 8, L-40"
    summary = "An exposed card was not kept before the draw, or was given in the draw."

    def check(self, ctx: Batch) -> Iterator[Result]:
        a, s = ctx.actions, ctx.seats
        rows = ctx.rows(Verb.EXPOSES)
        rows = rows[a.status[rows] != 0]
        seat = ctx.seat_rows(a.hand[rows], a.seat[rows])
        unknown = np.uint64(1) << np.uint64(UNKNOWN_CODE)
        exposed = a.cards_mask[rows] & ~unknown
        dealt = s.dealt_mask[seat]
        received = s.drawn_mask[seat] | s.fifth_mask[seat]
        doubtful = np.where(a.section[rows] < SEC_DRAW,
                            ((exposed & ~dealt) != 0) | ((dealt & unknown) != 0),
                            ((exposed & received) != 0) | ((received & unknown) != 0))
        doubtful &= exposed != 0
        for hand in np.unique(a.hand[rows[doubtful]]).tolist():
            yield from self._hand(ctx, hand_view(ctx, hand))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        for line in view.lines_of(Verb.EXPOSES):
            if line.seat is None or view.seat(line.seat) is None:
                continue
            for card in line.cards or ():
                if card == UNKNOWN_CARD:
                    continue
                if line.before_draw:
                    yield from self._kept(ctx, view, line, line.seat, card)
                else:
                    yield from self._refused(ctx, view, line, line.seat, card)

    def _kept(self, ctx: Batch, view: HandView, line: Line, seat: int, card: str
              ) -> Iterator[Result]:
        dealt = view.seats[seat].dealt
        if card in dealt:
            return
        if UNKNOWN_CARD in dealt:
            yield ctx.unverifiable(
                view.hand, f"seat {seat}'s dealt cards are ??; exposed {card} unchecked",
                seat=seat)
            return
        yield ctx.finding(
            view.hand, f"{card} was exposed to seat {seat} before the draw but seat {seat} did "
            f"not keep it: dealt {cards_text(dealt)}",
            action=line.row, evidence={"exposed": card, "dealt": list(dealt)},
        )

    def _refused(self, ctx: Batch, view: HandView, line: Line, seat: int, card: str
                 ) -> Iterator[Result]:
        given = receipts_of(view, seat)
        for a in given:
            if card in a.received:
                yield ctx.finding(
                    view.hand, f"{card}, exposed to seat {seat} in the draw (line {line.line}), "
                    f"was given to seat {seat} in {cards_text(a.received)}",
                    action=a.row, seat=seat, evidence={"exposed": card, "exposed_line": line.line,
                                                       "received": list(a.received)},
                )
                return
        if not any(UNKNOWN_CARD in a.received for a in given):
            return
        state = view.seats[seat]
        final = state.shown
        if final is not None and UNKNOWN_CARD not in final:
            if card not in final:
                return
            if card not in state.dealt:
                a = next(a for a in given if UNKNOWN_CARD in a.received)
                yield ctx.finding(
                    view.hand, f"{card}, exposed to seat {seat} in the draw (line {line.line}), "
                    f"is in seat {seat}'s shown hand {cards_text(final)}",
                    action=a.row, seat=seat, evidence={"exposed": card, "exposed_line": line.line,
                                                       "shown": list(final)},
                )
                return
        yield ctx.unverifiable(view.hand, f"seat {seat} received ?? after {card} was exposed "
                               "to it", seat=seat)
