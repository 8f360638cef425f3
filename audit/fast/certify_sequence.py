"""Certify the deal-sequence (J) rules of each deal against the deal before it at its table.

The J rules (J501-J508, :mod:`audit.rules`) compare two consecutive deals of one
table. :func:`certify_sequence` judges a batch of such pairs in compiled code and
says, per pair, whether the reference J rules under the house profile would report
nothing (no finding, nothing unverifiable, no error) for the later deal. It mirrors
each rule's module line by line where that is cheap and exact, and takes a superset
of the offending case where the reference needs its replay (J506's all-in false
opener, J508's original opener): a pair it cannot settle is left to the reference.
:func:`pair_deals` builds the pairs as :func:`audit.engine.sequence_pairs` does,
and flags the ones it cannot be sure of (equal times at one table are ordered by
hand id strings, which the arrays do not hold).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from audit.fast.layout import (
    ACTOR_SEAT,
    E_ACTOR,
    E_ALL_IN,
    E_AMOUNT,
    E_SEAT,
    E_SECTION,
    E_TO_AMOUNT,
    E_VERB,
    GAME_JACKS_OR_BETTER,
    H_ANTE,
    H_BUTTON,
    H_CARRIED,
    H_CARRIED_OUT,
    H_EVENT_COUNT,
    H_EVENT_START,
    H_GAME,
    H_HAND_HASH,
    H_JACKPOT,
    H_OPENERS,
    H_SEAT_COUNT,
    H_SEAT_START,
    H_STATUS,
    H_TABLE_HASH,
    H_TIME,
    K_ANTE_LIMIT,
    K_BUTTON_STAYS,
    K_FATTENING,
    K_PROGRESSION_CYCLE,
    K_UNPROVEN_PENALTY_ANTES,
    K_UNPROVEN_REJACKPOT,
    OPENERS_ABSENT,
    S_PLAYER_HASH,
    S_SEAT,
    S_STACK,
    SEC_DRAW,
    V_ANTES,
    V_BETS,
    V_CALLS,
    V_DEALT,
    V_FALSE_OPENERS,
    V_MISDEAL,
    V_OPENS,
    V_PENALTY,
    V_RAISES,
    CardArray,
    IntArray,
)

#: The verbs whose line ``Replay._put`` books on a seat.
_PUTS_CHIPS = (V_ANTES, V_CALLS, V_OPENS, V_BETS, V_RAISES)

#: Seat numbers are 1..10 (the format); the per-seat table is indexed by seat number.
MAX_SEAT = 10
_SLOTS = MAX_SEAT + 1

# Columns of the per-seat table ``_deal_facts`` fills for one deal.
SF_PRESENT = 0  # a `Seat N` header line
SF_PLAYER = 1  # S_PLAYER_HASH
SF_STACK = 2
SF_DEALT = 3  # dealt in, as ``_sequence.dealt_in`` says
SF_ANTE = 4  # the replay's ``SeatState.ante``: ANTES lines by the seat itself
SF_PENALTIES = 5  # the replay's ``SeatState.penalties``: PENALTY lines of dealer or floor
SF_FALSE_OPENER = 6  # named by a ``false openers`` ruling
SF_LATE_FALSE_OPENER = 7  # ... once the draw had begun (J508's "found at the showdown")
SF_MAY_BE_ALL_IN = 8  # a line of the seat says all-in, or its lines could spend its stack
SF_COLUMNS = 9

# Facts of one deal, the vector ``_deal_facts`` fills.
F_OK = 0  # 0: a seat number outside 1..10 or a repeated seat line: leave to the reference
F_MISDEAL = 1
F_POSITIVE_ANTE = 2  # some ANTES line took chips (J501)
#: A PENALTY line, or a seat's chips past its antes (a bet, call, raise or open): the
#: deal may leave forfeited money in a carried pot (J506's superset of ``forfeited``).
F_MAY_FORFEIT = 3
F_COUNT = 4


@njit(cache=True, nogil=True)
def _deal_facts(hands: IntArray, seats: IntArray, events: IntArray, row: int,
                table: IntArray, facts: IntArray) -> None:
    """Fill the per-seat ``table`` (row = seat number, ``SF_*`` columns) and ``facts``."""
    table[:, :] = 0
    facts[:] = 0
    first_seat = hands[row, H_SEAT_START]
    seat_count = hands[row, H_SEAT_COUNT]
    if seat_count < 1:
        return
    for s in range(first_seat, first_seat + seat_count):
        n = seats[s, S_SEAT]
        if n < 1 or n > MAX_SEAT or table[n, SF_PRESENT]:
            return
        table[n, SF_PRESENT] = 1
        table[n, SF_PLAYER] = seats[s, S_PLAYER_HASH]
        table[n, SF_STACK] = seats[s, S_STACK]
    # The most chips each seat's lines can put in (``Replay._put`` moves at most the
    # line's amount or its "to" amount): a seat whose stack outlasts them never went
    # all-in without a line saying so.
    spent = np.zeros(_SLOTS, np.int64)
    any_dealt = False
    first_event = hands[row, H_EVENT_START]
    for e in range(first_event, first_event + hands[row, H_EVENT_COUNT]):
        verb = events[e, E_VERB]
        n = events[e, E_SEAT]
        if n < 0 or n > MAX_SEAT:
            return
        amount = max(events[e, E_AMOUNT], 0)  # -1 is None: the replay counts ``or 0``
        by_seat = events[e, E_ACTOR] == ACTOR_SEAT
        if events[e, E_ALL_IN]:
            table[n, SF_MAY_BE_ALL_IN] = 1
        if verb == V_ANTES:
            if amount > 0:
                facts[F_POSITIVE_ANTE] = 1
            if by_seat:
                table[n, SF_ANTE] += amount
        elif verb == V_DEALT:
            if n > 0:
                table[n, SF_DEALT] = 1
                any_dealt = True
        elif verb == V_MISDEAL:
            facts[F_MISDEAL] = 1
        elif verb == V_PENALTY:
            facts[F_MAY_FORFEIT] = 1
            if not by_seat:
                table[n, SF_PENALTIES] += amount
        elif verb == V_FALSE_OPENERS and n > 0:
            table[n, SF_FALSE_OPENER] = 1
            if events[e, E_SECTION] >= SEC_DRAW:
                table[n, SF_LATE_FALSE_OPENER] = 1
        if by_seat and verb in _PUTS_CHIPS:
            spent[n] += max(amount, events[e, E_TO_AMOUNT])
            if verb != V_ANTES and max(amount, events[e, E_TO_AMOUNT]) > 0:
                facts[F_MAY_FORFEIT] = 1
    for n in range(1, _SLOTS):
        if not table[n, SF_PRESENT]:
            # Lines of an empty seat touch no seat state in the replay.
            table[n, SF_ANTE] = table[n, SF_PENALTIES] = 0
            table[n, SF_FALSE_OPENER] = table[n, SF_LATE_FALSE_OPENER] = 0
        elif table[n, SF_STACK] - spent[n] - table[n, SF_PENALTIES] <= 0:
            table[n, SF_MAY_BE_ALL_IN] = 1
        if not any_dealt:  # no DEAL lines: every seat counts as dealt in
            table[n, SF_DEALT] = table[n, SF_PRESENT]
    facts[F_OK] = 1


@njit(cache=True, nogil=True)
def _openers_for(jackpot: int, progression: IntArray, cycle: int) -> int:
    """``Profile.openers_for`` for Jacks or Better, as an OPENERS code."""
    steps = progression.shape[0]
    i = max(jackpot, 1) - 1
    if i < steps:
        return progression[i]
    if cycle:
        return progression[i % steps]
    return progression[steps - 1]


@njit(cache=True, nogil=True)
def _short_seats(due: int, table: IntArray) -> bool:
    """J507's ``_short``: a seat dealt in anted less than ``min(due, its stack)``."""
    if due <= 0:
        return False
    for n in range(1, _SLOTS):
        if (table[n, SF_PRESENT] and table[n, SF_DEALT]
                and table[n, SF_ANTE] < min(due, table[n, SF_STACK])):
            return True
    return False


