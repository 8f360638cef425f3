"""D305 discards-and-draws-differ."""

from __future__ import annotations

from collections.abc import Iterator

from audit.rule import HandContext, Result, Rule
from audit.rules._draw import play_goes_on, receipts, seats_at_draw
from schemas.findings import Severity
from schemas.records import Verb

HAND_SIZE = 5
_DRAW_LINES = frozenset({Verb.DISCARDS, Verb.STANDS_PAT, Verb.DRAWS_FIFTH})


class DiscardsAndDrawsDiffer(Rule):
    """Flags a seat that received another number of cards in the draw than it discarded.

    What it does:
        For every seat in the hand when the draw began, adds up its discards and
        the cards it was given in the draw or later (``draws``, ``draws fifth``, a
        ``Dealer: deals`` after the deal); ``??`` counts as a card. They must be
        equal. A seat short of five cards before the draw may instead be given
        what completes its hand (R-DH 4). Too many cards is flagged on the line
        that went over; too few at the line where play went on past the draw (a
        five-card draw whose fifth card never came is short one card).

    Why it matters:
        A seat that gets more cards than it threw away chooses among extra cards;
        one that gets fewer holds a fouled hand. Either way the deck is off for
        every later seat.

    Example:
        ``Seat 2: discards [9s 5d 3c] draws [Ah 8h]``: three out, two in; D305 at the
        first line after the draw.

    Source:
        L-36: "Before drawing any card or cards, a player shall make his stake equal to
        the highest stake on the table, and he shall discard as many cards, and no more, as
        he intends to draw."
        L-39: "Each player, after discarding, shall ask for the same number of cards he has
        discarded, and the dealer shall place on the table, in front of such player, such
        number of cards, face downwards, from the top of the pack."
    """

    code = "D305"
    name = "discards-and-draws-differ"
    severity = Severity.MAJOR
    source = "L-36, L-39"
    summary = "A seat received a different number of cards in the draw than it discarded."

    def check(self, ctx: HandContext) -> Iterator[Result]:
        replay = ctx.replay
        record = ctx.record
        for n in seats_at_draw(replay):
            seat = replay.seats[n]
            discarded = len(seat.discards)
            lines = list(receipts(replay, n))
            got = sum(len(cards) for _, cards in lines)
            allowed = {discarded}
            if len(seat.dealt) < HAND_SIZE:
                allowed.add(discarded + HAND_SIZE - len(seat.dealt))
            if got in allowed:
                continue
            evidence = {"discarded": discarded, "received": got,
                        "lines": [a.line for a, _ in lines]}
            message = (f"seat {n} discarded {discarded} and received {got} "
                       f"card{'' if got == 1 else 's'}")
            if got > max(allowed):
                total = 0
                for a, cards in lines:
                    total += len(cards)
                    if total > max(allowed):
                        yield ctx.finding(message, action=a, evidence=evidence)
                        break
                continue
            last = max([a.index for a in record.actions
                        if a.seat == n and a.verb in _DRAW_LINES]
                       + [a.index for a, _ in lines] + [(replay.draw_index or 0) - 1])
            yield ctx.finding(message, seat=n, line=play_goes_on(record, last),
                              lines=[a.line for a, _ in lines],
                              evidence=evidence)
