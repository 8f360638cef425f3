"""The end of a hand in the compiled replay: each seat's facts, the pots, the showdown.

:func:`write_seats` writes the seats table (:class:`audit.replay.SeatState` at the end,
the card lists, :func:`audit.replay.cards.rebuild_dealt` and ``final_hand``, their
strengths); :func:`write_pots` is :func:`audit.replay.build_pots` followed by
:func:`audit.rules._pots.showdown` for every pot.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from audit.facts.evaluate import strength_of
from audit.facts.replay_betting import in_hand
from audit.facts.replay_state import (
    DEALT,
    DISCARDS,
    DRAWN,
    FIFTH,
    MISMATCH,
    UNKNOWN_CARD,
    CardLists,
    Lengths,
    hand_after_draw,
    inline_kernel,
    known,
    mask_of,
    minus,
)
from audit.facts.tables import INVALID, UNKNOWN

SeatStates = Any  # a numpy record array of SEAT_STATE (attribute access in numba)
Cards = npt.NDArray[np.int8]
Table = Any  # a fact table (numpy record array)
Order = npt.NDArray[np.int64]

Record = Any  # one numpy record: its fields are attributes in compiled code


@inline_kernel
def strength(cards: Cards, start: int, count: int) -> int:
    """The strength of a card range: UNKNOWN for None or ``??``, INVALID if not a hand."""
    if count < 0:
        return UNKNOWN
    for i in range(start, start + count):
        if cards[i] == UNKNOWN_CARD:
            return UNKNOWN
    value = strength_of(cards, start, count)
    return INVALID if value < 0 else value


@inline_kernel
def _put(pool: Cards, size: int, buf: Cards, count: int) -> int:
    for i in range(count):
        pool[size + i] = buf[i]
    return size + count


@inline_kernel
def _dealt_hand(lists: CardLists, lengths: Lengths, n: int, cards: Cards, shown_start: int,
                shown_count: int, out: Cards) -> int:
    """:func:`rebuild_dealt` into ``out``: its length, -1 when the log cannot prove it."""
    dealt = lengths[n, DEALT]
    if dealt > 0 and known(lists[n, DEALT], dealt):
        for i in range(dealt):
            out[i] = lists[n, DEALT, i]
        return dealt
    if shown_count < 0:
        return -1
    size = shown_count
    for i in range(size):
        out[i] = cards[shown_start + i]
    if not known(out, size) or not known(lists[n, DISCARDS], lengths[n, DISCARDS]):
        return -1
    if not known(lists[n, DRAWN], lengths[n, DRAWN]) or not known(lists[n, FIFTH],
                                                                 lengths[n, FIFTH]):
        return -1
    size = minus(out, size, lists, lengths, n, DRAWN)
    if size >= 0:
        size = minus(out, size, lists, lengths, n, FIFTH)
    if size < 0:
        return -1
    for i in range(lengths[n, DISCARDS]):
        out[size + i] = lists[n, DISCARDS, i]
    return size + lengths[n, DISCARDS]


@inline_kernel
def _final_hand(lists: CardLists, lengths: Lengths, n: int, cards: Cards, shown_start: int,
                shown_count: int, out: Cards) -> int:
    """``final_hand`` into ``out``: the shown cards, else the replayed hand; -1: unknown."""
    if shown_count >= 0:
        for i in range(shown_count):
            out[i] = cards[shown_start + i]
        return shown_count if known(out, shown_count) else -1
    if lengths[n, DEALT] == 0:
        return -1
    size = hand_after_draw(lists, lengths, n, out)
    return size if known(out, size) else -1


@inline_kernel
def write_seats(sst: SeatStates, rs: Record, first_row: int, count: int, seat_numbers: Order,
                seats: Table, actions: Table, action_start: int, cards: Cards,
                lists: CardLists, lengths: Lengths, pool: Cards, size: int, tmp: Cards) -> int:
    """Write the seats' rows; append their card lists to ``pool`` from ``size``; the new size."""
    at_draw = rs.draw_index >= 0 and rs.misdeal_index < 0
    for i in range(count):
        n = seat_numbers[i]
        s = sst[n]
        row = seats[first_row + i]
        row.dealt_in, row.folded, row.dead, row.fouled = s.dealt_in, s.folded, s.dead, s.fouled
        row.false_opener, row.all_in, row.stood_pat = s.false_opener, s.all_in, s.stood_pat
        row.split_openers, row.mucked = s.split_openers, s.mucked
        row.ante, row.total, row.penalties = s.ante, s.total, s.penalties
        row.withdrawn, row.returned, row.collected = s.withdrawn, s.returned, s.collected
        row.stack, row.position = s.stack, s.position
        row.shown_index, row.mucked_index = s.shown_index, s.mucked_index
        row.at_draw = at_draw and s.dealt_in and not s.gone_at_draw
        row.short_at_draw = s.short_at_draw
        row.stake_at_draw, row.bet_at_draw = s.stake_at_draw, s.bet_at_draw
        row.dealt_start, row.dealt_count = size, lengths[n, DEALT]
        size = _put(pool, size, lists[n, DEALT], lengths[n, DEALT])
        row.discards_start, row.discards_count = size, lengths[n, DISCARDS]
        size = _put(pool, size, lists[n, DISCARDS], lengths[n, DISCARDS])
        row.drawn_start, row.drawn_count = size, lengths[n, DRAWN]
        size = _put(pool, size, lists[n, DRAWN], lengths[n, DRAWN])
        row.fifth_start, row.fifth_count = size, lengths[n, FIFTH]
        size = _put(pool, size, lists[n, FIFTH], lengths[n, FIFTH])
        row.dealt_mask = mask_of(lists[n, DEALT], 0, lengths[n, DEALT])
        row.discards_mask = mask_of(lists[n, DISCARDS], 0, lengths[n, DISCARDS])
        row.drawn_mask = mask_of(lists[n, DRAWN], 0, lengths[n, DRAWN])
        row.fifth_mask = mask_of(lists[n, FIFTH], 0, lengths[n, FIFTH])
        row.mismatch_start, row.mismatch_count = size, lengths[n, MISMATCH]
        size = _put(pool, size, lists[n, MISMATCH], lengths[n, MISMATCH])
        shown_start, shown_count = 0, -1
        if s.shown_index >= 0:
            shown = actions[action_start + s.shown_index]
            shown_start, shown_count = shown.cards_start, max(shown.cards_count, 0)
        got = _dealt_hand(lists, lengths, n, cards, shown_start, shown_count, tmp)
        row.dealt_hand_start, row.dealt_hand_count = size, got
        if got >= 0:
            size = _put(pool, size, tmp, got)
        row.dealt_strength = strength(pool, row.dealt_hand_start, got)
        got = _final_hand(lists, lengths, n, cards, shown_start, shown_count, tmp)
        row.final_start, row.final_count = size, got
        if got >= 0:
            size = _put(pool, size, tmp, got)
        row.final_strength = strength(pool, row.final_start, got)
    return size


