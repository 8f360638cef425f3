"""The betting rounds and sections of :mod:`audit.fast.certify_betting`'s strict replay.

Compiled helpers over two scratch arrays reset per hand: ``seat_state`` (one row per
seat number 1..10, columns below) and ``st`` (the hand's state, slots below). They
mirror :class:`audit.replay.Replay` for hands with no all-in seat, no dead hand and
no withdrawal: under those conditions the replay's turn, level and pending sets
reduce to what is kept here. Each returns False as soon as a line leaves the
common path, so the caller can stop and send the hand to the engine.
"""

from __future__ import annotations

from numba import njit

from audit.fast.layout import (
    E_AMOUNT,
    E_SEAT,
    E_TO_AMOUNT,
    E_VERB,
    K_ABANDON_PENALTY,
    K_CAP_RAISES,
    SEC_AFTER_DRAW,
    SEC_ANTES,
    SEC_BEFORE_DRAW,
    SEC_DEAL,
    SEC_DRAW,
    SEC_SHOWDOWN,
    V_BETS,
    V_CALLS,
    V_CHECKS,
    V_FOLDS,
    V_OPENS,
    V_RAISES,
    IntArray,
)

SLOTS = 11  # seat numbers 1..10 index the per-seat rows directly

# Per-seat columns of ``seat_state``. OWES: 1 after a fold before the open that the
# house penalises, 2 once the penalty line came.
(STACK, TOTAL, STAKE, SEATED, FOLDED, ANTED, DEALT, PENDING, NEXT, SHOWN, OWES, PENALTY,
 FIFTH, SPLIT) = range(14)
COLUMNS = 14

# Slots of ``st``. OPEN: the pot was opened before the draw; NEED_PLAY: it was opened
# and two or more seats are left, so a draw and a second round must follow.
(BET, LEVEL, MULTI, PTR, OPEN, OPENER, IN_HAND, PUT_IN, NEED_PLAY, DRAW_K, SEEN_BEFORE,
 SEEN_AFTER, SEEN_SHOWDOWN, PAID, COLLECTS, UNIT) = range(16)
STATE = 16


@njit(cache=True, nogil=True)
def turn(seat_state: IntArray, order: IntArray, count: int, ptr: int) -> int:
    """The seat whose turn it is: first pending seat clockwise from ``ptr`` (0: none).

    With no all-in seat this is exactly ``Replay._turn``.
    """
    n = ptr
    for _ in range(count):
        if seat_state[n, PENDING]:
            return n
        n = seat_state[n, NEXT]
    return 0


@njit(cache=True, nogil=True)
def put(seat_state: IntArray, st: IntArray, seat: int, chips: int, stake: bool) -> bool:
    """Move ``chips`` of ``seat`` into the pot; False if that leaves it with no chips
    (the replay would then mark it all-in)."""
    seat_state[seat, TOTAL] += chips
    if stake:
        seat_state[seat, STAKE] += chips
    st[PUT_IN] += chips
    left = seat_state[seat, STACK] - seat_state[seat, TOTAL] - seat_state[seat, PENALTY]
    return not (chips > 0 and left <= 0)


@njit(cache=True, nogil=True)
def open_round(seat_state: IntArray, st: IntArray, order: IntArray, count: int,
               start: int, unit: int) -> None:
    """Start a betting round: every seat in the hand is to act, from ``start``."""
    st[BET] = 0
    st[LEVEL] = 0
    st[MULTI] = 0
    st[UNIT] = unit
    for i in range(count):
        n = order[i]
        seat_state[n, STAKE] = 0
        seat_state[n, PENDING] = 1 - seat_state[n, FOLDED]
    st[PTR] = start


@njit(cache=True, nogil=True)
def raise_to(seat_state: IntArray, st: IntArray, order: IntArray, count: int, seat: int,
             new_bet: int, cap: int) -> bool:
    """Apply a bet or full raise (``Replay._raise_to`` / ``_reopen``); False if B101
    would flag it. The caller has checked the size is one unit (an open: one or two)."""
    level_before = st[LEVEL]
    multi_before = st[MULTI]
    contenders = st[IN_HAND]  # no seat is all-in in a certified hand
    units = (new_bet - st[BET]) // st[UNIT]
    st[BET] = new_bet
    st[LEVEL] = level_before + units
    if cap >= 0:
        limit = cap + 1
        level_after = st[LEVEL]
        if (level_after > limit and level_after > level_before
                and (multi_before >= limit or contenders >= 3)):
            return False
    for i in range(count):
        n = order[i]
        seat_state[n, PENDING] = 1 - seat_state[n, FOLDED]
    seat_state[seat, PENDING] = 0
    if st[IN_HAND] >= 3 and st[LEVEL] > st[MULTI]:
        st[MULTI] = st[LEVEL]
    return True


