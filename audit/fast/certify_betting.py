"""Certify the betting and the chips of a hand: a strict compiled replay of the common path.

:func:`certify_betting` walks each hand's events in log order, the way
:class:`audit.replay.Replay` does, and certifies a hand only when the reference
engine can report nothing (no finding, nothing unverifiable) for the betting and
money rules B101-B108, O203-O206, O211, P402 and P403. It does not judge what
those rules judge; it accepts only the shape of a hand where every one of them is
trivially silent:

- only the verbs of an ordinary hand, each in its own section: antes, deal lines
  (and dealer exposures), checks/opens/calls/raises/folds before the draw (and the
  house's ``Floor: Seat N penalty X`` after a fold before the open, where it charges
  one), discards/stands pat/draws fifth/splits openers (and dealer burns and
  exposures) in the draw, checks/bets/calls/raises/folds after it, shows/mucks at
  the showdown, ``shows openers`` by the opener, plain ``collects`` in the result;
- no all-in (neither written nor by running out of chips), no side pot, no
  withdrawal, return, ruling or misdeal line: the openers-dispute rules
  (O203-O206), B107 and P403 have nothing to read;
- every turn verb by the seat whose turn it is, for exactly the right amount, the
  cap as B101 counts it, every round complete before the next section;
- the chips balance as P402 computes them.

Anything else (even a legal oddity) returns 0: the hand goes to the reference
engine. A 0 costs time; a wrong 1 would lose a finding.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from audit.fast.certify_betting_rounds import (
    ANTED,
    COLLECTS,
    COLUMNS,
    DEALT,
    DRAW_K,
    FIFTH,
    FOLDED,
    IN_HAND,
    NEXT,
    OPEN,
    OPENER,
    OWES,
    PAID,
    PENALTY,
    PUT_IN,
    SEATED,
    SHOWN,
    SLOTS,
    SPLIT,
    STACK,
    STATE,
    betting_line,
    close_section,
    enter_section,
    put,
)
from audit.fast.layout import (
    ACTOR_DEALER,
    ACTOR_FLOOR,
    ACTOR_SEAT,
    E_ACTOR,
    E_ALL_IN,
    E_AMOUNT,
    E_SEAT,
    E_SECTION,
    E_SIDE_POT,
    E_VERB,
    H_ANTE,
    H_BIG,
    H_BUTTON,
    H_CARRIED,
    H_CARRIED_OUT,
    H_EVENT_COUNT,
    H_EVENT_START,
    H_POT,
    H_RAKE,
    H_SEAT_COUNT,
    H_SEAT_START,
    H_SMALL,
    H_STATUS,
    K_ABANDON_PENALTY,
    K_AFTER_DRAW_MULTIPLE,
    S_SEAT,
    S_STACK,
    SEC_AFTER_DRAW,
    SEC_ANTES,
    SEC_BEFORE_DRAW,
    SEC_DEAL,
    SEC_DRAW,
    SEC_RESULT,
    SEC_SHOWDOWN,
    V_ANTES,
    V_BURNS,
    V_COLLECTS,
    V_DEALT,
    V_DISCARDS,
    V_DRAWS_FIFTH,
    V_EXPOSES,
    V_MUCKS,
    V_PENALTY,
    V_SHOWS,
    V_SHOWS_OPENERS,
    V_SPLITS_OPENERS,
    V_STANDS_PAT,
    CardArray,
    IntArray,
)


@njit(cache=True, nogil=True)
def _dealer_or_floor(seat_state: IntArray, st: IntArray, events: IntArray, e: int,
                     section: int, knobs: IntArray) -> bool:
    """A dealer or floor line: burns and exposures, and the abandon penalty (O211)."""
    verb = events[e, E_VERB]
    seat = events[e, E_SEAT]
    if events[e, E_ACTOR] == ACTOR_DEALER:
        if verb == V_BURNS:
            return section == SEC_DRAW
        # An exposed card is the cards' question (D306); it moves no chips.
        return (verb == V_EXPOSES and section in (SEC_DEAL, SEC_DRAW)
                and 1 <= seat < SLOTS and seat_state[seat, SEATED] == 1)
    if events[e, E_ACTOR] != ACTOR_FLOOR or verb != V_PENALTY or section != SEC_BEFORE_DRAW:
        return False
    # Only the house's penalty, once, for a seat that folded before the open.
    if not (1 <= seat < SLOTS) or seat_state[seat, OWES] != 1:
        return False
    if events[e, E_AMOUNT] != knobs[K_ABANDON_PENALTY]:
        return False
    seat_state[seat, OWES] = 2
    seat_state[seat, PENALTY] += events[e, E_AMOUNT]
    st[PUT_IN] += events[e, E_AMOUNT]
    return True


@njit(cache=True, nogil=True)
def _draw_line(seat_state: IntArray, st: IntArray, order: IntArray, count: int,
               verb: int, seat: int) -> bool:
    """A player's DRAW line: served once each, clockwise from left of the button."""
    if seat_state[seat, FOLDED]:
        return False
    if verb in (V_DISCARDS, V_STANDS_PAT):
        while st[DRAW_K] < count and seat_state[order[st[DRAW_K]], FOLDED]:
            st[DRAW_K] += 1
        if st[DRAW_K] >= count or order[st[DRAW_K]] != seat:
            return False
        st[DRAW_K] += 1
        return True
    if verb == V_DRAWS_FIFTH:
        # The fifth card's timing is D303's; here: once, by a seat that has drawn.
        if seat_state[seat, FIFTH] or not _has_drawn(seat_state, st, order, seat):
            return False
        seat_state[seat, FIFTH] = 1
        return True
    if verb == V_SPLITS_OPENERS:
        if seat != st[OPENER] or seat_state[seat, SPLIT]:
            return False
        seat_state[seat, SPLIT] = 1
        return True
    return False