@inline_kernel
def _showdown(sst: SeatStates, order: npt.NDArray[np.int64], count: int, eligible: int,
              seats: Table, pot: Record) -> None:
    """Who contests the pot and who should win it (``audit.rules._pots.showdown``)."""
    contenders = 0
    k = 0
    for i in range(count):
        n = order[i]
        s = sst[n]
        if in_hand(sst, n) and not s.mucked and (((eligible >> n) & 1) != 0 or not s.all_in):
            contenders |= 1 << n
            k += 1
    pot.contenders = contenders
    pot.best = -1
    if k == 1:
        pot.winners = contenders
        return
    unknown = 0
    fouled = 0
    top = -1
    for i in range(count):
        n = order[i]
        if ((contenders >> n) & 1) != 0:
            value = seats[sst[n].row].final_strength
            if value == UNKNOWN:
                unknown |= 1 << n
            elif value == INVALID:
                fouled |= 1 << n
            else:
                top = max(top, value)
    pot.unknown = unknown
    pot.fouled = fouled
    if unknown != 0 or top < 0:
        return
    winners = 0
    for i in range(count):
        n = order[i]
        if ((contenders >> n) & 1) != 0 and seats[sst[n].row].final_strength == top:
            winners |= 1 << n
    pot.winners = winners
    pot.best = top


@inline_kernel
def write_pots(sst: SeatStates, order: npt.NDArray[np.int64], count: int,
               seat_numbers: Order, h: int, dead_money: int, seats: Table, pots: Table,
               first: int, levels: Order) -> int:
    """The main pot and side pots from each seat's chips in (``build_pots``); how many."""
    # levels[:k]: the all-in levels, sorted, distinct (``levels`` is scratch space)
    k = 0
    top = 0
    any_contribution = False
    for i in range(count):
        s = sst[seat_numbers[i]]
        if s.total > 0 or in_hand(sst, seat_numbers[i]):
            top = s.total if not any_contribution else max(top, s.total)
            any_contribution = True
        if in_hand(sst, seat_numbers[i]) and s.all_in and s.total > 0:
            j = k
            while j > 0 and levels[j - 1] > s.total:
                j -= 1
            if j > 0 and levels[j - 1] == s.total:
                continue
            for m in range(k, j, -1):
                levels[m] = levels[m - 1]
            levels[j] = s.total
            k += 1
    made = 0
    previous = 0
    for c in range(k + 1):
        is_top = c == k
        if not is_top and levels[c] >= top:
            continue
        ceiling = top if is_top else levels[c]
        amount = 0
        eligible = 0
        live = 0
        for i in range(count):
            n = seat_numbers[i]
            s = sst[n]
            if not (s.total > 0 or in_hand(sst, n)):
                continue
            if s.total > 0:
                amount += min(s.total, ceiling) - min(s.total, previous)
            if in_hand(sst, n):
                live |= 1 << n
                if s.total >= ceiling:
                    eligible |= 1 << n
        if made == 0:
            amount += dead_money
            if ceiling == 0:
                eligible = live
        elif amount == 0:
            continue
        pot = pots[first + made]
        pot.hand, pot.number, pot.amount, pot.eligible = h, made, amount, eligible
        pot.cap = -1 if is_top else levels[c]
        _showdown(sst, order, count, eligible, seats, pot)
        made += 1
        previous = ceiling
    return made
