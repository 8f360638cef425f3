"""The betting rounds of the compiled replay: turns, bets and raises, sections.

Each function is the compiled form of the :class:`audit.replay.Replay` method of
the same name (``_turn``, ``_put``, ``_raise_to``, ``_reopen``, ``_open_or_bet``,
``_enter``, ``_draw_begins``, ``_after_draw_first``), over the working state of
:mod:`audit.facts.replay_state`: ``sst`` (one record per seat number), ``rs`` (the
round) and ``order`` (the occupied seats clockwise from left of the button,
``rs.count`` of them). Sets of seats are flags on ``sst``; a seat is in the hand
when dealt in and neither folded nor dead, and can bet when also not all-in.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from audit.facts.replay_state import inline_kernel, kernel
from ingest.scan.layout import (
    SEC_AFTER_DRAW,
    SEC_BEFORE_DRAW,
    SEC_DRAW,
    V_OPENS,
    V_RAISES,
)

SeatStates = Any  # a numpy record array of SEAT_STATE (attribute access in numba)
Order = npt.NDArray[np.int64]

BEFORE_DRAW, AFTER_DRAW = 1, 2  # audit.replay.Street

Record = Any  # one numpy record: its fields are attributes in compiled code


@kernel
def in_hand(sst: SeatStates, n: int) -> bool:
    """:attr:`SeatState.in_hand`."""
    s = sst[n]
    return s.dealt_in and not (s.folded or s.dead)


@kernel
def can_bet(sst: SeatStates, n: int) -> bool:
    """:attr:`SeatState.can_bet`."""
    return in_hand(sst, n) and not sst[n].all_in


@kernel
def count_can_bet(sst: SeatStates, order: Order, count: int) -> int:
    k = 0
    for i in range(count):
        if can_bet(sst, order[i]):
            k += 1
    return k


@kernel
def count_in_hand(sst: SeatStates, order: Order, count: int) -> int:
    k = 0
    for i in range(count):
        if in_hand(sst, order[i]):
            k += 1
    return k


@kernel
def turn(sst: SeatStates, rs: Record, order: Order, actor: int) -> int:
    """The next seat clockwise from the pointer (inclusive) that still has to act; 0: none.

    A seat all-in for its ante may still declare before the pot opens, but unless it
    is the one acting it is passed over.
    """
    count = rs.count
    any_pending = False
    for i in range(count):
        if sst[order[i]].pending:
            any_pending = True
            break
    if not any_pending:
        return 0
    ptr = rs.ptr
    n = ptr if 1 <= ptr < sst.shape[0] and sst[ptr].seated else order[0]
    for _ in range(count):
        if sst[n].pending and (n == actor or not sst[n].all_in):
            return n
        n = sst[n].next
    return 0


@kernel
def put(sst: SeatStates, n: int, chips: int, all_in: bool) -> int:
    """Move ``chips`` of seat ``n`` into the pot (its stack, total and stake)."""
    s = sst[n]
    s.stack -= chips
    s.total += chips
    s.stake += chips
    if all_in or (s.stack <= 0 and chips > 0):
        s.all_in = True
    return chips


@kernel
def _round_half_even(numerator: int, denominator: int) -> int:
    """``round(numerator / denominator)`` as Python rounds it (ties to even), both > 0."""
    q = numerator // denominator
    twice = 2 * (numerator - q * denominator)
    if twice > denominator or (twice == denominator and q % 2 == 1):
        q += 1
    return q


@inline_kernel
def reopen(sst: SeatStates, rs: Record, order: Order, seat: int) -> None:
    """A full bet or raise: every other seat that can bet must act again."""
    count = rs.count
    for i in range(count):
        n = order[i]
        s = sst[n]
        s.full_acted = False
        s.no_reraise = False
        s.pending = n != seat and can_bet(sst, n)
    if count_can_bet(sst, order, count) >= 3:
        rs.multi = max(rs.multi, rs.level)


@inline_kernel
def raise_to(sst: SeatStates, rs: Record, order: Order, seat: int, new_bet: int,
             unit: int) -> None:
    """A bet or raise to ``new_bet``: full raises reopen the betting."""
    increase = new_bet - rs.bet
    if increase <= 0:
        return
    if unit != 0 and increase * 2 < unit and rs.bet > 0:
        # An all-in raise under half a unit: callers must match it, but seats that
        # already acted may not raise again.
        for i in range(rs.count):
            n = order[i]
            s = sst[n]
            if s.full_acted:
                s.no_reraise = True
            if n != seat and can_bet(sst, n):
                s.pending = True
        rs.bet = new_bet
        return
    # max(1, round(increase / unit)); a unit of 0 (or less) counts one
    units = max(1, _round_half_even(increase, unit)) if unit > 0 else 1
    rs.bet = new_bet
    rs.level += units
    reopen(sst, rs, order, seat)


@inline_kernel
def open_or_bet(sst: SeatStates, rs: Record, order: Order, n: int, verb: int, amount: int,
                to_amount: int, all_in: bool, index: int, street: int, unit: int) -> int:
    """The first bet of a round (however the log words it): it may open the pot."""
    stake = sst[n].stake
    if verb == V_OPENS:
        total = amount
    elif verb == V_RAISES and to_amount >= 0:
        total = to_amount
    else:
        total = stake + amount
    chips = put(sst, n, max(total - stake, 0), all_in)
    if street != AFTER_DRAW and not rs.pot_open:
        rs.pot_open = True
        rs.opener = n
        rs.original_opener = n
        rs.opens_index = index
        rs.opened_all_in = all_in and total < unit
    if verb == V_OPENS and all_in and total < unit:
        # An all-in opener for the antes sets a full unit for every caller (R-DH 12).
        rs.bet = max(rs.bet, unit)
        rs.level = max(rs.level, 1)
        reopen(sst, rs, order, n)
    else:
        raise_to(sst, rs, order, n, sst[n].stake, unit)
    return chips


@inline_kernel
def _draw_begins(sst: SeatStates, rs: Record, order: Order, index: int) -> None:
    rs.draw_index = index
    count = rs.count
    for i in range(count):
        s = sst[order[i]]
        s.gone_at_draw = s.gone
    if not rs.pot_open:
        return
    # The current bet, unless no seat still in the hand reached it; a full unit behind
    # an opener all-in for the antes (R-DH 12).
    highest = 0
    for i in range(count):
        if in_hand(sst, order[i]):
            highest = max(highest, sst[order[i]].stake)
    target = min(rs.bet, highest)
    if rs.opened_all_in:
        target = max(target, rs.unit_before)
    for i in range(count):
        n = order[i]
        s = sst[n]
        if can_bet(sst, n) and s.stake < target:
            s.short_at_draw = True
            s.stake_at_draw = s.stake
            s.bet_at_draw = target


@inline_kernel
def _after_draw_first(sst: SeatStates, rs: Record, order: Order) -> int:
    # A dead (false) opener with no declarer still fixes where the action starts.
    start = rs.opener if rs.opener != 0 else rs.original_opener
    if start == 0:
        start = order[0]
    count = rs.count
    i = 0
    for k in range(count):
        if order[k] == start:
            i = k
            break
    for k in range(count):
        n = order[(i + k) % count]
        if can_bet(sst, n):
            return n
    return start


@inline_kernel
def enter(sst: SeatStates, rs: Record, order: Order, section: int, index: int) -> None:
    """Start a section: open a betting round, or note where the draw began."""
    if rs.draw_index < 0 and (section in (SEC_DRAW, SEC_AFTER_DRAW)):
        _draw_begins(sst, rs, order, index)
    street = 0
    if section == SEC_BEFORE_DRAW:
        street = BEFORE_DRAW
    elif section == SEC_AFTER_DRAW:
        street = AFTER_DRAW
    rs.street = street
    if street == AFTER_DRAW or rs.draw_index >= 0:
        rs.unit = rs.unit_after
    if street == 0:
        return
    rs.bet = 0
    rs.level = 0
    rs.multi = 0
    count = rs.count
    for i in range(count):
        s = sst[order[i]]
        s.full_acted = False
        s.no_reraise = False
        s.stake = 0
    rs.round_start = index
    if street == BEFORE_DRAW:
        # Before the pot opens an all-in-for-the-ante seat may still declare.
        for i in range(count):
            sst[order[i]].pending = in_hand(sst, order[i])
        rs.ptr = order[0] if count else 0
        return
    pending = 0
    for i in range(count):
        s = sst[order[i]]
        s.pending = can_bet(sst, order[i])
        if s.pending:
            pending += 1
    if pending < 2:
        for i in range(count):
            sst[order[i]].pending = False
    rs.ptr = _after_draw_first(sst, rs, order)
