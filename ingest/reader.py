"""Stream the hands of a log file: parsed records, or quarantine items.

``read_path`` never raises on bad input: a hand that cannot be read becomes a
:class:`QuarantineItem` (file, first line, hand id if known, error kind, precise
error, raw text) and the rest of the file is still read. An empty, non-UTF-8 or
unreadable file is reported the same way. The text form (plain or ``.gz``) and
the JSON Lines form (``*.jsonl``, ``*.jsonl.gz``, one ``HandRecord`` dump a line)
are both accepted.

To follow a growing file, read it from a byte offset (``start_offset``,
``start_line``) with ``complete_only=True`` and continue next time from the
reader's ``resume_offset``/``resume_line``: only hands already followed by a
blank line are taken, so a hand being written is never cut.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from pydantic import ValidationError

from ingest.chunks import Chunk, iter_chunks
from ingest.errors import ErrorKind, HandParseError
from ingest.parser import parse_hand
from schemas.records import HandRecord

__all__ = [
    "HandReader", "ParsedHand", "QuarantineItem", "RawHand", "ReadItem", "is_jsonl", "parse_raw",
    "read_path",
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
    for line in text.split("\n"):
        if line.startswith("Hand: "):
            return line[6:].strip() or None
    return None


def _open(path: Path) -> BinaryIO:
    if path.name.lower().endswith(".gz"):
        return gzip.open(path, "rb")  # type: ignore[return-value]
    return open(path, "rb")


class HandReader:
    """Iterate the hands of one file; see the module docstring for the options."""

    def __init__(
        self,
        path: str | Path,
        *,
        start_offset: int = 0,
        start_line: int = 1,
        complete_only: bool = False,
    ) -> None:
        self.path = Path(path)
        self.file = str(path)
        self.start_offset = start_offset
        self.start_line = start_line
        self.complete_only = complete_only
        #: Where the next read should start: after the last complete hand seen.
        self.resume_offset = start_offset
        self.resume_line = start_line

    def __iter__(self) -> Iterator[ReadItem]:
        for item in self.items(raw=False):
            assert not isinstance(item, RawHand)
            yield item

    def items(self, *, raw: bool) -> Iterator[RawHand | ReadItem]:
        """Every hand of the file; with ``raw``, text hands come unparsed (JSONL ones never)."""
        try:
            with _open(self.path) as stream:
                if self.start_offset:
                    stream.seek(self.start_offset)
                if is_jsonl(self.path):
                    yield from self._jsonl(stream)
                elif raw:
                    yield from self.iter_raw(stream)
                else:
                    yield from self.iter_text(stream)
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            yield self._file_problem(ErrorKind.UNREADABLE_FILE, f"cannot read file: {exc}")

    def _file_problem(self, kind: ErrorKind, error: str) -> QuarantineItem:
        return QuarantineItem(self.file, self.start_line, None, kind, error, "", self.start_line)

    def iter_text(self, stream: BinaryIO) -> Iterator[ReadItem]:
        """Read the text form from ``stream`` (positioned at ``start_offset``)."""
        for item in self.iter_raw(stream):
            yield item if isinstance(item, QuarantineItem) else parse_raw(item)

    def iter_raw(self, stream: BinaryIO) -> Iterator[RawHand | QuarantineItem]:
        """The text form's hands, decoded and hashed but not parsed yet."""
        seen = False
        for chunk in iter_chunks(stream, start_offset=self.start_offset,
                                 start_line=self.start_line):
            if self.complete_only and not chunk.terminated:
                break
            seen = True
            yield self._raw_hand(chunk)
            self.resume_offset = chunk.end_offset
            self.resume_line = chunk.first_line + chunk.data.count(b"\n") + 1
        if not seen and not self.start_offset:
            yield self._file_problem(ErrorKind.EMPTY_FILE, "file holds no hand")

    def _raw_hand(self, chunk: Chunk) -> RawHand | QuarantineItem:
        try:
            text = chunk.data.decode("utf-8")
        except UnicodeDecodeError as exc:
            return self._not_utf8(chunk, exc)
        # The hash is of the text with \n line ends, so a CRLF copy is a duplicate.
        if "\r" in text:
            text = text.replace("\r\n", "\n")
        return RawHand(text, sha256_text(text), self.file, chunk)

    def _not_utf8(self, chunk: Chunk, exc: UnicodeDecodeError) -> QuarantineItem:
        line = chunk.first_line + chunk.data.count(b"\n", 0, exc.start)
        text = chunk.data.decode("utf-8", errors="replace").replace("\r\n", "\n")
        bad = chunk.data[exc.start : exc.end]
        error = (f"line {line}: not UTF-8 (byte {bad!r} at file offset "
                 f"{chunk.start_offset + exc.start})")
        return QuarantineItem(self.file, chunk.first_line, hand_id_in(text), ErrorKind.ENCODING,
                              error, text, line, sha256_text(text), chunk.end_offset)

    def _jsonl(self, stream: BinaryIO) -> Iterator[ReadItem]:
        offset, line, seen = self.start_offset, self.start_line - 1, False
        for raw in stream:
            line += 1
            offset += len(raw)
            if self.complete_only and not raw.endswith(b"\n"):
                break
            data = raw.rstrip(b"\r\n")
            if data.strip():
                seen = True
                yield self._json_hand(data, line, offset)
            self.resume_offset, self.resume_line = offset, line + 1
        if not seen and not self.start_offset:
            yield self._file_problem(ErrorKind.EMPTY_FILE, "file holds no hand")

    def _json_hand(self, data: bytes, line: int, end: int) -> ReadItem:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            text = data.decode("utf-8", errors="replace")
            return QuarantineItem(self.file, line, None, ErrorKind.ENCODING,
                                  f"line {line}: not UTF-8 at column {exc.start + 1}", text, line,
                                  sha256_text(text), end)
        digest = sha256_text(text)
        try:
            record = HandRecord.model_validate_json(text)
        except ValidationError as exc:
            kind = ErrorKind.BAD_JSON if _json_syntax(exc) else ErrorKind.INVALID_RECORD
            error = f"line {line}: " + "; ".join(
                f"{'.'.join(map(str, e['loc'])) or 'record'}: {e['msg']}" for e in exc.errors()
            )
            return QuarantineItem(self.file, line, _json_hand_id(text), kind, error, text, line,
                                  digest, end)
        return ParsedHand(record, text, digest, self.file, line, end)


