"""The draw and the openers questions of :mod:`audit.fast.certify_cards`, ``??`` included.

A live dealer does not record the cards of folded hands: their DEAL and draw lines
read ``[?? ?? ?? ?? ??]``. The reference engine (``audit/replay/cards.py``,
``audit/rules``) is silent about such a seat as long as no rule needs its cards, and
reports *unverifiable* as soon as one does. This module follows unknown cards
(code 53) the way the reference does, and says 0 wherever one would be needed:

- In the draw (``Replay._discard`` / ``SeatState.hand_after_draw``) a discard the
  seat does not visibly hold replaces one of its ``??`` cards; a known one so
  revealed is a card of the deal (D307 ``_Deck._discard``: it must not be out
  already). A ``??`` is never a card in the duplicate checks.
- O201: a ``??`` deal is rebuilt by the reference only from a shown final hand, and
  seats with unknown cards that show or muck cards are refused (D308 and P404 would
  need them), so the deal stays unknown and only a valid ``shows openers`` proves the
  opener held openers (``_openers.had_openers``, ``proof``: any cards holding
  openers count when the deal is unknown). O202 and O210 take the same proof.
- O207 (houses that set discards aside when splitting): an opener whose deal is
  unknown and that discarded without declaring a split is unverifiable.
- O208: a seat that split and was paid needs its final hand and discards.
- D306: a card exposed in the draw to a seat that then drew ``??`` is unverifiable.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from audit.fast.certify_cards_helpers import (
    HAND,
    MAX_SEAT,
    ST_DISCARDED,
    ST_DREW_UNKNOWN,
    ST_EXPOSED_IN_DRAW,
    ST_FIFTH_DUE,
    ST_FOLDED,
    ST_FOUR_LINE,
    ST_KEPT,
    ST_PAID,
    ST_PROOF,
    ST_SHOWN,
    ST_SPLIT,
    ST_UNKNOWN,
    ST_UNKNOWN_DEALT,
    place,
)
from audit.fast.evaluate import could_have_held_openers_counted, holds_openers, is_openers
from audit.fast.layout import OPENERS_ANY, UNKNOWN_CODE, CardArray, IntArray

#: R-DH 5: at most four cards in one go (a five-card draw gets the fifth later).
MAX_AT_ONCE = 4


@njit(cache=True, nogil=True)
def holds_unknown(cards: CardArray, start: int, count: int) -> bool:
    """The list has a ``??``."""
    seen = False
    for k in range(start, start + count):
        seen = seen or cards[k] == UNKNOWN_CODE
    return seen


@njit(cache=True, nogil=True)
def apply_draw(n: int, e: int, cards: CardArray, cs: int, cc: int, ds: int, dc: int,
               state: IntArray, hand: CardArray, thrown: CardArray, used: np.ndarray) -> bool:
    """Apply ``discards [..] draws [..]``: 1..4 held cards out and as many new ones in,
    or all five out and four in (the fifth comes by ``draws fifth``, see D303)."""
    five = cc == HAND and dc == MAX_AT_ONCE
    if cc < 1 or (cc > MAX_AT_ONCE and not five) or (dc != cc and not five):
        return False
    kept = HAND
    for k in range(cs, cs + cc):
        c = cards[k]
        found = -1
        for j in range(kept):
            if hand[n, j] == c:
                found = j
                break
        if found < 0:
            # Not visibly held: it was one of the seat's ?? cards (hand_after_draw).
            for j in range(kept):
                if hand[n, j] == UNKNOWN_CODE:
                    found = j
                    break
            if found < 0:  # a card it does not hold (or discards twice)
                return False
            # A known card so revealed was dealt: it must not be out already (D307).
            if c != UNKNOWN_CODE and not place(cards, k, 1, used):
                return False
        if c == UNKNOWN_CODE:
            state[n, ST_UNKNOWN] = 1
        thrown[n, k - cs] = c
        for j in range(found, kept - 1):
            hand[n, j] = hand[n, j + 1]
        kept -= 1
    if not place(cards, ds, dc, used):
        return False
    if holds_unknown(cards, ds, dc):
        state[n, ST_UNKNOWN] = 1
        state[n, ST_DREW_UNKNOWN] = 1
    for k in range(dc):
        hand[n, kept + k] = cards[ds + k]
    state[n, ST_KEPT] = kept
    state[n, ST_DISCARDED] = cc
    state[n, ST_FIFTH_DUE] = 1 if five else 0
    state[n, ST_FOUR_LINE] = e
    return True


@njit(cache=True, nogil=True)
def openers_certified(opener: int, minimum: int, bobtail: bool, set_aside_when_splitting: bool,
                      state: IntArray, hand: CardArray, dealt: CardArray,
                      thrown: CardArray) -> bool:
    """O201, O207, O202, O210 of the opener and O208 of every seat, at the hand's end;
    D306 of cards exposed in the draw to seats that drew ``??``."""
    for n in range(1, MAX_SEAT + 1):
        if state[n, ST_EXPOSED_IN_DRAW] and state[n, ST_DREW_UNKNOWN]:
            return False  # D306 cannot tell whether the exposed card came back
    if minimum == OPENERS_ANY:
        return True
    if opener != 0:
        proved = state[opener, ST_PROOF] or state[opener, ST_SHOWN]
        if state[opener, ST_UNKNOWN_DEALT]:
            if not state[opener, ST_PROOF]:
                return False  # O201: the deal is unknown and nothing else proves it
            if (set_aside_when_splitting and not state[opener, ST_SPLIT]
                    and state[opener, ST_DISCARDED] > 0):
                return False  # O207 needs the dealt cards
        else:
            if is_openers(dealt[opener], 0, HAND, minimum, bobtail) != 1:
                return False  # O201
            if (set_aside_when_splitting and not state[opener, ST_SPLIT]
                    and state[opener, ST_DISCARDED] > 0
                    and holds_openers(hand[opener], 0, state[opener, ST_KEPT], minimum,
                                      bobtail) != 1):
                return False  # O207: kept cards no longer open by themselves
        if (state[opener, ST_PAID] or state[opener, ST_FOLDED]) and not proved:
            return False  # O202 / O210
    for n in range(1, MAX_SEAT + 1):
        if not (state[n, ST_SPLIT] and state[n, ST_PAID]):
            continue
        if state[n, ST_UNKNOWN]:
            return False  # O208 needs the final hand and the discards
        # O208: a seat that split and was paid could have been dealt openers.
        if could_have_held_openers_counted(hand[n], 0, HAND, thrown[n], 0,
                                           state[n, ST_DISCARDED], minimum, bobtail) != 1:
            return False
    return True
