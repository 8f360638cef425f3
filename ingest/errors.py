"""Errors of the ingest layer: what went wrong with a hand, and where.

Every problem the reader finds ends as a quarantine row that names a kind
(machine-readable, stable) and a precise message (the line, the token, what was
expected), so a floor person can fix the log and a query can count by kind.
"""

from __future__ import annotations

from enum import StrEnum


class ErrorKind(StrEnum):
    """Stable names for the kinds of problems a hand or a file can have.

    Hand kinds name one hand (a text chunk or a JSON Lines line); :data:`FILE_KINDS`
    name a whole file or the part of it that could not be read at all.
    """

    SYNTAX = "syntax"
    UNKNOWN_VERB = "unknown_verb"
    UNKNOWN_ACTOR = "unknown_actor"
    UNKNOWN_SECTION = "unknown_section"
    SECTION_ORDER = "section_order"
    BAD_CARD = "bad_card"
    BAD_AMOUNT = "bad_amount"
    #: A well-formed number past its bound (``schemas.limits``).
    OUT_OF_RANGE = "out_of_range"
    BAD_SEAT = "bad_seat"
    BAD_TIME = "bad_time"
    BAD_LIMIT = "bad_limit"
    BAD_HEADER = "bad_header"
    UNKNOWN_HEADER = "unknown_header"
    DUPLICATE_HEADER = "duplicate_header"
    MISSING_HEADER = "missing_header"
    MISSING_RESULT = "missing_result"
    TRUNCATED = "truncated"
    INVALID_RECORD = "invalid_record"
    BAD_JSON = "bad_json"
    ENCODING = "encoding"
    #: A line longer than ``schemas.limits.MAX_LINE_BYTES``.
    LINE_TOO_LONG = "line_too_long"
    #: A hand (chunk or JSON line) longer than ``schemas.limits.MAX_HAND_BYTES``.
    HAND_TOO_LONG = "hand_too_long"
    #: The reader failed on this hand in a way it does not foresee (a bug): the hand
    #: is kept here rather than the run stopped.
    READER_ERROR = "reader_error"
    #: The hand was read but the store refused its values (a bound a reader missed).
    UNSTORABLE = "unstorable"
    EMPTY_FILE = "empty_file"
    UNREADABLE_FILE = "unreadable_file"
    #: Compressed data that is not gzip, is corrupt, or stops before its end: the hands
    #: before the fault are read; the rest of the file cannot be.
    BAD_GZIP = "bad_gzip"
    #: More lines than ``schemas.limits.MAX_LINE_NUMBER``: the rest of the file is not read.
    TOO_MANY_LINES = "too_many_lines"
    CONFLICT = "conflict"


#: The kinds that are about a file (or its unreadable rest), not about one hand.
FILE_KINDS = frozenset({ErrorKind.EMPTY_FILE, ErrorKind.UNREADABLE_FILE, ErrorKind.BAD_GZIP,
                        ErrorKind.TOO_MANY_LINES})


class HandParseError(ValueError):
    """A hand's text does not follow the hand log format.

    ``line`` is the absolute line number in the source file, ``token`` the text
    that was wrong (``""`` when something is missing), ``expected`` what the format
    wants there, and ``kind`` the :class:`ErrorKind`.
    """

    def __init__(
        self,
        message: str,
        *,
        line: int,
        token: str = "",
        expected: str = "",
        kind: ErrorKind = ErrorKind.SYNTAX,
    ) -> None:
        self.line = line
        self.token = token
        self.expected = expected
        self.kind = kind
        self.detail = message
        super().__init__(self._render())

    def _render(self) -> str:
        text = f"line {self.line}: {self.detail}"
        if self.token:
            text += f" (got {self.token!r}"
            text += f", expected {self.expected})" if self.expected else ")"
        elif self.expected:
            text += f" (expected {self.expected})"
        return text
