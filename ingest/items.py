"""What the readers yield: a parsed hand, or an item of quarantine, and the raw hand between.

Kept apart from :mod:`ingest.reader` (which re-exports them) so that every reader and
writer of these records shares one definition without importing the reader itself.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from ingest.chunks import Chunk
from ingest.errors import FILE_KINDS, ErrorKind
from schemas.records import HandRecord

__all__ = [
    "ParsedHand", "QuarantineItem", "RawHand", "ReadItem", "hand_id_in", "is_jsonl", "sha256_text",
]


@dataclass(frozen=True, slots=True)
class ParsedHand:
    """A hand that was read and validated."""

    record: HandRecord
    raw_text: str
    sha256: str
    file: str
    first_line: int
    #: Byte offset just after the hand in the (decompressed) file.
    end_offset: int

    @property
    def hand_id(self) -> str:
        """The record's hand id."""
        return self.record.hand_id


@dataclass(frozen=True, slots=True)
class QuarantineItem:
    """A hand (or a file) that could not be read, with what went wrong and where."""

    file: str
    first_line: int
    hand_id: str | None
    kind: ErrorKind
    error: str
    raw_text: str
    #: The line the error is at (the first line when it is about the whole hand).
    line: int
    sha256: str | None = None
    end_offset: int = 0
    #: The bytes as read, when ``raw_text`` is not exactly them (not UTF-8; cut at
    #: MAX_HAND_BYTES: then these are the first MAX_HAND_BYTES bytes).
    raw_bytes: bytes | None = None

    @property
    def is_file_item(self) -> bool:
        """About a file (or its unreadable rest), not one hand."""
        return self.kind in FILE_KINDS


ReadItem = ParsedHand | QuarantineItem


@dataclass(frozen=True, slots=True)
class RawHand:
    """One hand's text (``\\n`` line ends) and where it is, before parsing."""

    text: str
    sha256: str
    file: str
    chunk: Chunk

    @property
    def first_line(self) -> int:
        """The file line of the hand's first line."""
        return self.chunk.first_line


def sha256_text(text: str) -> str:
    """The SHA-256 hex digest of ``text`` in UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def is_jsonl(path: str | Path) -> bool:
    """True for ``*.jsonl`` and ``*.jsonl.gz`` (the JSON Lines form)."""
    name = str(path).lower()
    return name.endswith(".jsonl") or name.endswith(".jsonl.gz")


def hand_id_in(text: str) -> str | None:
    """The ``Hand:`` id named in a hand's text, if any (for quarantine rows)."""
    if text.startswith("Hand: "):
        at = 6
    else:
        at = text.find("\nHand: ")
        if at < 0:
            return None
        at += 7
    end = text.find("\n", at)
    return text[at:end if end >= 0 else len(text)].strip() or None
