"""The compiled replay: the flat arrays of a batch of hands to its fact tables.

:func:`replay_facts` walks every hand of a :class:`audit.facts.layout.HandArrays`
batch line by line in one compiled pass, exactly as :class:`audit.replay.Replay`
does (:mod:`audit.facts.replay_lines`, :mod:`audit.facts.replay_betting`), and
writes the tables of :mod:`audit.facts.tables` (:mod:`audit.facts.replay_end` for
the seats and pots). ``tests/audit/facts`` hold it equal to
:func:`audit.facts.reference.reference_facts` on generated rooms of every profile,
damaged hands, unrecorded cards and every rule fixture.

A hand the scanner did not read (``H_STATUS != 0``: it has no lines here) or whose
header names a seat twice is not replayed (``replayed`` false); the caller reads
it with the reference reader, or reports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from audit.facts.layout import K_BOBTAIL, K_PROGRESSION_CYCLE, profile_knobs
from audit.facts.replay_betting import enter
from audit.facts.replay_end import strength, write_pots, write_seats
from audit.facts.replay_lines import apply_line
from audit.facts.replay_openers import write_openers
from audit.facts.replay_state import (
    KINDS,
    ROUND_STATE,
    SEAT_STATE,
    SLOTS,
    inline_kernel,
    kernel,
    mask_of,
)
from audit.facts.tables import ACTION, HAND, NOT_EVALUATED, POT, SEAT, Facts, Table, new_table
from audit.house import Profile
from ingest.scan.layout import (
    E_ACTOR,
    E_ALL_IN,
    E_AMOUNT,
    E_CARDS_COUNT,
    E_CARDS_START,
    E_DRAWN_COUNT,
    E_DRAWN_START,
    E_LINE,
    E_READING,
    E_SEAT,
    E_SECTION,
    E_SIDE_POT,
    E_TO_AMOUNT,
    E_VERB,
    GAME_DRAW_HIGH,
    H_ANTE,
    H_BIG,
    H_BUTTON,
    H_CARRIED,
    H_CARRIED_OUT,
    H_EVENT_COUNT,
    H_EVENT_START,
    H_FIRST_LINE,
    H_GAME,
    H_HAND_HASH,
    H_JACKPOT,
    H_JOKER,
    H_OPENERS,
    H_POT,
    H_RAKE,
    H_SEAT_COUNT,
    H_SEAT_START,
    H_SMALL,
    H_STATUS,
    H_TABLE_HASH,
    H_TIME,
    JOKER_CODE,
    OPENERS_ABSENT,
    OPENERS_ANY,
    S_PLAYER_HASH,
    S_SEAT,
    S_STACK,
    SEC_DRAW,
    UNKNOWN_CODE,
    V_BURNS,
    V_DEALS,
    V_DEALT,
    V_DISCARDS,
    V_DRAWS_FIFTH,
    V_SHOWS,
    CardArray,
    HandArrays,
    IntArray,
)

if TYPE_CHECKING:  # not imported at run time: the compiled code's stamp stays its own
    from audit.facts.arrays import TableMemory

Record = Any  # one numpy record: its fields are attributes in compiled code


@inline_kernel
def _required(hand: IntArray, knobs: IntArray, progression: IntArray) -> int:
    """The deal's minimum openers: the header, else the house progression for Jackpot."""
    if hand[H_OPENERS] != OPENERS_ABSENT:
        return hand[H_OPENERS]
    if hand[H_GAME] == GAME_DRAW_HIGH:
        return OPENERS_ANY
    steps = progression.shape[0]
    i = max(hand[H_JACKPOT], 1) - 1
    if i < steps:
        return progression[i]
    if knobs[K_PROGRESSION_CYCLE] != 0:
        return progression[i % steps]
    return progression[steps - 1]