@njit(cache=True, nogil=True)
def _has_drawn(seat_state: IntArray, st: IntArray, order: IntArray, seat: int) -> bool:
    for i in range(st[DRAW_K]):  # noqa: SIM110 (a plain loop compiles best)
        if order[i] == seat:
            return True
    return False


@njit(cache=True, nogil=True)
def _line(seat_state: IntArray, st: IntArray, order: IntArray, count: int,
          events: IntArray, e: int, section: int, hand: IntArray, knobs: IntArray) -> bool:
    """One event inside ``section``; False unless it is on the common path."""
    verb = events[e, E_VERB]
    seat = events[e, E_SEAT]
    if events[e, E_ALL_IN] != 0 or events[e, E_SIDE_POT] != 0:
        return False
    if events[e, E_ACTOR] != ACTOR_SEAT:
        return _dealer_or_floor(seat_state, st, events, e, section, knobs)
    if seat < 1 or seat >= SLOTS or seat_state[seat, SEATED] == 0:
        return False
    if verb == V_SHOWS_OPENERS:
        # The opener may prove its openers wherever it gives up or shows (O210's
        # business); a folded opener too. Nobody else has openers to show.
        return (st[OPEN] == 1 and seat == st[OPENER]
                and section in (SEC_BEFORE_DRAW, SEC_AFTER_DRAW, SEC_SHOWDOWN))
    if section in (SEC_BEFORE_DRAW, SEC_AFTER_DRAW):
        return betting_line(seat_state, st, order, count, events, e, section, knobs)
    if section == SEC_ANTES:
        if verb != V_ANTES or seat_state[seat, ANTED] or events[e, E_AMOUNT] != hand[H_ANTE]:
            return False
        seat_state[seat, ANTED] = 1
        return put(seat_state, st, seat, events[e, E_AMOUNT], False)
    if section == SEC_DEAL:
        if verb != V_DEALT or seat_state[seat, DEALT]:
            return False
        seat_state[seat, DEALT] = 1
        return True
    if section == SEC_DRAW:
        return _draw_line(seat_state, st, order, count, verb, seat)
    if seat_state[seat, FOLDED]:
        return False  # a folded seat shows, mucks or collects nothing (B104)
    if section == SEC_SHOWDOWN:
        if (verb != V_SHOWS and verb != V_MUCKS) or seat_state[seat, SHOWN]:
            return False
        seat_state[seat, SHOWN] = 1
        return True
    if section == SEC_RESULT:
        if verb != V_COLLECTS or events[e, E_AMOUNT] < 0 or st[OPEN] == 0:
            return False
        st[PAID] += events[e, E_AMOUNT]
        st[COLLECTS] += 1
        return True
    return False


