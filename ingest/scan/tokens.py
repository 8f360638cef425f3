"""Compiled readers of the format's small tokens (amounts, cards, seats, time, readings).

Each reader takes the buffer, a position and the end of the line, and returns the
value and the position just after the token, or a negative position when the bytes
are not in the scanner's canonical subset (always a subset of what
:mod:`ingest.tokens` and :mod:`ingest.header` accept with the same value). The
status codes the scanner gives an unread chunk live here so every scan module
shares them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

F = TypeVar("F", bound=Callable[..., Any])
#: numba's ``_nrt=False``: these kernels never allocate, and without the runtime an
#: array argument costs no reference counting per call (measured ~25% of the scan).
_NO_RUNTIME: dict[str, Any] = {"_nrt": False}


def kernel(func: F) -> F:
    """``@njit(cache=True, nogil=True)`` for a function that allocates nothing."""
    return cast(F, njit(cache=True, nogil=True, **_NO_RUNTIME)(func))


# ---- H_STATUS codes of a chunk the scanner did not read (the reference reader decides)
ST_READ = 0
ST_BYTES = 1  # a byte or spacing outside printable ASCII lines (tab, CR, trailing blank...)
ST_HEADER = 2  # a header line outside the canonical grammar, unknown or repeated key
ST_MISSING = 3  # a required header, a second seat, RESULT or its Pot is missing
ST_SECTION = 4  # a `***` line that is not the next known section
ST_LINE = 5  # an action line outside the supported verbs and spellings
ST_RESULT = 6  # a RESULT line (Pot/Rake/Passed out) not canonical or repeated
ST_TIME = 7  # Time not `YYYY-MM-DDTHH:MM:SS` with `Z` or `+HH:MM`, or not a real date
ST_TOO_LONG = 8  # a region over MAX_HAND_BYTES: the reference quarantines it unparsed

FAIL = -1

#: Word-at-a-time constants (eight bytes of a uint64 at once).
ONES = np.uint64(0x0101010101010101)
HIGHS = np.uint64(0x8080808080808080)
SPACES = np.uint64(0x2020202020202020)
NEWLINES = np.uint64(0x0A0A0A0A0A0A0A0A)


@intrinsic
def _load_word(typingctx: Any, array: Any, index: Any) -> Any:
    """The 8 bytes array[index:index + 8] as a little-endian uint64 (one unaligned load;
    the caller guarantees index + 8 <= len(array))."""
    signature = types.uint64(array, types.int64)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        data = context.make_array(sig.args[0])(context, builder, args[0]).data
        address = builder.bitcast(builder.gep(data, [args[1]]), ir.IntType(64).as_pointer())
        return builder.load(address, align=1)

    return signature, codegen


load_word = cast(Callable[[np.ndarray, int], np.uint64], _load_word)


@intrinsic
def _trailing_zeros(typingctx: Any, word: Any) -> Any:
    """The trailing zero bits of a uint64 (one ``tzcnt``; 64 for 0)."""
    signature = types.int64(types.uint64)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return signature, codegen


trailing_zeros = cast(Callable[[np.uint64], int], _trailing_zeros)


@kernel
def unprintable_bytes(word: np.uint64) -> np.uint64:
    """The high bit of each of the 8 bytes below a space or above ``~`` (a line end
    included), and maybe of bytes above such a byte: 0 iff all are printable.

    A byte below 0x20 borrows into its high bit in ``word - SPACES`` while its own high
    bit is clear; a byte at 0x7F or above has the high bit in ``word + ONES`` or
    ``word``. Borrows and carries only run upwards, from a byte flagged anyway.
    """
    return ((word - SPACES) & ~word | (word + ONES) | word) & HIGHS


@kernel
def first_flagged(flags: np.uint64) -> int:
    """The position (0..7) of the lowest byte whose high bit ``flags`` sets (``flags`` not
    0): with :func:`unprintable_bytes` and :func:`newline_bytes` exactly the first such
    byte of the word, as their false flags only sit above a true one. One instruction,
    instead of a byte loop whose exit mispredicts at every line end."""
    return trailing_zeros(flags) >> 3


@kernel
def newline_bytes(word: np.uint64) -> np.uint64:
    """The zero-byte test on ``word ^ NEWLINES``: 0 iff no byte is a newline."""
    x = word ^ NEWLINES
    return (x - ONES) & ~x & HIGHS


_SPACE = 32
#: The category names of :class:`audit.evaluator.HandCategory`, in level order.
_CATEGORY_TEXT = (b"high card", b"one pair", b"two pair", b"three of a kind", b"straight",
                  b"flush", b"full house", b"four of a kind", b"straight flush", b"five aces")
CATEGORY_BYTES = np.frombuffer(b"".join(_CATEGORY_TEXT), dtype=np.uint8).copy()
CATEGORY_BOUNDS = np.cumsum([0, *(len(t) for t in _CATEGORY_TEXT)]).astype(np.int64)
READING_NONE, READING_UNKNOWN = -1, -2


@kernel
def is_digit(byte: int) -> bool:
    return 48 <= byte <= 57


@kernel
def starts(buf: np.ndarray, pos: int, end: int, text: np.ndarray) -> bool:
    """Whether buf[pos:end] starts with ``text``."""
    size = text.shape[0]
    if end - pos < size:
        return False
    for i in range(size):  # noqa: SIM110 (no generators in compiled code)
        if buf[pos + i] != text[i]:
            return False
    return True


@kernel
def amount(buf: np.ndarray, pos: int, end: int) -> tuple[int, int]:
    """``digits{1,13}`` or with ``.d``/``.dd``: (cents, position after) or (0, FAIL)."""
    value = 0
    i = pos
    while i < end and is_digit(buf[i]):
        value = value * 10 + (buf[i] - 48)
        i += 1
    if i == pos or i - pos > 13:
        return 0, FAIL
    value *= 100
    if i < end and buf[i] == 46:  # "."
        i += 1
        if i < end and is_digit(buf[i]):
            value += (buf[i] - 48) * 10
            i += 1
            if i < end and is_digit(buf[i]):
                value += buf[i] - 48
                i += 1
        else:
            return 0, FAIL
    return value, i


@kernel
def seat_number(buf: np.ndarray, pos: int, end: int) -> tuple[int, int]:
    """``1``..``10`` without leading zeros: (seat, position after) or (0, FAIL)."""
    if pos >= end or not (49 <= buf[pos] <= 57):
        return 0, FAIL
    if buf[pos] == 49 and pos + 1 < end and buf[pos + 1] == 48:
        return 10, pos + 2
    return buf[pos] - 48, pos + 1


@kernel
def count_value(buf: np.ndarray, pos: int, end: int) -> tuple[int, int]:
    """A positive integer ``[1-9][0-9]{0,8}``: (value, position after) or (0, FAIL)."""
    if pos >= end or not (49 <= buf[pos] <= 57):
        return 0, FAIL
    value = 0
    i = pos
    while i < end and is_digit(buf[i]):
        value = value * 10 + (buf[i] - 48)
        i += 1
    if i - pos > 9:
        return 0, FAIL
    return value, i


@kernel
def identifier(buf: np.ndarray, pos: int, end: int) -> int:
    """The end of a ``[A-Za-z0-9._-]+`` run starting at ``pos`` (FAIL if empty)."""
    i = pos
    while i < end:
        b = buf[i]
        if not (48 <= b <= 57 or 65 <= b <= 90 or 97 <= b <= 122 or b == 46 or b == 95
                or b == 45):
            break
        i += 1
    return i if i > pos else FAIL


@kernel
def fnv1a64(buf: np.ndarray, start: int, end: int) -> int:
    """FNV-1a 64 of buf[start:end] as a signed int64 (as :func:`layout.fnv1a64`)."""
    h = np.uint64(0xCBF29CE484222325)
    prime = np.uint64(0x100000001B3)
    for i in range(start, end):
        h = (h ^ np.uint64(buf[i])) * prime
    return int(np.int64(h))


def _byte_table(values: dict[bytes, int]) -> np.ndarray:
    table = np.full(256, -1, dtype=np.int8)
    for key, value in values.items():
        table[key[0]] = value
    return table


#: A card's rank byte to its rank (0 for ``2`` ... 12 for ``A``) and its suit byte to
#: its suit (``c d h s``), -1 for any other byte: table look-ups, because a chain of
#: compares mispredicts on nearly every (random) card.
RANK_OF = _byte_table({b: r for r, b in enumerate((b"2", b"3", b"4", b"5", b"6", b"7", b"8",
                                                    b"9", b"T", b"J", b"Q", b"K", b"A"))})
SUIT_OF = _byte_table({b"c": 0, b"d": 1, b"h": 2, b"s": 3})


@kernel
def card_code(first: int, second: int) -> int:
    """The card code of two bytes (0..53, as ``layout.CARD``), or FAIL."""
    rank = RANK_OF[first]
    suit = SUIT_OF[second]
    if (rank | suit) >= 0:
        return rank * 4 + suit
    if first == 74 and second == 107:  # "Jk"
        return 52
    if first == 63 and second == 63:  # "??"
        return 53
    return FAIL


@kernel
def card_list(buf: np.ndarray, pos: int, end: int) -> tuple[int, int]:
    """Check ``[c c ..]`` (single spaces, ``[]`` empty) at ``pos``: (count, after) or
    (0, FAIL). Card ``k`` is then buf[pos + 1 + 3k : pos + 3 + 3k]."""
    if pos >= end or buf[pos] != 91:  # "["
        return 0, FAIL
    i = pos + 1
    if i < end and buf[i] == 93:  # "]"
        return 0, i + 1
    count = 0
    while True:
        if i + 2 >= end or card_code(buf[i], buf[i + 1]) < 0:
            return 0, FAIL
        count += 1
        i += 2
        if buf[i] == 93:
            return count, i + 1
        if buf[i] != _SPACE:
            return 0, FAIL
        i += 1


@kernel
def reading_category(buf: np.ndarray, start: int, end: int) -> int:
    """The level of the category a READING names (``reading_category``), or READING_UNKNOWN."""
    stop = start
    while stop < end and buf[stop] != 44:  # ","
        stop += 1
    # Printable ASCII lines hold no white space but the space, so strip() is this.
    while start < stop and buf[start] == _SPACE:
        start += 1
    while stop > start and buf[stop - 1] == _SPACE:
        stop -= 1
    level = packed_index(buf, start, stop, CATEGORY_BYTES, CATEGORY_BOUNDS, True)
    return READING_UNKNOWN if level < 0 else level


@kernel
def packed_index(buf: np.ndarray, start: int, stop: int, packed: np.ndarray,
                 bounds: np.ndarray, fold_case: bool) -> int:
    """Which of the words packed end to end (``bounds``: where each starts) equals
    buf[start:stop], -1 if none; ``fold_case`` lowercases the buffer's letters."""
    for k in range(bounds.shape[0] - 1):
        lo = bounds[k]
        size = bounds[k + 1] - lo
        if size != stop - start:
            continue
        same = True
        for i in range(size):
            b = buf[start + i]
            if fold_case and 65 <= b <= 90:
                b += 32
            if b != packed[lo + i]:
                same = False
                break
        if same:
            return k
    return -1