@inline_kernel
def _copy_header(hand: IntArray, row: Record) -> None:
    row.status, row.game, row.small, row.big = hand[H_STATUS], hand[H_GAME], hand[H_SMALL], \
        hand[H_BIG]
    row.ante, row.joker, row.button, row.jackpot = hand[H_ANTE], hand[H_JOKER] != 0, \
        hand[H_BUTTON], hand[H_JACKPOT]
    row.openers, row.carried, row.pot, row.rake = hand[H_OPENERS], hand[H_CARRIED], \
        hand[H_POT], hand[H_RAKE]
    row.carried_out, row.time, row.table = hand[H_CARRIED_OUT], hand[H_TIME], \
        hand[H_TABLE_HASH]
    row.hand_hash, row.first_line = hand[H_HAND_HASH], hand[H_FIRST_LINE]
    row.seat_start, row.seat_count = hand[H_SEAT_START], hand[H_SEAT_COUNT]
    row.action_start, row.action_count = hand[H_EVENT_START], hand[H_EVENT_COUNT]
    row.opens_index = row.draw_index = row.misdeal_index = row.first_play = -1


@inline_kernel
def _copy_lines(h: int, events: IntArray, cards: CardArray, start: int, count: int,
                actions: Table) -> None:
    """Write every field of the hand's action rows: the line as the log gives it, and
    the replay's columns as a line the replay does not reach leaves them (the table is
    not filled beforehand: these rows are its every row)."""
    for i in range(count):
        e = start + i
        row = actions[e]
        row.street = row.turn = row.status = row.opener = 0
        row.betting = row.in_turn = row.in_hand = row.all_in = False
        row.may_raise = row.pot_open = False
        row.current_bet = row.stake = row.unit = row.chips = row.bet_after = 0
        row.level = row.multi_level = row.contenders = row.level_after = row.round_start = 0
        row.hand, row.index, row.line = h, i, events[e, E_LINE]
        row.section, row.actor, row.verb = events[e, E_SECTION], events[e, E_ACTOR], \
            events[e, E_VERB]
        row.seat, row.amount, row.to_amount = events[e, E_SEAT], events[e, E_AMOUNT], \
            events[e, E_TO_AMOUNT]
        row.says_all_in, row.side_pot = events[e, E_ALL_IN] != 0, events[e, E_SIDE_POT]
        row.cards_start, row.cards_count = events[e, E_CARDS_START], events[e, E_CARDS_COUNT]
        row.drawn_start, row.drawn_count = events[e, E_DRAWN_START], events[e, E_DRAWN_COUNT]
        row.reading, row.position = events[e, E_READING], -1
        verb = row.verb
        # Cards a line hands its seat off the deck in the draw or later.
        row.received_start, row.received_count = row.cards_start, 0
        if verb == V_DISCARDS:
            row.received_start, row.received_count = row.drawn_start, max(row.drawn_count, 0)
        elif verb == V_DRAWS_FIFTH or (verb == V_DEALS and row.section >= SEC_DRAW):
            row.received_count = max(row.cards_count, 0)
        row.strength = NOT_EVALUATED
        row.cards_mask = mask_of(cards, row.cards_start, row.cards_count)
        row.drawn_mask = mask_of(cards, row.drawn_start, row.drawn_count)


@inline_kernel
def _repeats(events: IntArray, cards: CardArray, start: int, count: int, joker: bool) -> int:
    """``hands.cards_repeated``: known cards named again by a line dealing, drawing or
    burning cards, or by a discard of a seat given ``??`` cards (it may reveal one)."""
    seen = np.uint64(0)
    hidden = 0  # seat numbers given a ?? so far, as bits
    repeats = 0
    for e in range(start, start + count):
        verb = events[e, E_VERB]
        seat = events[e, E_SEAT]
        first, n = events[e, E_CARDS_START], events[e, E_CARDS_COUNT]
        if verb == V_DISCARDS:
            if not (hidden >> seat) & 1:
                n = 0
            ranges = ((first, n), (events[e, E_DRAWN_START], events[e, E_DRAWN_COUNT]))
        elif verb in (V_DEALT, V_DEALS, V_BURNS, V_DRAWS_FIFTH):
            ranges = ((first, n), (first, 0))
        else:
            continue
        for start_at, size in ranges:
            for i in range(start_at, start_at + max(size, 0)):
                code = cards[i]
                if code == UNKNOWN_CODE:
                    if verb != V_BURNS:
                        hidden |= 1 << seat
                    continue
                if code == JOKER_CODE and not joker:
                    continue
                bit = np.uint64(1) << np.uint64(code)
                if seen & bit:
                    repeats += 1
                seen |= bit
    return repeats


