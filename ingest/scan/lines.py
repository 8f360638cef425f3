"""Compiled readers of one line inside a hand: section, player, dealer, floor and RESULT
lines.

Each reader takes only the buffer and the line's bounds and returns plain values
(card lists are checked here and copied by the caller), so a call per line passes
one array and the hand loop (:mod:`ingest.scan.hand`) does every write. The
spellings read are the canonical subset of :mod:`ingest.actions` and the RESULT
lines of :mod:`ingest.parser`.
"""

from __future__ import annotations

import numpy as np

from ingest.scan.layout import (
    H_CARRIED_OUT,
    H_POT,
    H_RAKE,
    V_ANTES,
    V_BETS,
    V_BURNS,
    V_CALLS,
    V_CHECKS,
    V_COLLECTS,
    V_DEALS,
    V_DEALT,
    V_DECLARES_OPENERS,
    V_DISCARDS,
    V_DRAWS_FIFTH,
    V_EXPOSES,
    V_FALSE_OPENERS,
    V_FOLDS,
    V_FOULED_HAND,
    V_MISDEAL,
    V_MUCKS,
    V_NOTE,
    V_OPENS,
    V_PENALTY,
    V_POT_KILLED,
    V_POT_PLAYS,
    V_RAISES,
    V_RETRIEVES_HAND,
    V_RETURNS,
    V_SHOWS,
    V_SHOWS_OPENERS,
    V_SPLITS_OPENERS,
    V_STANDS_PAT,
    V_WITHDRAWS,
)
from ingest.scan.tokens import (
    READING_NONE,
    amount,
    card_list,
    count_value,
    first_flagged,
    kernel,
    load_word,
    packed_index,
    reading_category,
    seat_number,
    starts,
    unprintable_bytes,
)
from schemas.limits import MAX_LINE_BYTES
from schemas.records import SECTION_ORDER


def _text(value: bytes) -> np.ndarray:
    return np.frombuffer(value, dtype=np.uint8).copy()


_SECTION_TEXT = [f"*** {s.value} ***".encode() for s in SECTION_ORDER]
SECTION_BYTES = _text(b"".join(_SECTION_TEXT))
SECTION_BOUNDS = np.cumsum([0, *(len(t) for t in _SECTION_TEXT)]).astype(np.int64)
_SEAT_PREFIX = _text(b"Seat ")
_DEALER = _text(b"Dealer: ")
_BURNS = _text(b"burns")
_MISDEAL = _text(b"misdeal")
_EXPOSES = _text(b"exposes ")
_DEALS = _text(b"deals ")
_RETURNS = _text(b"returns ")
_TO_SEAT = _text(b" to Seat ")
_DRAWS_FIFTH = _text(b"draws fifth ")
_SPLITS_OPENERS = _text(b"splits openers")
_POT = _text(b"Pot: ")
_RAKE = _text(b"Rake: ")
_PASSED_OUT = _text(b"Passed out: carried ")
_ANTES = _text(b"antes ")
_CHECKS = _text(b"checks")
_CALLS = _text(b"calls ")
_COLLECTS = _text(b"collects ")
_OPENS = _text(b"opens ")
_BETS = _text(b"bets ")
_RAISES = _text(b"raises ")
_TO = _text(b" to ")
_FOLDS = _text(b"folds")
_SHOWS_OPENERS = _text(b"shows openers ")
_SHOWS = _text(b"shows ")
_STANDS_PAT = _text(b"stands pat")
_DISCARDS = _text(b"discards ")
_DRAWS = _text(b" draws ")
_MUCKS = _text(b"mucks")
_ALL_IN = _text(b" and is all-in")
_FROM_SIDE_POT = _text(b" from side pot ")
_WITHDRAWS = _text(b"withdraws ")
_DECLARES_OPENERS = _text(b"declares openers")
_RETRIEVES_HAND = _text(b"retrieves hand")
_FLOOR = _text(b"Floor: ")
_NOTE = _text(b"note ")
_POT_PLAYS = _text(b"pot plays")
_POT_KILLED = _text(b"pot killed")
_FALSE_OPENERS = _text(b"false openers")
_FOULED_HAND = _text(b"fouled hand")
_PENALTY = _text(b"penalty ")


