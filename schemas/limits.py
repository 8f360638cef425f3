"""The bounds of the hand log format: every number and every size a reader accepts.

Value ranges are part of the grammar. Every reader (the reference parser, the JSON
Lines form through :class:`schemas.records.HandRecord`, the compiled scanner) refuses
a value outside these bounds, so whatever is read fits the store's columns and the
audit's integer arithmetic. ``docs/limits.md`` explains each bound and why it is
where it is; ``tests/ingest/test_limits.py`` holds every reader to it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

#: Decimal digits before the point of an amount (and at most two after it).
AMOUNT_DIGITS = 13
#: The largest amount in cents: 9,999,999,999,999.99 (fits a BIGINT 9,000 times over).
MAX_CENTS = 10**(AMOUNT_DIGITS + 2) - 1
#: Decimal digits of a count (``Jackpot``, the K of ``from side pot K``), 1..999,999,999:
#: every count fits a 32-bit INTEGER column.
COUNT_DIGITS = 9
MAX_COUNT = 10**COUNT_DIGITS - 1
#: Seat numbers.
MIN_SEAT, MAX_SEAT = 1, 10
#: The largest line number of a file (and action index of a hand): a 32-bit INTEGER.
#: A file with more lines is read up to there and the rest reported as unreadable.
MAX_LINE_NUMBER = 2**31 - 1
#: ``Time``: the instant (in UTC) lies in [MIN_TIME, MAX_TIME], with an offset of whole
#: minutes of at most MAX_UTC_OFFSET; so every time converts to UTC and back to its
#: local time in any tool without leaving the years 1900..9999.
MIN_TIME = datetime(1900, 1, 2, tzinfo=UTC)
MAX_TIME = datetime(9999, 12, 30, tzinfo=UTC)
MAX_UTC_OFFSET = timedelta(hours=18)
#: The longest line of a text log, in bytes, line end excluded. A hand holding a longer
#: line is quarantined (``line_too_long``) without being parsed.
MAX_LINE_BYTES = 16 * 1024
#: The longest hand: the bytes of one text chunk (between blank lines) or one JSON Lines
#: line. A longer one is quarantined (``hand_too_long``) with its first MAX_HAND_BYTES
#: bytes kept as its raw text; the reader never holds more of it in memory.
MAX_HAND_BYTES = 1024 * 1024

__all__ = [
    "AMOUNT_DIGITS", "COUNT_DIGITS", "MAX_CENTS", "MAX_COUNT", "MAX_HAND_BYTES",
    "MAX_LINE_BYTES", "MAX_LINE_NUMBER", "MAX_SEAT", "MAX_TIME", "MAX_UTC_OFFSET",
    "MIN_SEAT", "MIN_TIME", "time_problem",
]


def time_problem(moment: datetime) -> str | None:
    """Why ``moment`` is outside the bounds of ``Time`` (None when it is inside)."""
    offset = moment.utcoffset()
    if offset is None:
        return "no UTC offset"
    if offset % timedelta(minutes=1) or abs(offset) > MAX_UTC_OFFSET:
        return "UTC offset not a whole number of minutes within ±18:00"
    if not MIN_TIME <= moment <= MAX_TIME:
        return "outside 1900-01-02 .. 9999-12-30 (UTC)"
    return None