@inline_kernel
def _seat_the_table(h: int, hand: IntArray, seats_in: IntArray, events: IntArray,
                    sst: np.ndarray, sst_bytes: np.ndarray, order: np.ndarray,
                    numbers: np.ndarray, seats: Table) -> int:
    """Seat rows, ``order`` (clockwise from left of the button) and who was dealt in;
    the number of seats, or -1 when a seat number repeats or is out of range."""
    first, count = hand[H_SEAT_START], hand[H_SEAT_COUNT]
    for i in range(count):
        row = seats[first + i]
        row.hand, row.seat = h, seats_in[first + i, S_SEAT]
        row.player, row.start_stack = seats_in[first + i, S_PLAYER_HASH], seats_in[
            first + i, S_STACK]
    sst_bytes[:] = 0
    for i in range(count):
        n = seats_in[first + i, S_SEAT]
        if n < 1 or n >= SLOTS or sst[n].seated or count >= SLOTS:
            return -1
        s = sst[n]
        s.seated, s.row, s.stack = True, first + i, seats_in[first + i, S_STACK]
        s.shown_index = s.mucked_index = -1
        numbers[i] = n
    button = hand[H_BUTTON]
    k = 0
    for n in range(max(button + 1, 1), SLOTS):
        if sst[n].seated:
            order[k] = n
            k += 1
    for n in range(1, min(button + 1, SLOTS)):
        if sst[n].seated:
            order[k] = n
            k += 1
    for i in range(count):
        sst[order[i]].next = order[(i + 1) % count]
        sst[order[i]].position = i
    has_deal = False
    start = hand[H_EVENT_START]
    for e in range(start, start + hand[H_EVENT_COUNT]):
        if events[e, E_VERB] == V_DEALT:
            has_deal = True
            n = events[e, E_SEAT]
            if 1 <= n < SLOTS and sst[n].seated:
                sst[n].dealt_in = True
    if not has_deal:
        for i in range(count):
            sst[order[i]].dealt_in = True
    return count


@kernel
def _cap(hands_in: IntArray, events: IntArray) -> int:
    """The most cards any hand's lines name, plus one: the size of a seat's card list."""
    cap = 1
    for h in range(hands_in.shape[0]):
        total = 0
        start = hands_in[h, H_EVENT_START]
        for e in range(start, start + hands_in[h, H_EVENT_COUNT]):
            total += max(events[e, E_CARDS_COUNT], 0) + max(events[e, E_DRAWN_COUNT], 0)
        cap = max(cap, total + 1)
    return cap


def _scratch(cap: int) -> tuple[np.ndarray, ...]:
    """The replay's work space: each seat's card lists and their lengths, two card
    buffers, a combination, the seats in order and by header row, pot levels."""
    return (np.zeros((SLOTS, KINDS, cap), dtype=np.int8), np.zeros((SLOTS, KINDS), dtype=np.int64),
            np.zeros(cap, dtype=np.int8), np.zeros(cap + 5, dtype=np.int8),
            np.zeros(5, dtype=np.int64), np.zeros(SLOTS, dtype=np.int64),
            np.zeros(SLOTS, dtype=np.int64), np.zeros(SLOTS, dtype=np.int64))


