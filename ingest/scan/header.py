"""Compiled reader of one header line (``Key: value`` and ``Seat N: PLAYER (STACK)``).

Only the canonical spelling of each key is read (the subset of
:class:`ingest.header.HeaderParser` that gives the same values); anything else,
a repeated key or seat included, makes the chunk unread (``ST_HEADER``/``ST_TIME``)
so the reference reader decides. The values go back to the caller, which writes the row.
"""

from __future__ import annotations

import numpy as np

from ingest.scan.layout import GAME_DRAW_HIGH, GAME_JACKS_OR_BETTER, OPENERS_ANY
from ingest.scan.tokens import (
    FAIL,
    ST_HEADER,
    ST_READ,
    ST_TIME,
    amount,
    count_value,
    fnv1a64,
    identifier,
    kernel,
    seat_number,
    starts,
    time_micros,
)


def _text(value: bytes) -> np.ndarray:
    return np.frombuffer(value, dtype=np.uint8).copy()


KEY_HAND, KEY_TIME, KEY_ROOM, KEY_TABLE, KEY_DEALER, KEY_GAME, KEY_LIMIT = 1, 2, 4, 8, 16, 32, 64
KEY_ANTE, KEY_JOKER, KEY_BUTTON, KEY_JACKPOT, KEY_OPENERS, KEY_CARRIED = 128, 256, 512, 1024, \
    2048, 4096
KEY_SEAT = 8192  # not a repeat check: seats are checked by number
#: ``ingest.header.REQUIRED``.
REQUIRED_KEYS = KEY_HAND | KEY_TIME | KEY_TABLE | KEY_GAME | KEY_LIMIT | KEY_ANTE | KEY_BUTTON

_HAND = _text(b"Hand: ")
_TIME = _text(b"Time: ")
_ROOM = _text(b"Room: ")
_TABLE = _text(b"Table: ")
_DEALER = _text(b"Dealer: ")
_GAME = _text(b"Game: ")
_LIMIT = _text(b"Limit: ")
_ANTE = _text(b"Ante: ")
_JOKER = _text(b"Joker: ")
_BUTTON = _text(b"Button: ")
_JACKPOT = _text(b"Jackpot: ")
_OPENERS = _text(b"Openers: ")
_CARRIED = _text(b"Carried: ")
_SEAT = _text(b"Seat ")
_JACKS = _text(b"Jacks or Better")
_DRAW_HIGH = _text(b"Draw High")
_YES = _text(b"yes")
_NO = _text(b"no")


@kernel
def _exactly(buf: np.ndarray, pos: int, end: int, text: np.ndarray) -> bool:
    return end - pos == text.shape[0] and starts(buf, pos, end, text)


@kernel
def _amount_to_end(buf: np.ndarray, pos: int, end: int) -> int:
    value, after = amount(buf, pos, end)
    return value if after == end else FAIL


@kernel
def _openers(buf: np.ndarray, pos: int, end: int) -> int:
    """``JJ``/``QQ``/``KK``/``AA`` as the pair rank (9..12), ``ANY``, or FAIL."""
    if end - pos == 3 and buf[pos] == 65 and buf[pos + 1] == 78 and buf[pos + 2] == 89:
        return OPENERS_ANY
    if end - pos != 2 or buf[pos] != buf[pos + 1]:
        return FAIL
    rank = buf[pos]
    if rank == 74:
        return 9
    if rank == 81:
        return 10
    if rank == 75:
        return 11
    if rank == 65:
        return 12
    return FAIL


@kernel
def _key(buf: np.ndarray, ls: int, le: int) -> tuple[int, int]:
    """The key bit of a ``Key: value`` line and where its value starts, (0, FAIL) if none."""
    first = buf[ls]
    if first == 72 and starts(buf, ls, le, _HAND):
        return KEY_HAND, ls + 6
    if first == 84:
        if starts(buf, ls, le, _TIME):
            return KEY_TIME, ls + 6
        if starts(buf, ls, le, _TABLE):
            return KEY_TABLE, ls + 7
    if first == 82 and starts(buf, ls, le, _ROOM):
        return KEY_ROOM, ls + 6
    if first == 68 and starts(buf, ls, le, _DEALER):
        return KEY_DEALER, ls + 8
    if first == 71 and starts(buf, ls, le, _GAME):
        return KEY_GAME, ls + 6
    if first == 76 and starts(buf, ls, le, _LIMIT):
        return KEY_LIMIT, ls + 7
    if first == 65 and starts(buf, ls, le, _ANTE):
        return KEY_ANTE, ls + 6
    if first == 74:
        if starts(buf, ls, le, _JOKER):
            return KEY_JOKER, ls + 7
        if starts(buf, ls, le, _JACKPOT):
            return KEY_JACKPOT, ls + 9
    if first == 66 and starts(buf, ls, le, _BUTTON):
        return KEY_BUTTON, ls + 8
    if first == 79 and starts(buf, ls, le, _OPENERS):
        return KEY_OPENERS, ls + 9
    if first == 67 and starts(buf, ls, le, _CARRIED):
        return KEY_CARRIED, ls + 9
    return 0, FAIL


