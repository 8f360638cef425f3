"""Helpers of :mod:`audit.fast.certify_cards`: per-seat state, the deal's minimum, P401.

Kept apart so each file stays small. The per-seat state is one int64 row per seat
number (1..10), columns ``ST_*``; the seat's current hand is an int8 row of five
codes (kept cards first, then drawn ones).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from audit.fast.evaluate import strength5
from audit.fast.layout import (
    GAME_DRAW_HIGH,
    H_BUTTON,
    H_GAME,
    H_JACKPOT,
    H_OPENERS,
    H_SEAT_COUNT,
    H_SEAT_START,
    JOKER_CODE,
    K_PROGRESSION_CYCLE,
    OPENERS_ABSENT,
    OPENERS_ANY,
    S_SEAT,
    S_STACK,
    UNKNOWN_CODE,
    CardArray,
    IntArray,
)

MAX_SEAT = 10
HAND = 5
(ST_SEATED, ST_STACK, ST_DEALT, ST_FOLDED, ST_MUCKED, ST_SHOWN, ST_DREW, ST_DISCARDED,
 ST_KEPT, ST_PROOF, ST_PUT, ST_COLLECTED, ST_COLLECTS, ST_PAID, ST_POSITION,
 ST_FIFTH_DUE, ST_FOUR_LINE, ST_SPLIT, ST_UNKNOWN_DEALT, ST_UNKNOWN, ST_DREW_UNKNOWN,
 ST_EXPOSED_IN_DRAW) = range(22)
STATE_COLUMNS = 22
#: ``ST_UNKNOWN_DEALT``: the DEAL line has ``??`` (the reference then rebuilds the deal
#: only from a shown hand, which this certifier refuses: the deal stays unknown).
#: ``ST_UNKNOWN``: a ``??`` was dealt, drawn or discarded by the seat at any time.

#: ``audit.rules._pots.ODD_CHIPS``: chip sizes an uneven split may be made in.
_ODD_CHIPS = (1, 5, 25, 50, 100)


@njit(cache=True, nogil=True)
def deal_minimum(hands: IntArray, h: int, knobs: IntArray, progression: IntArray) -> int:
    """``HandContext.openers_required`` as an OPENERS code: the header, else the
    house progression for ``Jackpot`` (ANY for Draw High); -1 when there is none."""
    header = hands[h, H_OPENERS]
    if header != OPENERS_ABSENT:
        return header
    if hands[h, H_GAME] == GAME_DRAW_HIGH:
        return OPENERS_ANY
    steps = progression.shape[0]
    if steps == 0:
        return -1
    i = max(hands[h, H_JACKPOT], 1) - 1
    if i < steps:
        return progression[i]
    if knobs[K_PROGRESSION_CYCLE] != 0:
        return progression[i % steps]
    return progression[steps - 1]


@njit(cache=True, nogil=True)
def matches_hand(cards: CardArray, start: int, count: int, hand: CardArray, n: int) -> bool:
    """The listed cards are exactly seat ``n``'s five (distinct) cards, in any order."""
    if count != 5:
        return False
    matched = 0
    for k in range(start, start + count):
        found = False
        for j in range(5):
            if hand[n, j] == cards[k] and not matched & (1 << j):
                matched |= 1 << j
                found = True
                break
        if not found:
            return False
    return True


@njit(cache=True, nogil=True)
def _fair_split(state: IntArray, winners: IntArray, count: int) -> bool:
    """The winners' collections are one of ``_pots.fair_splits`` (clockwise order)."""
    total = 0
    for n in range(1, MAX_SEAT + 1):
        total += state[n, ST_COLLECTED]
    for chip in _ODD_CHIPS:
        base = total // (count * chip) * chip
        odd = total - base * count
        fair = True
        for k in range(count):
            extra = min(chip, odd)
            odd -= extra
            if state[winners[k], ST_COLLECTED] != base + extra:
                fair = False
                break
        if fair:
            return True
    return False