def parse_raw(raw: RawHand) -> ParsedHand | QuarantineItem:
    """Parse one hand's text with the reference parser."""
    chunk = raw.chunk
    try:
        record = parse_hand(raw.text, first_line=chunk.first_line)
    except HandParseError as exc:
        kind, error = exc.kind, str(exc)
        if _cut_at_end(chunk, exc):
            kind, error = ErrorKind.TRUNCATED, f"{error}; the file ends inside this hand"
        return QuarantineItem(raw.file, chunk.first_line, hand_id_in(raw.text), kind, error,
                              raw.text, exc.line, raw.sha256, chunk.end_offset)
    return ParsedHand(record, raw.text, raw.sha256, raw.file, chunk.first_line, chunk.end_offset)


def _cut_at_end(chunk: Chunk, exc: HandParseError) -> bool:
    """Whether the file ends inside this hand: it is the last chunk and either its
    RESULT never came, or it stops mid-line on the line the error is at."""
    if chunk.terminated:
        return False
    if exc.kind is ErrorKind.MISSING_RESULT:
        return True
    last_line = chunk.first_line + chunk.data.count(b"\n")
    return not chunk.newline and exc.line == last_line


def _json_syntax(exc: ValidationError) -> bool:
    return any(e["type"] == "json_invalid" for e in exc.errors())


def _json_hand_id(text: str) -> str | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    hand_id = value.get("hand_id") if isinstance(value, dict) else None
    return hand_id if isinstance(hand_id, str) else None


def read_path(
    path: str | Path,
    *,
    start_offset: int = 0,
    start_line: int = 1,
    complete_only: bool = False,
) -> Iterator[ReadItem]:
    """Yield every hand of the file at ``path`` as a :class:`ParsedHand` or a quarantine item."""
    return iter(HandReader(path, start_offset=start_offset, start_line=start_line,
                           complete_only=complete_only))


def read_text(text: str, *, file: str = "<text>") -> list[ReadItem]:
    """Read hands from a string (tests and tools); same results as a file holding ``text``."""
    reader = HandReader(file)
    return list(reader.iter_text(io.BytesIO(text.encode("utf-8"))))


def read_chunk(path: str, chunk: Chunk) -> ParsedHand | QuarantineItem:
    """Read one hand chunk of ``path`` as the reader does inside the file.

    The chunk's ending is rebuilt (a blank line, a bare line end, or none), so a hand
    cut off at the end of its file is judged as it is in the file.
    """
    reader = HandReader(path, start_offset=chunk.start_offset, start_line=chunk.first_line)
    ending = b"\n\n" if chunk.terminated else b"\n" if chunk.newline else b""
    got = next(iter(reader.iter_text(io.BytesIO(chunk.data + ending))))
    assert not isinstance(got, RawHand)
    return got