@kernel
def line_end(buf: np.ndarray, pos: int, end: int) -> tuple[int, int]:
    """(the line's newline or ``end``, the end of its text before any CR), or (-1, -1)
    when the line holds a byte outside printable ASCII (a lone CR included) or is longer
    than MAX_LINE_BYTES."""
    i = pos
    # Eight bytes at a time while all are printable (a line is ~20 bytes), then straight
    # to the first byte that is not; bytes by one only in the last word of the buffer.
    while i + 8 <= end:
        flags = unprintable_bytes(load_word(buf, i))
        if flags:
            i += first_flagged(flags)
            break
        i += 8
    while i < end:
        byte = buf[i]
        if 32 <= byte <= 126:
            i += 1
            continue
        if byte == 10:
            return (i, i) if i - pos <= MAX_LINE_BYTES else (-1, -1)
        if byte == 13 and i + 1 < end and buf[i + 1] == 10:
            return (i + 1, i) if i - pos <= MAX_LINE_BYTES else (-1, -1)
        return -1, -1
    return (end, end) if end - pos <= MAX_LINE_BYTES else (-1, -1)


@kernel
def section_line(buf: np.ndarray, ls: int, le: int) -> int:
    """The position of the ``*** NAME ***`` line buf[ls:le] in SECTION_ORDER, or -1."""
    return packed_index(buf, ls, le, SECTION_BYTES, SECTION_BOUNDS, False)


@kernel
def _all_in(buf: np.ndarray, after: int, le: int) -> tuple[int, int]:
    """After a wager's amount ending at ``after``: (1, le) when the line ends with
    `` and is all-in``, (0, after) otherwise."""
    if after > 0 and le - after == 14 and starts(buf, after, le, _ALL_IN):
        return 1, le
    return 0, after