@njit(cache=True, nogil=True)
def _unique_players(table: IntArray) -> bool:
    """No player id sits twice (the reference's player -> seat dict would keep one)."""
    for a in range(1, _SLOTS):
        if table[a, SF_PRESENT]:
            for b in range(a + 1, _SLOTS):
                if table[b, SF_PRESENT] and table[a, SF_PLAYER] == table[b, SF_PLAYER]:
                    return False
    return True


@njit(cache=True, nogil=True)
def _seat_changed(now: IntArray, then: IntArray) -> bool:
    """J505: a player seated on both deals sits elsewhere now."""
    for n in range(1, _SLOTS):
        if now[n, SF_PRESENT]:
            for m in range(1, _SLOTS):
                if then[m, SF_PRESENT] and then[m, SF_PLAYER] == now[n, SF_PLAYER] and m != n:
                    return True
    return False


@njit(cache=True, nogil=True)
def _ineligible_dealt_in(now: IntArray, then: IntArray, may_forfeit: bool) -> bool:
    """J506: a seat dealt in now may be an all-in false opener, or, where the deal
    before may have left forfeited money, was not dealt in then.

    R-JB 5 bars a false opener that declared all-in; a ruled seat that may have been
    all-in at any point is taken as barred (a superset: the replay is not at hand).
    A carried pot of antes alone bars no newcomer (R-DH 11).
    """
    for n in range(1, _SLOTS):
        if not (now[n, SF_PRESENT] and now[n, SF_DEALT]):
            continue
        involved = False
        for m in range(1, _SLOTS):
            if then[m, SF_PRESENT] and then[m, SF_PLAYER] == now[n, SF_PLAYER]:
                if then[m, SF_FALSE_OPENER] and then[m, SF_MAY_BE_ALL_IN]:
                    return True
                if then[m, SF_DEALT]:
                    involved = True
        if may_forfeit and not involved:
            return True
    return False


