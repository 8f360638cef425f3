"""What a seat held, as far as the log proves it (rules.md, "Evidence").

Cards a seat was dealt are read from its DEAL line; where that line has ``??``
but the seat's kept cards and discards are all known, the dealt hand is rebuilt
from them (kept = shown final hand less the cards drawn). A rule whose cards are
still unknown reports the hand unverifiable, so these helpers return ``None``
rather than a guess.
"""

from __future__ import annotations

from collections.abc import Iterable

from schemas.records import UNKNOWN_CARD

from .state import SeatState


def known(cards: Iterable[str] | None) -> bool:
    """True when ``cards`` is given and holds no ``??``."""
    return cards is not None and UNKNOWN_CARD not in cards


def minus(cards: Iterable[str], remove: Iterable[str]) -> list[str] | None:
    """Multiset difference; None when ``remove`` holds a card ``cards`` lacks."""
    rest = list(cards)
    for card in remove:
        if card not in rest:
            return None
        rest.remove(card)
    return rest


def rebuild_dealt(seat: SeatState) -> tuple[str, ...] | None:
    """The cards dealt to ``seat`` before the draw, or None if the log cannot prove them."""
    if seat.dealt and known(seat.dealt):
        return tuple(seat.dealt)
    if not known(seat.shown) or not known(seat.discards):
        return None
    if not known(seat.drawn) or not known(seat.fifth):
        return None
    assert seat.shown is not None  # known() checked it
    kept = minus(seat.shown, (*seat.drawn, *seat.fifth))
    if kept is None:
        return None
    return (*kept, *seat.discards)


def final_hand(seat: SeatState) -> tuple[str, ...] | None:
    """The seat's hand after the draw: its shown cards, else the replayed hand if known."""
    if seat.shown is not None:
        return seat.shown if known(seat.shown) else None
    if not seat.dealt:
        return None
    hand = seat.hand_after_draw()
    return hand if known(hand) else None
