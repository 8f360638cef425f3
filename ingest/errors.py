"""Errors of the ingest layer: what went wrong with a hand, and where.

Every problem the reader finds ends as a quarantine row that names a kind
(machine-readable, stable) and a precise message (the line, the token, what was
expected), so a floor person can fix the log and a query can count by kind.
"""

from __future__ import annotations

from enum import StrEnum


class ErrorKind(StrEnum):
    """Stable names for the kinds of problems a hand or a file can have."""

    SYNTAX = "syntax"
    UNKNOWN_VERB = "unknown_verb"
    UNKNOWN_ACTOR = "unknown_actor"
    UNKNOWN_SECTION = "unknown_section"
    SECTION_ORDER = "section_order"
    BAD_CARD = "bad_card"
    BAD_AMOUNT = "bad_amount"
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
    EMPTY_FILE = "empty_file"
    UNREADABLE_FILE = "unreadable_file"
    CONFLICT = "conflict"


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
