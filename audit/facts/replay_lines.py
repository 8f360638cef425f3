"""One line of a hand in the compiled replay: the state before it, then its effect.

:func:`apply_line` is :meth:`audit.replay.Replay._apply` with ``_effect``,
``_other``, ``_discard`` and ``_dealer_or_floor``: it writes the line's row of the
actions table (the state *before* the line, as :class:`audit.replay.Step` holds
it, and the chips the line moved), then applies the line as the log gives it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from audit.facts.replay_betting import (
    can_bet,
    count_in_hand,
    in_hand,
    open_or_bet,
    put,
    raise_to,
    turn,
)
from audit.facts.replay_state import (
    DEALT,
    DISCARDS,
    DRAWN,
    FIFTH,
    MISMATCH,
    UNKNOWN_CARD,
    CardLists,
    Lengths,
    append,
    hand_after_draw,
    holds,
    inline_kernel,
    kernel,
)
from audit.facts.tables import SeatStatus
from ingest.scan.layout import (
    ACTOR_SEAT,
    E_ACTOR,
    E_ALL_IN,
    E_AMOUNT,
    E_CARDS_COUNT,
    E_CARDS_START,
    E_DRAWN_COUNT,
    E_DRAWN_START,
    E_SEAT,
    E_SECTION,
    E_TO_AMOUNT,
    E_VERB,
    SEC_DEAL,
    SEC_DRAW,
    V_ANTES,
    V_BETS,
    V_CALLS,
    V_CHECKS,
    V_COLLECTS,
    V_DEALS,
    V_DEALT,
    V_DECLARES_OPENERS,
    V_DISCARDS,
    V_DRAWS_FIFTH,
    V_FALSE_OPENERS,
    V_FOLDS,
    V_FOULED_HAND,
    V_MISDEAL,
    V_MUCKS,
    V_OPENS,
    V_PENALTY,
    V_RAISES,
    V_RETURNS,
    V_SHOWS,
    V_SPLITS_OPENERS,
    V_STANDS_PAT,
    V_WITHDRAWS,
    IntArray,
)

SeatStates = Any  # a numpy record array of SEAT_STATE (attribute access in numba)
Cards = npt.NDArray[np.int8]

_UNSEATED, _NOT_DEALT, _DEAD, _FOLDED, _IN_HAND = (
    int(SeatStatus.UNSEATED), int(SeatStatus.NOT_DEALT), int(SeatStatus.DEAD),
    int(SeatStatus.FOLDED), int(SeatStatus.IN_HAND))

Record = Any  # one numpy record: its fields are attributes in compiled code


@kernel
def _is_turn_verb(verb: int) -> bool:
    return (verb in (V_CHECKS, V_OPENS, V_BETS, V_CALLS, V_RAISES, V_FOLDS))


@inline_kernel
def _discard(lists: CardLists, lengths: Lengths, tmp: Cards, n: int, cards: Cards,
             start: int, count: int, drawn_start: int, drawn_count: int) -> None:
    """Discards and draws: a discard the seat did not hold is noted as a mismatch."""
    held = hand_after_draw(lists, lengths, n, tmp)
    for i in range(start, start + max(count, 0)):
        card = cards[i]
        if card != UNKNOWN_CARD and not holds(tmp, held, card):
            lists[n, MISMATCH, lengths[n, MISMATCH]] = card
            lengths[n, MISMATCH] += 1
    append(lists, lengths, n, DISCARDS, cards, start, count)
    append(lists, lengths, n, DRAWN, cards, drawn_start, drawn_count)


@inline_kernel
def _other(sst: SeatStates, rs: Record, events: IntArray, e: int, index: int, n: int,
           cards: Cards, lists: CardLists, lengths: Lengths, tmp: Cards) -> int:
    """A player's line that is not a bet: withdrawals, declarations, the draw, the end."""
    verb = events[e, E_VERB]
    amount = max(events[e, E_AMOUNT], 0)
    s = sst[n]
    if verb == V_WITHDRAWS:
        s.withdrawn += amount
        s.stack += amount
        s.total -= amount
        s.stake = max(s.stake - amount, 0)
        return -amount
    if verb == V_DECLARES_OPENERS:
        rs.opener = n
        rs.pot_open = True
    elif verb == V_SPLITS_OPENERS:
        s.split_openers = True
    elif verb == V_DISCARDS:
        _discard(lists, lengths, tmp, n, cards, events[e, E_CARDS_START],
                 events[e, E_CARDS_COUNT], events[e, E_DRAWN_START], events[e, E_DRAWN_COUNT])
    elif verb == V_STANDS_PAT:
        s.stood_pat = True
    elif verb == V_DRAWS_FIFTH:
        append(lists, lengths, n, FIFTH, cards, events[e, E_CARDS_START],
               events[e, E_CARDS_COUNT])
    elif verb == V_SHOWS:
        s.shown_index = index
    elif verb == V_MUCKS:
        s.mucked = True
        s.mucked_index = index
    elif verb == V_COLLECTS:
        s.collected += amount
        s.stack += amount
    return 0


