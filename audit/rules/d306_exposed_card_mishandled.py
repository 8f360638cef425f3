"""D306 exposed-card-mishandled."""

from __future__ import annotations

from collections.abc import Iterator

from audit.replay import known
from audit.rule import HandContext, Result, Rule
from audit.rules._draw import before_draw, cards_text, receipts, unknown
from schemas.findings import Severity
from schemas.records import UNKNOWN_CARD, Action


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

    def check(self, ctx: HandContext) -> Iterator[Result]:
        for index, seat, cards, _ in ctx.replay.exposes:
            line = ctx.record.actions[index]
            if seat is None or ctx.replay.seat(seat) is None:
                continue
            for card in cards:
                if card == UNKNOWN_CARD:
                    continue
                if before_draw(line):
                    yield from self._kept(ctx, line, seat, card)
                else:
                    yield from self._refused(ctx, line, seat, card)

    def _kept(self, ctx: HandContext, line: Action, seat: int, card: str) -> Iterator[Result]:
        """Before the draw the exposed card stays with the seat."""
        dealt = ctx.replay.seats[seat].dealt
        if card in dealt:
            return
        if unknown(dealt):
            yield ctx.unverifiable(f"seat {seat}'s dealt cards are ??; exposed {card} unchecked",
                                   seat=seat)
            return
        yield ctx.finding(
            f"{card} was exposed to seat {seat} before the draw but seat {seat} did not keep "
            f"it: dealt {cards_text(dealt)}",
            action=line, evidence={"exposed": card, "dealt": list(dealt)},
        )

    def _refused(self, ctx: HandContext, line: Action, seat: int, card: str) -> Iterator[Result]:
        """In the draw the exposed card goes aside; the seat gets the next one."""
        given = list(receipts(ctx.replay, seat))
        for a, cards in given:
            if card in cards:
                yield ctx.finding(
                    f"{card}, exposed to seat {seat} in the draw (line {line.line}), was "
                    f"given to seat {seat} in {cards_text(cards)}",
                    action=a, seat=seat, evidence={"exposed": card, "exposed_line": line.line,
                                                   "received": list(cards)},
                )
                return
        if not any(unknown(cards) for _, cards in given):
            return
        state = ctx.replay.seats[seat]
        final = state.shown
        if final is not None and known(final):
            if card not in final:
                return
            if card not in state.dealt:
                # Shown but neither dealt nor openly drawn: it came in as a ?? card.
                a, cards = next((a, c) for a, c in given if unknown(c))
                yield ctx.finding(
                    f"{card}, exposed to seat {seat} in the draw (line {line.line}), is in "
                    f"seat {seat}'s shown hand {cards_text(final)}",
                    action=a, seat=seat, evidence={"exposed": card, "exposed_line": line.line,
                                                   "shown": list(final)},
                )
                return
        yield ctx.unverifiable(f"seat {seat} received ?? after {card} was exposed to it",
                               seat=seat)
