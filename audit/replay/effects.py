"""The lines of a hand that are not betting: draw, showdown, dealer and floor lines.

A mixin of :class:`~audit.replay.replay.Replay`, kept apart so each file stays small;
it only records what the line says on the seat and the replay's lists.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from schemas.records import SECTION_POSITION, Action, Section, Verb

from .state import SeatState

if TYPE_CHECKING:
    from .state import Step

_POSITION = SECTION_POSITION
_DRAW_POS = _POSITION[Section.DRAW]


class LineEffects:
    """Apply non-betting lines (the attributes are the :class:`Replay`'s)."""

    opener: int | None
    pot_open: bool
    declarations: list[tuple[int, int]]
    false_openers: list[tuple[int, int]]
    draw_lines: list[tuple[int, int]]
    burns: list[tuple[int, tuple[str, ...]]]
    exposes: list[tuple[int, int | None, tuple[str, ...], Section]]
    deals: list[tuple[int, int | None, tuple[str, ...], Section]]
    collections: list[tuple[int, int, int, int]]
    misdeal_index: int | None
    penalties: int
    _pending: set[int]
    steps: list[Step]

    def _other(self, a: Action, seat: SeatState, amount: int) -> int:
        verb = a.verb
        i = a.index
        if verb is Verb.WITHDRAWS:
            seat.withdrawn += amount
            seat.stack += amount
            seat.total -= amount
            seat.stake = max(seat.stake - amount, 0)
            return -amount
        if verb is Verb.DECLARES_OPENERS:
            self.declarations.append((i, seat.seat))
            self.opener = seat.seat
            self.pot_open = True
        elif verb is Verb.SHOWS_OPENERS:
            seat.openers_shown.append(a.cards or ())
        elif verb is Verb.SPLITS_OPENERS:
            seat.split_openers = True
        elif verb is Verb.DISCARDS:
            self._discard(seat, a.cards or (), a.drawn or ())
            self.draw_lines.append((i, seat.seat))
        elif verb is Verb.STANDS_PAT:
            seat.stood_pat = True
            self.draw_lines.append((i, seat.seat))
        elif verb is Verb.DRAWS_FIFTH:
            seat.fifth.extend(a.cards or ())
            self.draw_lines.append((i, seat.seat))
        elif verb is Verb.SHOWS:
            seat.shown = a.cards or ()
            seat.shown_index = i
            seat.reading = a.reading
        elif verb is Verb.MUCKS:
            seat.mucked = True
            seat.mucked_cards = a.cards
        elif verb is Verb.RETRIEVES_HAND:
            # Retrieved to prove openers (R-JB 7): the hand stays mucked, not live (rules.md).
            seat.retrieved = True
        elif verb is Verb.COLLECTS:
            seat.collected += amount
            seat.stack += amount
            self.collections.append((i, seat.seat, amount, a.side_pot or 0))
        return 0

    def _discard(self, seat: SeatState, discards: tuple[str, ...], drawn: tuple[str, ...]) -> None:
        held = seat.hand_after_draw()
        for card in discards:
            if card != "??" and card not in held:
                seat.discard_mismatch.append(card)
        seat.discards.extend(discards)
        seat.drawn.extend(drawn)

    def _dealer_or_floor(self, a: Action, seat: SeatState | None = None) -> int:
        verb = a.verb
        cards = a.cards or ()
        i = a.index
        if verb is Verb.BURNS:
            self.burns.append((i, cards))
        elif verb is Verb.EXPOSES:
            self.exposes.append((i, a.seat, cards, a.section))
        elif verb is Verb.DEALS:
            self.deals.append((i, a.seat, cards, a.section))
            if seat is not None:
                # Cards owed before the draw complete the dealt hand; later ones are drawn.
                target = seat.dealt if _POSITION[a.section] < _DRAW_POS else seat.drawn
                target.extend(cards)
        elif verb is Verb.MISDEAL:
            self.misdeal_index = i
        elif seat is None:
            return 0
        elif verb is Verb.RETURNS:
            amount = a.amount or 0
            seat.returned += amount
            seat.stack += amount
            seat.total -= amount
            seat.stake = max(seat.stake - amount, 0)
            return -amount
        elif verb is Verb.PENALTY:
            amount = a.amount or 0
            seat.penalties += amount
            seat.stack -= amount
            self.penalties += amount
            return amount
        elif verb is Verb.FALSE_OPENERS:
            seat.dead = seat.false_opener = True
            self.false_openers.append((i, seat.seat))
            if self.opener == seat.seat:
                self.opener = None
            self._pending.discard(seat.seat)
        elif verb is Verb.FOULED_HAND:
            seat.dead = seat.fouled = True
            self._pending.discard(seat.seat)
        return 0