@njit(cache=True, nogil=True)
def betting_line(seat_state: IntArray, st: IntArray, order: IntArray, count: int,
                 events: IntArray, e: int, section: int, knobs: IntArray) -> bool:
    """One turn verb of a betting round; False unless it is exactly right."""
    verb = events[e, E_VERB]
    seat = events[e, E_SEAT]
    if turn(seat_state, order, count, st[PTR]) != seat:
        return False  # out of turn, or the round was already complete
    unit = st[UNIT]
    owed = st[BET] - seat_state[seat, STAKE]
    amount = events[e, E_AMOUNT]
    if verb == V_CHECKS:
        if owed != 0:
            return False
    elif verb == V_FOLDS:
        if section == SEC_BEFORE_DRAW and st[OPEN] == 0 and knobs[K_ABANDON_PENALTY] > 0:
            seat_state[seat, OWES] = 1  # O211: a `Floor: Seat N penalty X` must follow
        seat_state[seat, FOLDED] = 1
        st[IN_HAND] -= 1
    elif verb == V_CALLS:
        if owed <= 0 or amount != owed:
            return False
        if not put(seat_state, st, seat, amount, True):
            return False
    elif verb == V_OPENS:
        if section != SEC_BEFORE_DRAW or st[OPEN] != 0 or st[BET] != 0:
            return False
        if amount != unit and amount != 2 * unit:
            return False
        if not put(seat_state, st, seat, amount, True):
            return False
        st[OPEN] = 1
        st[OPENER] = seat
        if not raise_to(seat_state, st, order, count, seat, amount, knobs[K_CAP_RAISES]):
            return False
    elif verb == V_BETS:
        if section != SEC_AFTER_DRAW or st[BET] != 0 or amount != unit:
            return False
        if not put(seat_state, st, seat, amount, True):
            return False
        if not raise_to(seat_state, st, order, count, seat, amount, knobs[K_CAP_RAISES]):
            return False
    elif verb == V_RAISES:
        target = st[BET] + unit
        if st[BET] == 0 or amount != unit or events[e, E_TO_AMOUNT] != target:
            return False
        if not put(seat_state, st, seat, target - seat_state[seat, STAKE], True):
            return False
        if not raise_to(seat_state, st, order, count, seat, target, knobs[K_CAP_RAISES]):
            return False
    else:
        return False
    st[PTR] = seat_state[seat, NEXT]
    seat_state[seat, PENDING] = 0
    if verb == V_FOLDS and st[IN_HAND] < 2:
        for i in range(count):
            seat_state[order[i], PENDING] = 0
    return True


@njit(cache=True, nogil=True)
def round_complete(seat_state: IntArray, order: IntArray, count: int) -> bool:
    for i in range(count):  # noqa: SIM110 (a plain loop compiles best)
        if seat_state[order[i], PENDING]:
            return False
    return True


@njit(cache=True, nogil=True)
def close_section(seat_state: IntArray, st: IntArray, order: IntArray, count: int,
                  section: int, ante: int) -> bool:
    """What must hold once the log has moved past ``section`` (present or not)."""
    if section == SEC_ANTES:
        for i in range(count):
            if seat_state[order[i], ANTED] != (1 if ante > 0 else 0):
                return False
    elif section == SEC_DEAL:
        for i in range(count):
            if seat_state[order[i], DEALT] != 1:
                return False
    elif section == SEC_BEFORE_DRAW:
        if st[SEEN_BEFORE] == 0 or not round_complete(seat_state, order, count):
            return False
        for i in range(count):
            if seat_state[order[i], OWES] == 1:
                return False  # a fold before the open with no penalty after it (O211)
        st[NEED_PLAY] = 1 if st[OPEN] == 1 and st[IN_HAND] >= 2 else 0
    elif section == SEC_DRAW:
        if st[NEED_PLAY] == 1:
            while st[DRAW_K] < count and seat_state[order[st[DRAW_K]], FOLDED]:
                st[DRAW_K] += 1
            if st[DRAW_K] != count:
                return False  # a seat in the hand did not draw
    elif section == SEC_AFTER_DRAW:
        if st[NEED_PLAY] == 1 and (st[SEEN_AFTER] == 0
                                   or not round_complete(seat_state, order, count)):
            return False
    elif (section == SEC_SHOWDOWN and st[NEED_PLAY] == 1 and st[IN_HAND] >= 2
          and st[SEEN_SHOWDOWN] == 0):
        return False
    return True


@njit(cache=True, nogil=True)
def enter_section(seat_state: IntArray, st: IntArray, order: IntArray, count: int,
                  section: int, small: int, big: int) -> bool:
    """Start ``section``; False if the hand's path does not allow it here."""
    if section == SEC_BEFORE_DRAW:
        st[SEEN_BEFORE] = 1
        open_round(seat_state, st, order, count, order[0], small)
    elif section == SEC_DRAW:
        return st[NEED_PLAY] == 1
    elif section == SEC_AFTER_DRAW:
        if st[NEED_PLAY] != 1:
            return False
        st[SEEN_AFTER] = 1
        # From the opener, or the next seat in the hand clockwise from it.
        start = st[OPENER]
        for _ in range(count):
            if seat_state[start, FOLDED] == 0:
                break
            start = seat_state[start, NEXT]
        open_round(seat_state, st, order, count, start, big)
    elif section == SEC_SHOWDOWN:
        if st[OPEN] == 0:
            return False
        st[SEEN_SHOWDOWN] = 1
    return True