@njit(cache=True, nogil=True)
def _late_false_opener(table: IntArray) -> bool:
    """A seat of the deal was ruled a false opener once the draw had begun."""
    count = 0
    for n in range(1, _SLOTS):
        count += table[n, SF_PRESENT] and table[n, SF_LATE_FALSE_OPENER]
    return count > 0


@njit(cache=True, nogil=True)
def _unpenalised(table: IntArray, due: int) -> bool:
    """J508: a seat ruled a false opener after the draw paid less than ``due``."""
    for n in range(1, _SLOTS):
        if table[n, SF_PRESENT] and table[n, SF_LATE_FALSE_OPENER] and table[n, SF_PENALTIES] < due:
            return True
    return False


@njit(cache=True, nogil=True)
def certify_sequence(hands: IntArray, seats: IntArray, events: IntArray, cards: CardArray,
                     knobs: IntArray, progression: IntArray, order: IntArray,
                     previous: IntArray) -> npt.NDArray[np.int8]:
    """Per ``k``: 1 when the J rules find nothing on deal ``order[k]`` after ``previous[k]``.

    ``previous[k]`` is the row of the deal just before ``order[k]`` at its table, -1
    on the table's first deal (the pairing of :func:`audit.engine.sequence_pairs`).
    0 sends the deal to the reference. ``cards`` is unused: no J rule reads a card.
    """
    out = np.zeros(order.shape[0], dtype=np.int8)
    if progression.shape[0] == 0:
        return out
    ante_limit = knobs[K_ANTE_LIMIT]
    button_stays = knobs[K_BUTTON_STAYS]
    fattening = knobs[K_FATTENING]
    cycle = knobs[K_PROGRESSION_CYCLE]
    penalty_antes = knobs[K_UNPROVEN_PENALTY_ANTES]
    rejackpot = knobs[K_UNPROVEN_REJACKPOT]
    now = np.zeros((_SLOTS, SF_COLUMNS), np.int64)
    then = np.zeros((_SLOTS, SF_COLUMNS), np.int64)
    now_facts = np.zeros(F_COUNT, np.int64)
    then_facts = np.zeros(F_COUNT, np.int64)
    for k in range(order.shape[0]):
        row = order[k]
        before = previous[k]
        if hands[row, H_STATUS] != 0 or (before >= 0 and hands[before, H_STATUS] != 0):
            continue
        _deal_facts(hands, seats, events, row, now, now_facts)
        if not now_facts[F_OK]:
            continue
        jackpot = hands[row, H_JACKPOT]
        deal_ante = hands[row, H_ANTE]
        past_limit = ante_limit >= 0 and jackpot > ante_limit
        # J501: antes taken past the house's limit of anted deals.
        if past_limit and now_facts[F_POSITIVE_ANTE]:
            continue
        # J503: an Openers header that is not the progression's (Draw High: not judged).
        openers = hands[row, H_OPENERS]
        if (hands[row, H_GAME] == GAME_JACKS_OR_BETTER and openers != OPENERS_ABSENT
                and openers != _openers_for(jackpot, progression, cycle)):
            continue
        # J508 (L-33): every seat ruled a false opener after the draw (the original
        # opener among them) paid the double ante in this very deal.
        if penalty_antes != 0 and _unpenalised(now, penalty_antes * deal_ante):
            continue
        if before < 0:
            # J507 on a first deal: the ante is judged, and a fattener that would change
            # the verdict makes the deal unverifiable.
            if not past_limit and (
                    _short_seats(deal_ante, now)
                    or (fattening >= 0 and jackpot > 1
                        and _short_seats(max(deal_ante, fattening), now))):
                continue
            out[k] = 1
            continue
        _deal_facts(hands, seats, events, before, then, then_facts)
        if not then_facts[F_OK]:
            continue
        misdeal_before = then_facts[F_MISDEAL] != 0
        carried_out_before = hands[before, H_CARRIED_OUT]
        passed_out_before = carried_out_before >= 0 and not misdeal_before
        if carried_out_before >= 0:
            left = carried_out_before
        elif misdeal_before:
            left = hands[before, H_CARRIED]
        else:
            left = 0
        # J502: the button after a passed-out deal (moves: any other seat; stays: the
        # same seat, unless that seat is empty now).
        if passed_out_before:
            button, button_before = hands[row, H_BUTTON], hands[before, H_BUTTON]
            if button_stays == 0 and button == button_before:
                continue
            if (button_stays != 0 and button != button_before
                    and 1 <= button_before <= MAX_SEAT and now[button_before, SF_PRESENT]):
                continue
        # J504: Carried is exactly what the deal before left.
        if hands[row, H_CARRIED] != left:
            continue
        # J505, J506: while chips are carried nobody moves and nobody new is dealt in.
        if left != 0 and not (_unique_players(now) and _unique_players(then)):
            continue
        if left != 0 and (_seat_changed(now, then)
                          or _ineligible_dealt_in(now, then, then_facts[F_MAY_FORFEIT] != 0)):
            continue
        # J507: every seat dealt in anted in full (the fattener after a passed-out deal).
        if not past_limit:
            due = deal_ante
            if fattening >= 0 and passed_out_before:
                due = max(deal_ante, fattening)
            if _short_seats(due, now):
                continue
        # J508's other half (L-33): after a seat ruled a false opener after the draw
        # (the original opener among them), the pot carried on as the next jack-pot.
        if rejackpot != 0:
            carried_on = carried_out_before >= 0 and jackpot == hands[before, H_JACKPOT] + 1
            if not carried_on and _late_false_opener(then):
                continue
        out[k] = 1
    return out


