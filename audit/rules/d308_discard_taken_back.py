"""D308 discard-taken-back."""

from __future__ import annotations

from collections.abc import Iterator

from audit.rule import HandContext, Result, Rule
from audit.rules._draw import cards_text, received, unknown
from schemas.findings import Severity
from schemas.records import UNKNOWN_CARD, Action, Actor, Verb

#: Lines that name a seat's final hand (a muck with its cards recorded is one).
_FINAL = frozenset({Verb.SHOWS, Verb.MUCKS})
#: The only lines ``_seat`` acts on: discards, cards received (``received``), final hands.
_MATTER = (Verb.DISCARDS, Verb.DRAWS_FIFTH, Verb.DEALS, *_FINAL)


def _own(a: Action) -> bool:
    """A line about the seat's own cards: the seat's, or the dealer's dealing to it."""
    return (a.actor is Actor.SEAT or a.verb is Verb.DEALS) and a.seat is not None


def _by_first_line(ctx: HandContext, lines: dict[int, list[Action]]) -> list[int]:
    """The seats of ``lines`` in the order of their first own line of the whole hand
    (antes, deal...), so findings come out in the same order as a scan of every line."""
    if len(lines) < 2:
        return list(lines)
    first: dict[int, int] = {}
    for a in ctx.record.actions:
        seat = a.seat
        if seat in lines and seat not in first and _own(a):
            first[seat] = a.index
            if len(first) == len(lines):
                break
    return sorted(lines, key=first.__getitem__)


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

    def check(self, ctx: HandContext) -> Iterator[Result]:
        if not any(a.cards for a in ctx.actions_of(Verb.DISCARDS)):
            return  # nothing discarded: nothing can come back, no ?? discard to doubt
        lines: dict[int, list[Action]] = {}
        for a in ctx.actions_of(*_MATTER):
            if _own(a):
                lines.setdefault(a.seat, []).append(a)  # type: ignore[arg-type]  # _own
        for seat in _by_first_line(ctx, lines):
            yield from self._seat(ctx, seat, lines[seat])

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