@kernel
def _seat_line(buf: np.ndarray, ls: int, le: int
               ) -> tuple[int, int, int, int, int, int, int]:
    """``Seat N: PLAYER (STACK)`` with an id-like player: (status, KEY_SEAT, seat, stack,
    player hash, where the player id starts and ends)."""
    seat, pos = seat_number(buf, ls + 5, le)
    if pos < 0 or pos + 2 > le or buf[pos] != 58 or buf[pos + 1] != 32:
        return ST_HEADER, 0, 0, 0, 0, 0, 0
    player = pos + 2
    player_end = identifier(buf, player, le)
    if player_end < 0 or player_end + 2 >= le or buf[player_end] != 32 \
            or buf[player_end + 1] != 40 or buf[le - 1] != 41:
        return ST_HEADER, 0, 0, 0, 0, 0, 0
    stack, after = amount(buf, player_end + 2, le - 1)
    if after != le - 1:
        return ST_HEADER, 0, 0, 0, 0, 0, 0
    return ST_READ, KEY_SEAT, seat, stack, fnv1a64(buf, player, player_end), player, player_end


@kernel
def header_line(buf: np.ndarray, ls: int, le: int
                ) -> tuple[int, int, int, int, int, int, int]:
    """Read one header line: (status, key bit, value, second value, third value, and
    where the value's text starts and ends).

    The values: the hand/table hash, UTC micros (and the offset in minutes), a
    ``GAME_*``/``OPENERS`` code, the amount, seat or count; ``Limit`` gives (small, big);
    a seat line (seat, stack, player hash, and the player id's text); Room and Dealer
    only their text. The caller checks repeats and writes the row.
    """
    if buf[ls] == 83 and starts(buf, ls, le, _SEAT):
        return _seat_line(buf, ls, le)
    key, pos = _key(buf, ls, le)
    if pos < 0:
        return ST_HEADER, 0, 0, 0, 0, 0, 0
    value = 0
    second = 0
    if key == KEY_HAND or key == KEY_TABLE:  # noqa: SIM109 (compiled: no tuple)
        if identifier(buf, pos, le) != le:
            return ST_HEADER, 0, 0, 0, 0, 0, 0
        value = fnv1a64(buf, pos, le)
    elif key == KEY_TIME:
        value, second, ok = time_micros(buf, pos, le)
        if not ok:
            return ST_TIME, 0, 0, 0, 0, 0, 0
    elif key == KEY_ROOM or key == KEY_DEALER:  # noqa: SIM109
        pass  # free text; the line is printable ASCII with no blank at either end
    elif key == KEY_GAME:
        if _exactly(buf, pos, le, _JACKS):
            value = GAME_JACKS_OR_BETTER
        elif _exactly(buf, pos, le, _DRAW_HIGH):
            value = GAME_DRAW_HIGH
        else:
            return ST_HEADER, 0, 0, 0, 0, 0, 0
    elif key == KEY_LIMIT:
        value, after = amount(buf, pos, le)
        if after < 0 or after >= le or buf[after] != 47:  # "/"
            return ST_HEADER, 0, 0, 0, 0, 0, 0
        second = _amount_to_end(buf, after + 1, le)
        if second < 0:
            return ST_HEADER, 0, 0, 0, 0, 0, 0
    elif key == KEY_JOKER:
        if _exactly(buf, pos, le, _YES):
            value = 1
        elif not _exactly(buf, pos, le, _NO):
            return ST_HEADER, 0, 0, 0, 0, 0, 0
    elif key == KEY_BUTTON:
        value, after = seat_number(buf, pos, le)
        if after != le:
            return ST_HEADER, 0, 0, 0, 0, 0, 0
    elif key == KEY_JACKPOT:
        value, after = count_value(buf, pos, le)
        if after != le:
            return ST_HEADER, 0, 0, 0, 0, 0, 0
    elif key == KEY_OPENERS:
        value = _openers(buf, pos, le)
        if value < 0:
            return ST_HEADER, 0, 0, 0, 0, 0, 0
    else:  # Ante, Carried
        value = _amount_to_end(buf, pos, le)
        if value < 0:
            return ST_HEADER, 0, 0, 0, 0, 0, 0
    return ST_READ, key, value, second, 0, pos, le