@kernel
def _replay_all(hands_in: IntArray, seats_in: IntArray, events: IntArray, cards: CardArray,
                knobs: IntArray, progression: IntArray, hands: Table, actions: Table,
                seats: Table, pots: Table, pool: CardArray, sst: np.ndarray,
                sst_bytes: np.ndarray, rs_box: np.ndarray, rs_bytes: np.ndarray,
                lists: np.ndarray, lengths: IntArray, tmp: CardArray, work: CardArray,
                combo: IntArray, order: IntArray, numbers: IntArray, levels: IntArray
                ) -> tuple[int, int]:
    """Fill the tables; the number of pots and of cards in ``pool``. Without reference
    counting (``kernel``), with the per-line and per-seat functions inlined: the work
    space is made by the caller (:func:`_scratch`)."""
    made = 0
    size = cards.shape[0]
    for h in range(hands_in.shape[0]):
        hand = hands_in[h]
        row = hands[h]
        _copy_header(hand, row)
        row.pot_start = made
        start, count = hand[H_EVENT_START], hand[H_EVENT_COUNT]
        _copy_lines(h, events, cards, start, count, actions)
        row.cards_repeated = _repeats(events, cards, start, count, hand[H_JOKER] != 0)
        seated = _seat_the_table(h, hand, seats_in, events, sst, sst_bytes, order, numbers,
                                 seats)
        if hand[H_STATUS] != 0 or seated < 0:
            continue
        row.replayed = True
        row.required = _required(hand, knobs, progression)
        rs_bytes[:] = 0
        rs = rs_box[0]
        rs.round_start = rs.opens_index = rs.draw_index = rs.misdeal_index = -1
        rs.first_play = -1
        rs.unit_before = rs.unit = hand[H_SMALL]
        rs.unit_after = hand[H_BIG]
        rs.count = seated
        lengths[:, :] = 0
        section = -1
        for e in range(start, start + count):
            if events[e, E_SECTION] != section:
                section = events[e, E_SECTION]
                enter(sst, rs, order, section, e - start)
            apply_line(sst, rs, order, events, e, e - start, cards, lists, lengths, tmp,
                       actions[e])
            if events[e, E_VERB] == V_SHOWS:
                actions[e].strength = strength(cards, events[e, E_CARDS_START],
                                               events[e, E_CARDS_COUNT])
        row.opener, row.original_opener = rs.opener, rs.original_opener
        row.opens_index, row.opened_all_in = rs.opens_index, rs.opened_all_in
        row.draw_index, row.misdeal_index = rs.draw_index, rs.misdeal_index
        row.penalties, row.first_play = rs.penalties, rs.first_play
        put_in = hand[H_CARRIED] + rs.penalties
        for i in range(seated):
            put_in += sst[numbers[i]].total
        row.pot_total = put_in
        size = write_seats(sst, rs, hand[H_SEAT_START], seated, numbers, seats, actions, start,
                           cards, lists, lengths, pool, size, tmp)
        write_openers(pool, row, seats, actions, knobs[K_BOBTAIL] != 0, tmp, work, combo)
        row.pot_count = write_pots(sst, order, seated, numbers, h,
                                   hand[H_CARRIED] + rs.penalties, seats, pots, made, levels)
        made += row.pot_count
    return made, size


def replay_facts(arrays: HandArrays, profile: Profile, memory: TableMemory | None = None
                 ) -> Facts:
    """The fact tables of every hand in ``arrays`` under ``profile`` (in ``memory``, if
    given: see :class:`TableMemory`)."""
    knobs, progression = profile_knobs(profile)
    count = len(arrays)
    sizes = (("fact hands", HAND, count), ("fact actions", ACTION, len(arrays.events)),
             ("fact seats", SEAT, len(arrays.seats)),
             ("fact pots", POT, len(arrays.seats) + count))  # at most seats + 1 pots per hand
    if memory is None:
        hands, actions, seats, pots = (new_table(dtype, rows) for _, dtype, rows in sizes)
    else:
        hands, seats, pots = (memory.table(name, dtype, rows)
                              for name, dtype, rows in sizes if dtype is not ACTION)
        # The action rows are every line of the batch, each written whole (_copy_lines):
        # uninitialised memory, not a fill pass over the largest table.
        actions = memory.array("fact actions", np.uint8,
                               (len(arrays.events) * ACTION.itemsize,)).view(ACTION)
    pool = np.zeros(5 * len(arrays.cards) + 16, dtype=np.int8)
    pool[:len(arrays.cards)] = arrays.cards
    sst = np.zeros(SLOTS, dtype=SEAT_STATE)
    round_state = np.zeros(1, dtype=ROUND_STATE)
    made, size = _replay_all(arrays.hands, arrays.seats, arrays.events, arrays.cards, knobs,
                             progression, hands, actions, seats, pots, pool, sst,
                             sst.view(np.int64), round_state, round_state.view(np.int64),
                             *_scratch(_cap(arrays.hands, arrays.events)))
    return Facts(hands, actions, seats, pots[:made].copy(), pool[:size].copy())


def warm_up() -> None:
    """Compile (or load from the cache) the compiled replay, on an empty input."""
    from ingest.scan.scanner import scan

    replay_facts(scan(np.zeros(0, dtype=np.uint8)).arrays, Profile("warm-up"))
