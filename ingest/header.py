"""Parse the header of a hand: ``Key: value`` lines and the ``Seat N`` lines.

Keys are case-sensitive and may come in any order; each key at most once. The
values are checked as strictly as :class:`~schemas.records.HandRecord` would
check them, so the parser can build the record without re-validating it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from typing import Any

from ingest.construct import trusted
from ingest.errors import ErrorKind, HandParseError
from ingest.tokens import AMOUNT_EXPECTED, parse_amount, parse_count, parse_seat_number, shorten
from schemas.limits import time_problem
from schemas.records import Game, Openers, Seat

_IDENTIFIER = re.compile(r"[A-Za-z0-9._-]+")
_GAMES = {g.value: g for g in Game}
_OPENERS = {o.value: o for o in Openers}
REQUIRED = ("Hand", "Time", "Table", "Game", "Limit", "Ante", "Button")


def _identifier(value: str, line: int, key: str) -> str:
    if _IDENTIFIER.fullmatch(value) is None:
        raise HandParseError(
            f"bad {key} id", line=line, token=value, expected="an id of [A-Za-z0-9._-]+",
            kind=ErrorKind.BAD_HEADER,
        )
    return value


def _time(value: str, line: int) -> datetime:
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None or "T" not in value:
        raise HandParseError(
            "bad Time", line=line, token=value,
            expected="ISO 8601 date and time with offset, e.g. 2026-11-28T21:04:12-08:00",
            kind=ErrorKind.BAD_TIME,
        )
    problem = time_problem(moment)
    if problem is not None:
        in_range = moment.utcoffset() is not None and "offset" not in problem
        raise HandParseError(
            f"Time {problem}", line=line, token=value,
            expected="a time from 1900-01-02 to 9999-12-30 (UTC) with an offset of whole "
                     "minutes within ±18:00",
            kind=ErrorKind.OUT_OF_RANGE if in_range else ErrorKind.BAD_TIME,
        )
    return moment


def _limit(value: str, line: int) -> tuple[int, int]:
    small, sep, big = value.partition("/")
    error: Exception
    try:
        if not sep:
            raise ValueError(value)
        return parse_amount(small, line), parse_amount(big, line)
    except HandParseError as exc:
        if exc.kind is ErrorKind.OUT_OF_RANGE:
            raise HandParseError("Limit out of range", line=line, token=shorten(value),
                                 expected=AMOUNT_EXPECTED, kind=ErrorKind.OUT_OF_RANGE) from None
        error = exc
    except ValueError as exc:
        error = exc
    raise HandParseError(
        "bad Limit", line=line, token=shorten(value),
        expected="'A/B' with two amounts, e.g. 10/20", kind=ErrorKind.BAD_LIMIT,
    ) from error


def _choice(table: dict[str, Any], key: str) -> Callable[[str, int], Any]:
    def parse(value: str, line: int) -> Any:
        found = table.get(value)
        if found is None:
            raise HandParseError(
                f"bad {key}", line=line, token=value,
                expected=" or ".join(repr(k) for k in table), kind=ErrorKind.BAD_HEADER,
            )
        return found

    return parse


def _joker(value: str, line: int) -> bool:
    return bool(_choice({"yes": True, "no": False}, "Joker")(value, line))


def _button(value: str, line: int) -> int:
    try:
        return parse_seat_number(value, line)
    except HandParseError as exc:
        raise HandParseError(
            "bad Button", line=line, token=value, expected="a seat number 1..10",
            kind=ErrorKind.BAD_HEADER,
        ) from exc


def _free_text(value: str, line: int) -> str:
    return value


# Each simple key: (record field, value parser).
_KEYS: dict[str, tuple[str, Callable[[str, int], Any]]] = {
    "Hand": ("hand_id", lambda v, n: _identifier(v, n, "Hand")),
    "Time": ("time", _time),
    "Room": ("room", _free_text),
    "Table": ("table_id", lambda v, n: _identifier(v, n, "Table")),
    "Dealer": ("dealer_id", _free_text),
    "Game": ("game", _choice(_GAMES, "Game")),
    "Ante": ("ante", parse_amount),
    "Joker": ("joker", _joker),
    "Button": ("button", _button),
    "Jackpot": ("jackpot", lambda v, n: parse_count(v, n, "Jackpot")),
    "Openers": ("openers", _choice(_OPENERS, "Openers")),
    "Carried": ("carried", parse_amount),
}
HEADER_KEYS = (*_KEYS, "Limit", "Seat N")


def _seat(key: str, value: str, line: int) -> Seat:
    number = parse_seat_number(key[5:], line)
    player, sep, stack = value.rpartition(" (")
    if not sep or not stack.endswith(")") or not player or player != player.strip():
        raise HandParseError(
            "malformed seat line", line=line, token=f"{key}: {value}",
            expected="'Seat N: PLAYER_ID (STACK)'", kind=ErrorKind.BAD_SEAT,
        )
    return trusted(Seat, {"seat": number, "player_id": player,
                          "stack": parse_amount(stack[:-1], line)})


class HeaderParser:
    """Collects header lines one by one, then checks the required keys."""

    def __init__(self) -> None:
        self.fields: dict[str, Any] = {}
        self.seats: dict[int, Seat] = {}
        self._seen: set[str] = set()

    def add(self, text: str, line: int) -> None:
        """Read one header line."""
        key, sep, value = text.partition(": ")
        if not sep:
            raise HandParseError(
                "bad header line", line=line, token=text, expected="'Key: value'",
                kind=ErrorKind.BAD_HEADER,
            )
        if key in self._seen:
            raise HandParseError(
                f"header {key!r} given twice", line=line, token=text,
                expected=f"one {key!r} line", kind=ErrorKind.DUPLICATE_HEADER,
            )
        self._seen.add(key)
        if key.startswith("Seat "):
            seat = _seat(key, value, line)
            if seat.seat in self.seats:
                raise HandParseError(
                    f"seat {seat.seat} given twice", line=line, token=text,
                    expected="one line per seat", kind=ErrorKind.DUPLICATE_HEADER,
                )
            self.seats[seat.seat] = seat
        elif key == "Limit":
            self.fields["limit_small"], self.fields["limit_big"] = _limit(value, line)
        elif key in _KEYS:
            name, parse = _KEYS[key]
            self.fields[name] = parse(value, line)
        else:
            raise HandParseError(
                "unknown header key", line=line, token=key,
                expected="one of " + ", ".join(HEADER_KEYS), kind=ErrorKind.UNKNOWN_HEADER,
            )

    def finish(self, line: int) -> dict[str, Any]:
        """The header's record fields; ``line`` is where the header ended."""
        missing = [key for key in REQUIRED if key not in self._seen]
        if missing:
            raise HandParseError(
                "missing required header " + ", ".join(missing), line=line,
                expected="headers " + ", ".join(REQUIRED) + " and two Seat lines",
                kind=ErrorKind.MISSING_HEADER,
            )
        if len(self.seats) < 2:
            raise HandParseError(
                f"{len(self.seats)} Seat line(s) in the header", line=line,
                expected="at least two 'Seat N: PLAYER (STACK)' lines",
                kind=ErrorKind.MISSING_HEADER,
            )
        self.fields["seats"] = tuple(self.seats[n] for n in sorted(self.seats))
        return self.fields
