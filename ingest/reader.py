"""Stream the hands of a log file: parsed records, or quarantine items.

``read_path`` never raises, whatever the input: a hand that cannot be read becomes
a :class:`QuarantineItem` (file, first line, hand id if known, error kind, precise
error, raw text and, when the text is not exactly the bytes, the raw bytes) and the
rest of the file is still read. A file that cannot be opened, an empty file, gzip
data that is corrupt or cut, or an unforeseen failure of the reader itself is
reported the same way, as an item of the file, after every hand before the fault.
The text form (plain or ``.gz``) and the JSON Lines form (``*.jsonl``,
``*.jsonl.gz``, one ``HandRecord`` dump a line) are both accepted.

Sizes and values are bounded (``schemas.limits``, ``docs/limits.md``): a hand or a
line too long is quarantined without being held whole in memory.

Conservation: :attr:`HandReader.chunks` counts the hands (text chunks, non-blank
JSON lines) the reader met; each of them is yielded as exactly one hand or one hand
item, and file items come in addition.

To follow a growing file, read it from a byte offset (``start_offset``,
``start_line``) with ``complete_only=True`` and continue next time from the
reader's ``resume_offset``/``resume_line``: only hands already followed by a
blank line are taken, so a hand being written is never cut.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from pydantic import ValidationError

from ingest.chunks import ByteStream, Chunk, iter_chunks
from ingest.errors import ErrorKind, HandParseError
from ingest.items import (
    ParsedHand,
    QuarantineItem,
    RawHand,
    ReadItem,
    hand_id_in,
    is_jsonl,
    sha256_text,
)
from ingest.jsonlines import is_json_syntax_error, json_hand_id, json_lines
from ingest.parser import parse_hand
from ingest.source import ByteSource
from schemas.limits import MAX_HAND_BYTES, MAX_LINE_BYTES, MAX_LINE_NUMBER
from schemas.records import HandRecord

#: The records it yields are defined in :mod:`ingest.items` and re-exported here.
__all__ = [
    "HandReader", "ParsedHand", "QuarantineItem", "RawHand", "ReadItem", "hand_id_in", "is_jsonl",
    "parse_raw", "read_chunk", "read_path", "read_text", "sha256_text",
]


T = TypeVar("T")


class HandReader:
    """Iterate the hands of one file; see the module docstring for the options.

    ``name`` is the file name the items carry (default: ``path`` as given; the store
    passes the canonical path, so one file is one name however it was named).
    """

    def __init__(
        self,
        path: str | Path,
        *,
        start_offset: int = 0,
        start_line: int = 1,
        complete_only: bool = False,
        name: str | None = None,
    ) -> None:
        self.path = Path(path)
        self.file = name if name is not None else str(path)
        self.start_offset = start_offset
        self.start_line = start_line
        self.complete_only = complete_only
        #: Where the next read should start: after the last complete hand seen.
        self.resume_offset = start_offset
        self.resume_line = start_line
        #: Hands met (text chunks, non-blank JSON lines): each is yielded as one item.
        self.chunks = 0
        #: The SHA-256 and size of the file's bytes on disk, once read to its end
        #: (None when read from an offset or stopped early).
        self.content_sha256: str | None = None
        self.content_bytes = 0

    def __iter__(self) -> Iterator[ReadItem]:
        for item in self.items(raw=False):
            assert not isinstance(item, RawHand)
            yield item

    def items(self, *, raw: bool) -> Iterator[RawHand | ReadItem]:
        """Every hand of the file; with ``raw``, text hands come unparsed (JSONL ones never).

        Never raises: whatever goes wrong ends as an item of the file, after every hand
        read before it.
        """
        def body(source: ByteSource) -> Iterator[RawHand | ReadItem]:
            if is_jsonl(self.path):
                return self._jsonl(source)
            return self.iter_raw(source) if raw else self.iter_text(source)

        return self.guarded(body)

    def guarded(self, body: Callable[[ByteSource], Iterator[T]]) -> Iterator[T | QuarantineItem]:
        """Run ``body`` over the file's bytes; a fault of the file (or a bug of the reader)
        ends as an item of the file after everything ``body`` yielded."""
        with ByteSource(self.path, start_offset=self.start_offset) as source:
            try:
                yield from body(source)
            except Exception as exc:  # a bug of the reader: the file says so, the run goes on
                yield self._file_problem(
                    ErrorKind.READER_ERROR,
                    f"the reader failed after byte {source.position:,} ({type(exc).__name__}: "
                    f"{exc}); the rest of the file is not read")
                return
            if source.fault is not None:
                yield self._file_problem(source.fault.kind, source.fault.message)
            elif not self.start_offset:
                self.content_sha256, self.content_bytes = source.sha256, source.disk_bytes

    def _file_problem(self, kind: ErrorKind, error: str, line: int | None = None
                      ) -> QuarantineItem:
        at = self.start_line if line is None else line
        return QuarantineItem(self.file, at, None, kind, error, "", at)

    def iter_text(self, stream: ByteStream) -> Iterator[ReadItem]:
        """Read the text form from ``stream`` (positioned at ``start_offset``)."""
        for item in self.iter_raw(stream):
            yield item if isinstance(item, QuarantineItem) else parse_raw(item)

    def iter_raw(self, stream: ByteStream) -> Iterator[RawHand | QuarantineItem]:
        """The text form's hands, decoded and hashed but not parsed yet."""
        for chunk in iter_chunks(stream, start_offset=self.start_offset,
                                 start_line=self.start_line):
            item, stop = self.take(chunk, stream)
            if item is not None:
                yield item
            if stop:
                return
        item = self.finish(stream)
        if item is not None:
            yield item

    def take(self, chunk: Chunk, stream: ByteStream
             ) -> tuple[RawHand | QuarantineItem | None, bool]:
        """What the chunk is (a hand to parse, or an item), and whether reading stops.

        The one place that decides, for every way the text form is read: the file's line
        bound, a hand the file's data stops in, a last hand not complete yet
        (``complete_only``); it counts the hand met and moves the resume point.
        """
        next_line = chunk.next_line
        if next_line - 1 > MAX_LINE_NUMBER:
            return self._too_many_lines(chunk.first_line), True
        cut = not chunk.terminated and getattr(stream, "fault", None) is not None
        if self.complete_only and not chunk.terminated and not cut:
            return None, True
        self.chunks += 1
        self.resume_offset = chunk.end_offset
        self.resume_line = next_line
        return (self._cut_hand(chunk) if cut else self._raw_hand(chunk)), False

    def finish(self, stream: ByteStream) -> QuarantineItem | None:
        """The item that ends a text file's reading: an empty file says so."""
        if not self.chunks and not self.start_offset and getattr(stream, "fault", None) is None:
            return self._file_problem(ErrorKind.EMPTY_FILE, "file holds no hand")
        return None

    def judge(self, chunk: Chunk, stream: ByteStream) -> tuple[ReadItem | None, bool]:
        """:meth:`take`, then the reference parser: the hand's record or its item."""
        item, stop = self.take(chunk, stream)
        return (parse_raw(item) if isinstance(item, RawHand) else item), stop

    def _too_many_lines(self, line: int) -> QuarantineItem:
        return self._file_problem(
            ErrorKind.TOO_MANY_LINES,
            f"the file has more than {MAX_LINE_NUMBER:,} lines; nothing from line "
            f"{min(line, MAX_LINE_NUMBER):,} on is read", min(line, MAX_LINE_NUMBER))

    def _raw_hand(self, chunk: Chunk) -> RawHand | QuarantineItem:
        if chunk.oversize:
            return self._oversize(chunk)
        data = chunk.data
        if len(data) > MAX_LINE_BYTES:
            long = _long_line(data)
            if long is not None:
                return self._line_too_long(chunk, *long)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            return self._not_utf8(chunk, exc)
        # The hash is of the text with \n line ends, so a CRLF copy is a duplicate.
        if "\r" in text:
            text = text.replace("\r\n", "\n")
        return RawHand(text, sha256_text(text), self.file, chunk)

    def _item(self, chunk: Chunk, kind: ErrorKind, error: str, line: int,
              raw_bytes: bytes | None) -> QuarantineItem:
        """A hand item whose text is the chunk's bytes decoded leniently."""
        text = chunk.data.decode("utf-8", errors="replace").replace("\r\n", "\n")
        exact = raw_bytes is None or raw_bytes == text.encode("utf-8")
        return QuarantineItem(self.file, chunk.first_line, hand_id_in(text), kind, error, text,
                              line, sha256_text(text), chunk.end_offset,
                              None if exact else raw_bytes)

    def _oversize(self, chunk: Chunk) -> QuarantineItem:
        error = (f"line {chunk.first_line}: a hand of {chunk.oversize:,} bytes without a blank "
                 f"line (at most {MAX_HAND_BYTES:,}); its first {MAX_HAND_BYTES:,} bytes are "
                 f"kept (file bytes {chunk.start_offset:,}..{chunk.end_offset:,})")
        return self._item(chunk, ErrorKind.HAND_TOO_LONG, error, chunk.first_line, chunk.data)

    def _line_too_long(self, chunk: Chunk, index: int, size: int) -> QuarantineItem:
        line = chunk.first_line + index
        error = f"line {line}: a line of {size:,} bytes (at most {MAX_LINE_BYTES:,})"
        return self._item(chunk, ErrorKind.LINE_TOO_LONG, error, line, chunk.data)

    def _cut_hand(self, chunk: Chunk) -> QuarantineItem:
        """The hand the file's readable data stops in (the fault is reported after it)."""
        error = (f"line {chunk.first_line}: the file's data stops inside this hand "
                 f"(after file byte {chunk.end_offset:,}); see the file's {ErrorKind.BAD_GZIP} "
                 "or unreadable_file item")
        return self._item(chunk, ErrorKind.TRUNCATED, error, chunk.first_line, chunk.data)

    def _not_utf8(self, chunk: Chunk, exc: UnicodeDecodeError) -> QuarantineItem:
        line = chunk.first_line + chunk.data.count(b"\n", 0, exc.start)
        bad = chunk.data[exc.start : exc.end]
        error = (f"line {line}: not UTF-8 (byte {bad!r} at file offset "
                 f"{chunk.start_offset + exc.start})")
        return self._item(chunk, ErrorKind.ENCODING, error, line, chunk.data)

    def _jsonl(self, source: ByteSource) -> Iterator[ReadItem]:
        offset, line, seen = self.start_offset, self.start_line - 1, False
        for data, size, newline in json_lines(source):
            line += 1
            offset += size
            if line > MAX_LINE_NUMBER:
                yield self._too_many_lines(line)
                return
            if not newline and (self.complete_only or source.fault is not None):
                if source.fault is not None and data.strip():
                    self.chunks += 1
                    yield self._json_item(data, line, offset, ErrorKind.TRUNCATED,
                                          f"line {line}: the file's data stops inside this "
                                          "line; see the file's item")
                break
            if size > MAX_HAND_BYTES + 2:
                seen = True
                self.chunks += 1
                yield self._json_item(data, line, offset, ErrorKind.HAND_TOO_LONG,
                                      f"line {line}: a JSON line of {size:,} bytes (at most "
                                      f"{MAX_HAND_BYTES:,}); its first {MAX_HAND_BYTES:,} bytes "
                                      "are kept")
            elif data.strip():
                seen = True
                self.chunks += 1
                yield self._json_hand(data.rstrip(b"\r\n"), line, offset)
            self.resume_offset, self.resume_line = offset, line + 1
        if not seen and not self.start_offset and source.fault is None:
            yield self._file_problem(ErrorKind.EMPTY_FILE, "file holds no hand")

    def _json_item(self, data: bytes, line: int, end: int, kind: ErrorKind, error: str
                   ) -> QuarantineItem:
        data = data[:MAX_HAND_BYTES]
        text = data.decode("utf-8", errors="replace")
        exact = text.encode("utf-8") == data
        return QuarantineItem(self.file, line, None, kind, error, text, line, sha256_text(text),
                              end, None if exact else data)

    def _json_hand(self, data: bytes, line: int, end: int) -> ReadItem:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            return self._json_item(data, line, end, ErrorKind.ENCODING,
                                   f"line {line}: not UTF-8 at column {exc.start + 1}")
        digest = sha256_text(text)
        try:
            # Strict: a JSON number is an integer as written (no "12", 12.0, true or
            # "1_000" for 12 or 1000): one alphabet with the text form.
            record = HandRecord.model_validate_json(text, strict=True)
        except ValidationError as exc:
            kind = ErrorKind.BAD_JSON if is_json_syntax_error(exc) else ErrorKind.INVALID_RECORD
            error = f"line {line}: " + "; ".join(
                f"{'.'.join(map(str, e['loc'])) or 'record'}: {e['msg']}" for e in exc.errors()
            )
            return QuarantineItem(self.file, line, json_hand_id(text), kind, error, text, line,
                                  digest, end)
        except Exception as exc:  # a bug: the hand is kept, the run goes on
            return QuarantineItem(self.file, line, json_hand_id(text), ErrorKind.READER_ERROR,
                                  f"line {line}: the reader failed ({type(exc).__name__}: "
                                  f"{exc})", text, line, digest, end)
        return ParsedHand(record, text, digest, self.file, line, end)


def _long_line(data: bytes) -> tuple[int, int] | None:
    """The first line of ``data`` longer than MAX_LINE_BYTES: (its index, its length)."""
    start = 0
    for index, end in enumerate(_line_ends(data)):
        if end - start > MAX_LINE_BYTES:
            return index, end - start
        start = end + 1
    return None


def _line_ends(data: bytes) -> Iterator[int]:
    for match in re.finditer(rb"\n", data):
        yield match.start()
    yield len(data)


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
    except Exception as exc:  # a bug of the parser: the hand is kept, the run goes on
        error = (f"line {chunk.first_line}: the parser failed on this hand "
                 f"({type(exc).__name__}: {exc})")
        return QuarantineItem(raw.file, chunk.first_line, hand_id_in(raw.text),
                              ErrorKind.READER_ERROR, error, raw.text, chunk.first_line,
                              raw.sha256, chunk.end_offset)
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
    if chunk.oversize:
        return reader._oversize(chunk)
    ending = b"\n\n" if chunk.terminated else b"\n" if chunk.newline else b""
    got = next(iter(reader.iter_text(io.BytesIO(chunk.data + ending))))
    assert not isinstance(got, RawHand)
    return got