@kernel
def player_line(buf: np.ndarray, ls: int, le: int) -> tuple[int, int, int, int, int, int, int,
                                                          int, int, int, int, int]:
    """A ``Seat N: ...`` line: (verb, seat, amount, to amount, first card list at, its
    count, second list at, its count, reading, where the reading's text starts, all-in,
    side pot); verb -1 when not read. A count is -1 for no list (then its position is
    unused); a reading's text ends one byte before the line's end. ``and is all-in`` is
    read after the wagering verbs only (antes, opens, bets, calls, raises), as the
    reference reads it."""
    if not starts(buf, ls, le, _SEAT_PREFIX):
        return -1, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0
    seat, pos = seat_number(buf, ls + 5, le)
    if pos < 0 or pos + 2 >= le or buf[pos] != 58 or buf[pos + 1] != 32:
        return -1, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0
    r = pos + 2
    verb = -1
    value = -1
    to_value = -1
    at = 0
    count = -1
    drawn_at = 0
    drawn = -1
    reading = READING_NONE
    reading_at = -1
    all_in = 0
    side_pot = 0
    after = -1
    first = buf[r]
    if first == 91:  # "["
        verb = V_DEALT
        at = r
        count, after = card_list(buf, r, le)
    elif first == 99:  # c
        if le - r == 6 and starts(buf, r, le, _CHECKS):
            verb, after = V_CHECKS, le
        elif starts(buf, r, le, _CALLS):
            verb = V_CALLS
            value, after = amount(buf, r + 6, le)
            all_in, after = _all_in(buf, after, le)
        elif starts(buf, r, le, _COLLECTS):
            verb = V_COLLECTS
            value, after = amount(buf, r + 9, le)
            if 0 < after < le and starts(buf, after, le, _FROM_SIDE_POT):
                side_pot, after = count_value(buf, after + 15, le)
    elif first == 102:  # f
        if le - r == 5 and starts(buf, r, le, _FOLDS):
            verb, after = V_FOLDS, le
    elif first == 97:  # a
        if starts(buf, r, le, _ANTES):
            verb = V_ANTES
            value, after = amount(buf, r + 6, le)
            all_in, after = _all_in(buf, after, le)
    elif first == 98:  # b
        if starts(buf, r, le, _BETS):
            verb = V_BETS
            value, after = amount(buf, r + 5, le)
            all_in, after = _all_in(buf, after, le)
    elif first == 111:  # o
        if starts(buf, r, le, _OPENS):
            verb = V_OPENS
            value, after = amount(buf, r + 6, le)
            all_in, after = _all_in(buf, after, le)
    elif first == 114:  # r
        if starts(buf, r, le, _RAISES):
            value, mid = amount(buf, r + 7, le)
            if mid > 0 and starts(buf, mid, le, _TO):
                verb = V_RAISES
                to_value, after = amount(buf, mid + 4, le)
                all_in, after = _all_in(buf, after, le)
        elif le - r == 14 and starts(buf, r, le, _RETRIEVES_HAND):
            verb, after = V_RETRIEVES_HAND, le
    elif first == 115:  # s
        if le - r == 10 and starts(buf, r, le, _STANDS_PAT):
            verb, after = V_STANDS_PAT, le
        elif le - r == 14 and starts(buf, r, le, _SPLITS_OPENERS):
            verb, after = V_SPLITS_OPENERS, le
        elif starts(buf, r, le, _SHOWS_OPENERS):
            verb = V_SHOWS_OPENERS
            at = r + 14
            count, after = card_list(buf, at, le)
        elif starts(buf, r, le, _SHOWS):
            verb = V_SHOWS
            at = r + 6
            count, after = card_list(buf, at, le)
            # `shows [..] (READING)`: the reading is everything inside " (" .. final ")".
            if 0 < after < le:
                if le - after > 3 and buf[after] == 32 and buf[after + 1] == 40 \
                        and buf[le - 1] == 41:
                    reading = reading_category(buf, after + 2, le - 1)
                    reading_at = after + 2
                    after = le
                else:
                    after = -1
    elif first == 100:  # d
        if starts(buf, r, le, _DRAWS_FIFTH):
            verb = V_DRAWS_FIFTH
            at = r + 12
            count, after = card_list(buf, at, le)
        elif starts(buf, r, le, _DISCARDS):
            verb = V_DISCARDS
            at = r + 9
            count, mid = card_list(buf, at, le)
            if mid > 0 and starts(buf, mid, le, _DRAWS):
                drawn_at = mid + 7
                drawn, after = card_list(buf, drawn_at, le)
        elif le - r == 16 and starts(buf, r, le, _DECLARES_OPENERS):
            verb, after = V_DECLARES_OPENERS, le
    elif first == 109:  # m
        if le - r == 5 and starts(buf, r, le, _MUCKS):
            verb, after = V_MUCKS, le
        elif le - r > 6 and starts(buf, r, le, _MUCKS) and buf[r + 5] == 32:
            verb = V_MUCKS
            at = r + 6
            count, after = card_list(buf, at, le)
    elif first == 119 and starts(buf, r, le, _WITHDRAWS):  # w
        verb = V_WITHDRAWS
        value, after = amount(buf, r + 10, le)
    if verb < 0 or after != le:
        return -1, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0
    return (verb, seat, value, to_value, at, count, drawn_at, drawn, reading, reading_at,
            all_in, side_pot)


@kernel
def _to_seat(buf: np.ndarray, pos: int, le: int) -> int:
    """The N of `` to Seat N`` filling buf[pos:le], or -1."""
    if not starts(buf, pos, le, _TO_SEAT):
        return -1
    seat, after = seat_number(buf, pos + 9, le)
    return seat if after == le else -1