@njit(cache=True, nogil=True)
def awarded_to_best(state: IntArray, hand: CardArray, order: IntArray, occupied: int) -> bool:
    """P401 for the one (main) pot: every collector holds the best live hand, and tied
    best hands share what was collected fairly. Live: dealt, not folded, not mucked."""
    collectors = 0
    for n in range(1, MAX_SEAT + 1):
        if state[n, ST_COLLECTS] > 0:
            collectors += 1
            if not state[n, ST_DEALT] or state[n, ST_FOLDED] or state[n, ST_MUCKED]:
                return False
    if collectors == 0:
        return True
    live = 0
    for n in range(1, MAX_SEAT + 1):
        if state[n, ST_DEALT] and not state[n, ST_FOLDED] and not state[n, ST_MUCKED]:
            live += 1
    if live == 1:
        return True  # an uncontested pot needs no cards (not even known ones)
    top = -1
    values = np.full(MAX_SEAT + 1, -1, dtype=np.int64)
    for k in range(occupied):
        n = order[k]
        if state[n, ST_DEALT] and not state[n, ST_FOLDED] and not state[n, ST_MUCKED]:
            # A ``??`` (code 53) gives -1: the reference reports that hand unverifiable.
            value = strength5(hand[n, 0], hand[n, 1], hand[n, 2], hand[n, 3], hand[n, 4])
            if value < 0:
                return False
            values[n] = value
            top = max(top, value)
    winners = np.zeros(MAX_SEAT + 1, dtype=np.int64)
    count = 0
    for k in range(occupied):
        n = order[k]
        if values[n] == top:
            winners[count] = n
            count += 1
    for n in range(1, MAX_SEAT + 1):
        if state[n, ST_COLLECTS] > 0 and values[n] != top:
            return False
    return count == 1 or _fair_split(state, winners, count)


@njit(cache=True, nogil=True)
def cards_allowed(cards: CardArray, start: int, count: int, joker: bool,
                  unknown_ok: bool) -> bool:
    """No joker in a deck without it (D307), and no ``??`` unless ``unknown_ok`` (the
    lines whose unknown cards :mod:`audit.fast.certify_cards_unknown` follows)."""
    for k in range(start, start + count):
        c = cards[k]
        if c < 0 or c > UNKNOWN_CODE or (c == UNKNOWN_CODE and not unknown_ok) or (
                c == JOKER_CODE and not joker):
            return False
    return True


@njit(cache=True, nogil=True)
def place(cards: CardArray, start: int, count: int, used: np.ndarray) -> bool:
    """Take ``count`` cards off the deck; False when one is already out (D307). A ``??``
    is no card to compare: the reference never counts it as a duplicate."""
    for k in range(start, start + count):
        c = cards[k]
        if c == UNKNOWN_CODE:
            continue
        if used[c]:
            return False
        used[c] = True
    return True


@njit(cache=True, nogil=True)
def in_dealt(cards: CardArray, start: int, count: int, dealt: CardArray, n: int) -> bool:
    """Every card of the list was dealt to seat ``n`` (repeats are caught by the caller)."""
    for k in range(start, start + count):
        found = False
        for j in range(HAND):
            if dealt[n, j] == cards[k]:
                found = True
                break
        if not found:
            return False
    return True


@njit(cache=True, nogil=True)
def dealt_holds(dealt: CardArray, n: int, card: int) -> bool:
    """Seat ``n`` was dealt ``card``."""
    held = False
    for j in range(HAND):
        held = held or dealt[n, j] == card
    return held


@njit(cache=True, nogil=True)
def seat_table(h: int, hands: IntArray, seats: IntArray, state: IntArray,
               order: IntArray) -> int:
    """Seat the hand's players; ``order`` is ``Replay.order`` (clockwise from the first
    seat left of the button). Returns how many seats, or -1 for a seat line not followed."""
    for i in range(hands[h, H_SEAT_START], hands[h, H_SEAT_START] + hands[h, H_SEAT_COUNT]):
        n = seats[i, S_SEAT]
        if n < 1 or n > MAX_SEAT or state[n, ST_SEATED]:
            return -1
        state[n, ST_SEATED] = 1
        state[n, ST_STACK] = seats[i, S_STACK]
    # Clockwise from the first seat left of the button (Replay.order).
    button = hands[h, H_BUTTON]
    occupied = 0
    for n in range(max(button + 1, 1), MAX_SEAT + 1):
        if state[n, ST_SEATED]:
            state[n, ST_POSITION] = occupied
            order[occupied] = n
            occupied += 1
    for n in range(1, min(button, MAX_SEAT) + 1):
        if state[n, ST_SEATED]:
            state[n, ST_POSITION] = occupied
            order[occupied] = n
            occupied += 1
    return occupied