@kernel
def _digits(buf: np.ndarray, pos: int, end: int) -> int:
    """The decimal number buf[pos:end] (FAIL unless all digits). Bounds, not a literal
    size: each literal argument would compile another specialisation."""
    value = 0
    for i in range(pos, end):
        if not is_digit(buf[i]):
            return FAIL
        value = value * 10 + (buf[i] - 48)
    return value


@kernel
def _days_from_civil(year: int, month: int, day: int) -> int:
    y = year - 1 if month <= 2 else year
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


@kernel
def time_micros(buf: np.ndarray, pos: int, end: int) -> tuple[int, int, bool]:
    """``YYYY-MM-DDTHH:MM:SS`` + ``Z``/``±HH:MM`` filling the line: (UTC micros, the
    offset in minutes, ok)."""
    size = end - pos
    if size != 20 and size != 25:
        return 0, 0, False
    if (buf[pos + 4] != 45 or buf[pos + 7] != 45 or buf[pos + 10] != 84
            or buf[pos + 13] != 58 or buf[pos + 16] != 58):
        return 0, 0, False
    year = _digits(buf, pos, pos + 4)
    month = _digits(buf, pos + 5, pos + 7)
    day = _digits(buf, pos + 8, pos + 10)
    hour = _digits(buf, pos + 11, pos + 13)
    minute = _digits(buf, pos + 14, pos + 16)
    second = _digits(buf, pos + 17, pos + 19)
    if min(year, month, day, hour, minute, second) < 0:
        return 0, 0, False
    # Years 1901..9998 and offsets up to ±17:59 lie inside the bounds of Time
    # (schemas.limits) whatever the day and offset; the reference judges the others.
    if year < 1901 or year > 9998 or not 1 <= month <= 12 or hour > 23 or minute > 59 \
            or second > 59:
        return 0, 0, False
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    month_days = 29 if month == 2 and leap else (
        28 if month == 2 else (30 if month == 4 or month == 6 or month == 9 or month == 11 else 31))
    if not 1 <= day <= month_days:
        return 0, 0, False
    offset = 0
    if size == 20:
        if buf[pos + 19] != 90:  # "Z"
            return 0, 0, False
    else:
        sign = buf[pos + 19]
        off_hour = _digits(buf, pos + 20, pos + 22)
        off_minute = _digits(buf, pos + 23, pos + 25)
        if (sign != 43 and sign != 45) or buf[pos + 22] != 58:
            return 0, 0, False
        if off_hour < 0 or off_minute < 0 or off_hour > 17 or off_minute > 59:
            return 0, 0, False
        offset = (off_hour * 3600 + off_minute * 60) * (1 if sign == 43 else -1)
    seconds = (_days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60
               + second - offset)
    return seconds * 1_000_000, offset // 60, True
