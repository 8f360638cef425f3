"""D308 discard-taken-back."""

from __future__ import annotations

from collections.abc import Iterator

from audit.rule import HandContext, Result, Rule
from audit.rules._draw import cards_text, received, unknown
from schemas.findings import Severity
from schemas.records import UNKNOWN_CARD, Action, Actor, Verb

#: Lines that name a seat's final hand (a muck with its cards recorded is one).
_FINAL = frozenset({Verb.SHOWS, Verb.MUCKS})


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
        L-37 ("Cards discarded ... shall not again be taken into the hand of the
        player discarding them").
    """

    code = "D308"
    name = "discard-taken-back"
    severity = Severity.MAJOR
    source = "L-37"
    summary = "A card a seat discarded appears in its hand again."

    def check(self, ctx: HandContext) -> Iterator[Result]:
        if not any(a.cards for a in ctx.actions_of(Verb.DISCARDS)):
            return  # nothing discarded: nothing can come back, no ?? discard to doubt
        lines: dict[int, list[Action]] = {}
        for a in ctx.record.actions:
            if (a.actor is Actor.SEAT or a.verb is Verb.DEALS) and a.seat is not None:
                lines.setdefault(a.seat, []).append(a)
        for seat, own in lines.items():
            yield from self._seat(ctx, seat, own)

    def _seat(self, ctx: HandContext, seat: int, own: list[Action]) -> Iterator[Result]:
        discarded: list[str] = []
        hidden = False  # some discard was ??
        seen_drawn: list[str] = []
        reported: set[str] = set()
        for a in own:
            if a.verb is Verb.DISCARDS:
                discarded.extend(c for c in a.cards or () if c != UNKNOWN_CARD)
                hidden = hidden or unknown(a.cards or ())
            if a.verb in _FINAL:
                hand = a.cards or ()
                back = [c for c in hand if c in discarded and c not in reported]
                if not back and hidden and any(
                        c not in seen_drawn for c in hand if c != UNKNOWN_CARD):
                    yield ctx.unverifiable(
                        f"seat {seat} discarded ?? cards; its final hand cannot be checked",
                        seat=seat)
                    continue
            else:
                hand = received(a)
                seen_drawn.extend(hand)
                back = [c for c in hand if c in discarded]
            if back:
                reported.update(back)
                yield ctx.finding(
                    f"seat {seat} discarded {cards_text(back)} and "
                    + ("holds it again in its final hand " if a.verb in _FINAL
                       else "was dealt it again in ") + cards_text(hand),
                    action=a, seat=seat, evidence={"cards": back, "hand": list(hand),
                                                   "discarded": list(discarded)},
                )