@njit(cache=True, nogil=True)
def _seat_the_table(hand: IntArray, seats: IntArray, seat_state: IntArray, order: IntArray,
                    count: int) -> bool:
    """Fill the seats' rows and ``order`` (clockwise from left of the button, as
    ``Replay.order``); False on a seat number out of range or seated twice."""
    first = hand[H_SEAT_START]
    for i in range(count):
        n = seats[first + i, S_SEAT]
        if n < 1 or n >= SLOTS or seat_state[n, SEATED]:
            return False
        seat_state[n, SEATED] = 1
        seat_state[n, STACK] = seats[first + i, S_STACK]
    button = hand[H_BUTTON]
    k = 0
    for n in range(max(button + 1, 1), SLOTS):
        if seat_state[n, SEATED]:
            order[k] = n
            k += 1
    for n in range(1, min(button + 1, SLOTS)):
        if seat_state[n, SEATED]:
            order[k] = n
            k += 1
    for i in range(count):
        seat_state[order[i], NEXT] = order[(i + 1) % count]
    return True


@njit(cache=True, nogil=True)
def _certify_hand(hand: IntArray, seats: IntArray, events: IntArray, knobs: IntArray,
                  seat_state: IntArray, st: IntArray, order: IntArray) -> bool:
    if hand[H_STATUS] != 0:
        return False
    small = hand[H_SMALL]
    big = hand[H_BIG]
    ante = hand[H_ANTE]
    # B102 reads the after-draw unit from ``Limit``; the house's multiple must agree.
    if small <= 0 or big != knobs[K_AFTER_DRAW_MULTIPLE] * small or ante < 0:
        return False
    if hand[H_CARRIED] < 0 or hand[H_RAKE] < 0:
        return False
    count = hand[H_SEAT_COUNT]
    if count < 2 or count >= SLOTS:
        return False
    seat_state[:, :] = 0
    st[:] = 0
    if not _seat_the_table(hand, seats, seat_state, order, count):
        return False
    st[IN_HAND] = count
    st[PUT_IN] = hand[H_CARRIED]
    section = SEC_ANTES
    start = hand[H_EVENT_START]
    for e in range(start, start + hand[H_EVENT_COUNT]):
        sec = events[e, E_SECTION]
        if sec < section:
            return False
        while section < sec:  # leave every section up to this one, present or not
            if not close_section(seat_state, st, order, count, section, ante):
                return False
            section += 1
            if section == sec and not enter_section(seat_state, st, order, count, sec,
                                                    small, big):
                return False
        if not _line(seat_state, st, order, count, events, e, sec, hand, knobs):
            return False
    while section < SEC_RESULT:
        if not close_section(seat_state, st, order, count, section, ante):
            return False
        section += 1
    # The hand's path: opened and paid out, or passed out and carried.
    carried_out = hand[H_CARRIED_OUT]
    if st[OPEN] == 1:
        if carried_out != -1 or st[COLLECTS] == 0:
            return False
    elif carried_out < 0:
        return False
    # P402, both balances, as the rule computes them (penalties are chips put in).
    pot = hand[H_POT]
    if st[PUT_IN] != pot:
        return False
    return st[PAID] + hand[H_RAKE] + max(carried_out, 0) == pot


@njit(cache=True, nogil=True)
def certify_betting(hands: IntArray, seats: IntArray, events: IntArray, cards: CardArray,
                    knobs: IntArray) -> np.ndarray:
    """1 per hand whose betting and chips the reference engine passes for certain
    (no B101-B108, O203-O206, O211, P402 or P403 result), 0 to send it to the engine.

    ``cards`` is not read (the cards are ``certify_cards``' part); it is taken so every
    certifier has the same signature.
    """
    out = np.zeros(hands.shape[0], dtype=np.int8)
    seat_state = np.zeros((SLOTS, COLUMNS), dtype=np.int64)
    st = np.zeros(STATE, dtype=np.int64)
    order = np.zeros(SLOTS, dtype=np.int64)
    for h in range(hands.shape[0]):
        if _certify_hand(hands[h], seats, events, knobs, seat_state, st, order):
            out[h] = 1
    return out