def pair_deals(
    hands: IntArray,
) -> tuple[IntArray, IntArray, npt.NDArray[np.bool_]]:
    """Each deal and the row of the deal before it at its table, as ``sequence_pairs`` orders.

    Returns ``(order, previous, ambiguous)``, aligned by ``k``: ``order`` is every row,
    by table then ``Time``; ``previous[k]`` the row before ``order[k]`` at its table (-1
    for the first). ``ambiguous[k]`` marks a deal whose pairing the arrays cannot fix:
    it shares its time with another deal of its table (the reference then orders by
    hand id strings), or follows such a tie; send those to the reference. Tables and
    times are read from every row, so rows the scanner rejected must still hold them.
    """
    count = hands.shape[0]
    table = hands[:, H_TABLE_HASH]
    time = hands[:, H_TIME]
    order = np.lexsort((hands[:, H_HAND_HASH], time, table)).astype(np.int64)
    table_sorted = table[order]
    time_sorted = time[order]
    same_table = np.zeros(count, dtype=np.bool_)
    same_table[1:] = table_sorted[1:] == table_sorted[:-1]
    previous = np.full(count, -1, dtype=np.int64)
    previous[1:] = order[:-1]
    previous[~same_table] = -1
    tied_before = same_table.copy()
    tied_before[1:] &= time_sorted[1:] == time_sorted[:-1]
    tied = tied_before.copy()
    tied[:-1] |= tied_before[1:]
    ambiguous = tied.copy()
    ambiguous[1:] |= same_table[1:] & tied[:-1]
    return order, previous, ambiguous