@inline_kernel
def _dealer_or_floor(sst: SeatStates, rs: Record, events: IntArray, e: int, index: int,
                     n: int, cards: Cards, lists: CardLists, lengths: Lengths) -> int:
    """A dealer or floor line about seated seat ``n``."""
    verb = events[e, E_VERB]
    amount = max(events[e, E_AMOUNT], 0)
    s = sst[n]
    if verb == V_DEALS:
        # Cards owed before the draw complete the dealt hand; later ones are drawn.
        kind = DEALT if events[e, E_SECTION] < SEC_DRAW else DRAWN
        append(lists, lengths, n, kind, cards, events[e, E_CARDS_START],
               events[e, E_CARDS_COUNT])
    elif verb == V_MISDEAL:
        rs.misdeal_index = index
    elif verb == V_RETURNS:
        s.returned += amount
        s.stack += amount
        s.total -= amount
        s.stake = max(s.stake - amount, 0)
        return -amount
    elif verb == V_PENALTY:
        s.penalties += amount
        s.stack -= amount
        rs.penalties += amount
        return amount
    elif verb == V_FALSE_OPENERS:
        s.dead = True
        s.false_opener = True
        if rs.opener == n:
            rs.opener = 0
        s.pending = False
    elif verb == V_FOULED_HAND:
        s.dead = True
        s.fouled = True
        s.pending = False
    return 0


@inline_kernel
def _effect(sst: SeatStates, rs: Record, order: npt.NDArray[np.int64], events: IntArray,
            e: int, index: int, n: int, cards: Cards, lists: CardLists, lengths: Lengths,
            tmp: Cards, street: int, unit: int) -> int:
    """Apply the line of seated seat ``n``; the chips it moved into the pot."""
    if events[e, E_ACTOR] != ACTOR_SEAT:
        return _dealer_or_floor(sst, rs, events, e, index, n, cards, lists, lengths)
    verb = events[e, E_VERB]
    amount = max(events[e, E_AMOUNT], 0)
    all_in = events[e, E_ALL_IN] != 0
    s = sst[n]
    if verb == V_CALLS:
        return put(sst, n, amount, all_in)
    if verb == V_FOLDS:
        s.folded = True
        return 0
    if verb == V_CHECKS:
        return 0
    if verb == V_ANTES:
        chips = put(sst, n, amount, all_in)
        s.stake -= chips  # antes are not a stake in a betting round
        s.ante += chips
        return chips
    if verb == V_DEALT:
        append(lists, lengths, n, DEALT, cards, events[e, E_CARDS_START],
               events[e, E_CARDS_COUNT])
        return 0
    to_amount = events[e, E_TO_AMOUNT]
    if verb == V_OPENS or (rs.bet == 0 and (verb in (V_BETS, V_RAISES))):
        # The first bet of a round opens it, however the log words it (B108 judges).
        return open_or_bet(sst, rs, order, n, verb, amount, to_amount, all_in, index,
                           street, unit)
    if verb in (V_RAISES, V_BETS):
        target = to_amount if to_amount >= 0 else s.stake + amount
        chips = put(sst, n, max(target - s.stake, 0), all_in)
        raise_to(sst, rs, order, n, s.stake, unit)
        return chips
    return _other(sst, rs, events, e, index, n, cards, lists, lengths, tmp)


@inline_kernel
def apply_line(sst: SeatStates, rs: Record, order: npt.NDArray[np.int64], events: IntArray,
               e: int, index: int, cards: Cards, lists: CardLists, lengths: Lengths,
               tmp: Cards, row: Record) -> None:
    """Write line ``e``'s replay columns into ``row``, then apply the line."""
    verb = events[e, E_VERB]
    seat = events[e, E_SEAT]
    n = seat if 1 <= seat < sst.shape[0] and sst[seat].seated else 0
    street = rs.street
    betting = street != 0 and events[e, E_ACTOR] == ACTOR_SEAT and _is_turn_verb(verb)
    the_turn = 0
    if betting:
        the_turn = turn(sst, rs, order, seat)
        contenders = 0
        for i in range(rs.count):
            s = sst[order[i]]
            if s.dealt_in and not (s.folded or s.dead or s.all_in):
                contenders += 1
        rs.contenders = contenders
    row.street = street
    row.betting = betting
    row.turn = the_turn
    row.current_bet = rs.bet
    row.level = rs.level
    row.multi_level = rs.multi
    row.contenders = rs.contenders
    row.pot_open = rs.pot_open
    row.opener = rs.opener
    row.unit = rs.unit
    row.round_start = rs.round_start
    if n == 0:
        row.status = _UNSEATED
        row.position = -1
        row.chips = 0
        if verb == V_MISDEAL:
            rs.misdeal_index = index  # a line without a seated seat moves no chips
    else:
        s = sst[n]
        seated_in_hand = in_hand(sst, n)
        row.in_turn = betting and the_turn == n
        row.in_hand = seated_in_hand
        row.all_in = s.all_in
        row.stake = s.stake
        row.may_raise = not s.no_reraise
        row.position = s.position
        if not s.dealt_in:
            row.status = _NOT_DEALT
        elif seated_in_hand:
            row.status = _IN_HAND
        else:
            row.status = _DEAD if s.dead else _FOLDED
        row.chips = _effect(sst, rs, order, events, e, index, n, cards, lists, lengths, tmp,
                            street, rs.unit)
        if betting:
            if row.in_turn:
                rs.ptr = s.next
            s.pending = False
            s.full_acted = True
            if verb == V_FOLDS and count_in_hand(sst, order, rs.count) < 2:
                for i in range(rs.count):
                    sst[order[i]].pending = False
        if verb in (V_FOLDS, V_FALSE_OPENERS, V_FOULED_HAND):
            s.gone = True
    row.level_after = rs.level
    row.bet_after = rs.bet
    if rs.first_play < 0 and events[e, E_ACTOR] == ACTOR_SEAT and events[e, E_SECTION] > SEC_DEAL:
        rs.first_play = index


__all__ = ["apply_line", "can_bet"]