@kernel
def dealer_line(buf: np.ndarray, ls: int, le: int) -> tuple[int, int, int, int, int]:
    """A ``Dealer: ...`` line (burns, misdeal, exposes/deals [..] to Seat N, returns X to
    Seat N): (verb or -1, seat or 0, amount or -1, card list at, count or -1)."""
    if not starts(buf, ls, le, _DEALER):
        return -1, 0, -1, 0, -1
    r = ls + 8
    if starts(buf, r, le, _BURNS):
        pos = r + 5
        if pos == le:
            return V_BURNS, 0, -1, 0, -1
        if buf[pos] != 32:
            return -1, 0, -1, 0, -1
        count, after = card_list(buf, pos + 1, le)
        return (V_BURNS if after == le else -1), 0, -1, pos + 1, count
    if le - r == 7 and starts(buf, r, le, _MISDEAL):
        return V_MISDEAL, 0, -1, 0, -1
    verb = -1
    at = 0
    if starts(buf, r, le, _EXPOSES):
        verb, at = V_EXPOSES, r + 8
    elif starts(buf, r, le, _DEALS):
        verb, at = V_DEALS, r + 6
    if verb >= 0:
        count, after = card_list(buf, at, le)
        seat = _to_seat(buf, after, le) if after > 0 else -1
        return (verb if seat > 0 else -1), seat, -1, at, count
    if starts(buf, r, le, _RETURNS):
        value, after = amount(buf, r + 8, le)
        seat = _to_seat(buf, after, le) if after > 0 else -1
        return (V_RETURNS if seat > 0 else -1), seat, value, 0, -1
    return -1, 0, -1, 0, -1


@kernel
def floor_line(buf: np.ndarray, ls: int, le: int) -> tuple[int, int, int, int]:
    """A ``Floor: ...`` line (note TEXT, pot plays, pot killed, Seat N false openers,
    Seat N fouled hand, Seat N penalty X): (verb or -1, seat or 0, amount or -1, where
    a note's text starts or -1; it ends at the line's end)."""
    if not starts(buf, ls, le, _FLOOR):
        return -1, 0, -1, -1
    r = ls + 7
    if le - r > 5 and starts(buf, r, le, _NOTE):
        return V_NOTE, 0, -1, r + 5
    if le - r == 9 and starts(buf, r, le, _POT_PLAYS):
        return V_POT_PLAYS, 0, -1, -1
    if le - r == 10 and starts(buf, r, le, _POT_KILLED):
        return V_POT_KILLED, 0, -1, -1
    if not starts(buf, r, le, _SEAT_PREFIX):
        return -1, 0, -1, -1
    seat, pos = seat_number(buf, r + 5, le)
    if pos < 0 or pos >= le or buf[pos] != 32:
        return -1, 0, -1, -1
    pos += 1
    if le - pos == 13 and starts(buf, pos, le, _FALSE_OPENERS):
        return V_FALSE_OPENERS, seat, -1, -1
    if le - pos == 11 and starts(buf, pos, le, _FOULED_HAND):
        return V_FOULED_HAND, seat, -1, -1
    if starts(buf, pos, le, _PENALTY):
        value, after = amount(buf, pos + 8, le)
        if after == le:
            return V_PENALTY, seat, value, -1
    return -1, 0, -1, -1


@kernel
def result_line(buf: np.ndarray, ls: int, le: int) -> tuple[int, int, int]:
    """``Pot: X`` / ``Rake: X`` / ``Passed out: carried X``: (line bit, hand column,
    amount); bit 0 when the line is none of them (an action line then), amount -1 when
    the line is one of them but its amount is not canonical."""
    if starts(buf, ls, le, _POT):
        bit, column, pos = 1, H_POT, ls + 5
    elif starts(buf, ls, le, _RAKE):
        bit, column, pos = 2, H_RAKE, ls + 6
    elif starts(buf, ls, le, _PASSED_OUT):
        bit, column, pos = 4, H_CARRIED_OUT, ls + 20
    else:
        return 0, 0, 0
    value, after = amount(buf, pos, le)
    return bit, column, value if after == le else -1
