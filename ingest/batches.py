"""Read a file in batches: the compiled scanner first, the reference parser for the rest.

The text form is read in *pieces* of about ``PIECE_BYTES``, each cut just after the
first blank line of a separator, so a piece holds whole hands exactly as the
reference chunker finds them. The compiled scanner (:mod:`ingest.scan`) splits a
piece into chunks and reads the ordinary ones; their raw and staging rows are built
column-wise from its arrays (:func:`ingest.staged.scanned_rows`), with no Python
object per hand. Every chunk it does not read (anything outside its canonical
subset, and every broken hand) goes to the reference parser through
:meth:`ingest.reader.HandReader.judge`, which gives its record or its precise
error: the reference stays the only complete reader and the judge. A region longer
than a hand (``MAX_HAND_BYTES``) is streamed past by the reference chunker, so a
piece never holds more than ``PIECE_BYTES`` and a hand. JSON Lines files are read by
the reference path only.

The per-chunk decisions (line bound, a hand the data stops in, ``complete_only``,
counting the hands met, the resume point) are the reader's (:meth:`HandReader.take`);
here they are applied to a piece's chunks at once where they cannot apply (every
chunk of a piece but the file's last is complete, and that one is an ordinary hand unless
the reading is ``complete_only`` or the data stopped at a fault).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import pyarrow as pa

from ingest.chunks import BOM, Chunk, _stream_past
from ingest.errors import ErrorKind
from ingest.reader import HandReader, ParsedHand, QuarantineItem, is_jsonl
from ingest.scan.layout import H_STATUS
from ingest.scan.scanner import ScanResult, scan
from ingest.source import ByteSource
from ingest.staged import HandRows, parsed_rows, scanned_rows
from schemas.limits import MAX_HAND_BYTES, MAX_LINE_NUMBER

__all__ = ["PIECE_BYTES", "ReadBatch", "read_batches"]

#: Bytes read and scanned at a time: about 4,000 hands.
PIECE_BYTES = 4 << 20
#: The first blank line of a separator: a piece may end just after one.
_CUT = re.compile(rb"\n[ \t\f\v]*\r?\n")


@dataclass
class ReadBatch:
    """The readable hands (column-wise, reading order) and the problems of one batch."""

    hands: HandRows = field(default_factory=HandRows.empty)
    problems: list[QuarantineItem] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.hands) + len(self.problems)


class _Piece(NamedTuple):
    data: bytes
    offset: int  # in the (decompressed) file
    line: int  # the line number of data[0]
    last: bool  # the file ends with this piece


def _last_cut(buffer: bytes) -> int:
    """The end of the first blank line of the last separator in ``buffer``, or -1."""
    window = max(0, len(buffer) - (1 << 16))
    while True:
        cut = -1
        for match in _CUT.finditer(buffer, window):
            cut = match.end()
        if cut >= 0 or window == 0:
            return cut
        window = 0


def _pieces(source: ByteSource, offset: int, line: int) -> Iterator[_Piece | Chunk]:
    """The file from ``offset`` as pieces of whole hands, and the oversize regions (as
    the reference chunker's chunks) between them."""
    buffer = b""
    first = offset == 0
    while True:
        block = source.read(PIECE_BYTES)
        if first and block.startswith(BOM):  # as the reference chunker skips it
            block, offset = block[len(BOM):], offset + len(BOM)
        first = False
        buffer += block
        if not block:
            if buffer:
                yield _Piece(buffer, offset, line, True)
            return
        cut = _last_cut(buffer)
        if cut > 0:
            yield _Piece(buffer[:cut], offset, line, False)
            line += buffer.count(b"\n", 0, cut)
            offset += cut
            buffer = buffer[cut:]
        elif len(buffer) > PIECE_BYTES + MAX_HAND_BYTES:
            # No separator: the region it starts with is longer than a hand.
            past = _stream_past(source, buffer, offset, line)
            if past.chunk is not None:
                yield past.chunk
            buffer, offset, line = past.rest, past.rest_offset, past.next_line


class _Batches:
    """Collects what a file's reading gives into batches of about ``size`` hands."""

    def __init__(self, reader: HandReader, size: int) -> None:
        self.reader, self.size = reader, size
        self.parts: list[HandRows] = []
        self.parsed: list[ParsedHand] = []
        self.problems: list[QuarantineItem] = []
        self.count = 0

    def add(self, item: ParsedHand | QuarantineItem | HandRows) -> None:
        if isinstance(item, HandRows):
            self.parts.append(item)
            self.count += len(item)
        elif isinstance(item, ParsedHand):
            self.parsed.append(item)
            self.count += 1
        else:
            self.problems.append(item)
            self.count += 1

    def full(self) -> bool:
        return self.count >= self.size

    def take(self) -> ReadBatch:
        parts, problems = self.parts, self.problems
        if self.parsed:
            parsed, unstorable = _contained_rows(self.parsed)
            parts, problems = [*parts, parsed], [*problems, *unstorable]
        hands = HandRows.concat(parts)
        batch = ReadBatch(hands, sorted(problems, key=lambda p: p.first_line))
        self.parts, self.parsed, self.problems, self.count = [], [], [], 0
        return batch


#: Errors building a hand's Arrow rows (a value that fits no column).
_BUILD_ERRORS = (pa.ArrowException, OverflowError, ValueError, TypeError)


def _contained_rows(hands: list[ParsedHand]) -> tuple[HandRows, list[QuarantineItem]]:
    """The rows of parsed hands; a hand whose values fit no column is quarantined as
    ``unstorable`` (a bound a reader missed), the others kept."""
    try:
        return parsed_rows(hands), []
    except _BUILD_ERRORS:
        pass
    kept: list[ParsedHand] = []
    unstorable: list[QuarantineItem] = []
    for hand in hands:  # rare: find the hands at fault one by one
        try:
            parsed_rows([hand])
        except _BUILD_ERRORS as exc:
            error = (f"line {hand.first_line}: hand {hand.hand_id} was read but the store "
                     f"cannot hold its values ({type(exc).__name__}: "
                     f"{str(exc).splitlines()[0][:300]})")
            unstorable.append(QuarantineItem(
                hand.file, hand.first_line, hand.hand_id, ErrorKind.UNSTORABLE, error,
                hand.raw_text, hand.first_line, hand.sha256, hand.end_offset))
        else:
            kept.append(hand)
    return parsed_rows(kept), unstorable


def read_batches(reader: HandReader, size: int) -> Iterator[ReadBatch]:
    """The file of ``reader`` as batches of at most ``size`` hands."""
    batches = _Batches(reader, size)
    body = _records if is_jsonl(reader.path) else _text
    for got in reader.guarded(lambda source: body(reader, source)):
        while isinstance(got, HandRows) and len(got) > size - batches.count > 0:
            room = size - batches.count  # a batch holds at most ``size`` hands
            batches.add(got.take(np.arange(room)))
            yield batches.take()
            got = got.take(np.arange(room, len(got)))
        batches.add(got)
        if batches.full():
            yield batches.take()
    if batches.count:
        yield batches.take()


def _records(reader: HandReader, source: ByteSource
             ) -> Iterator[ParsedHand | QuarantineItem | HandRows]:
    yield from reader._jsonl(source)


def _text(reader: HandReader, source: ByteSource
          ) -> Iterator[ParsedHand | QuarantineItem | HandRows]:
    for piece in _pieces(source, reader.start_offset, reader.start_line):
        stop = False
        if isinstance(piece, Chunk):
            item, stop = reader.judge(piece, source)
            if item is not None:
                yield item
        else:
            for got in _scanned(reader, source, piece):
                if got is None:
                    stop = True
                else:
                    yield got
        if stop:
            return
    item = reader.finish(source)
    if item is not None:
        yield item


def _scanned(reader: HandReader, source: ByteSource, piece: _Piece
             ) -> Iterator[ParsedHand | QuarantineItem | HandRows | None]:
    """A piece's hands: the scanner's rows, then each other chunk judged by the reader
    (in file order); None when reading stops."""
    buf = np.frombuffer(piece.data, dtype=np.uint8)
    result = scan(buf, piece.line, skip_bom=False)
    count = len(result)
    if not count:
        return
    lines_end = piece.line + len(piece.data)  # a bound: a line takes a byte at least
    # The file's data ends inside its last hand: a rule of the reader's applies only when
    # that hand may not be complete yet (``complete_only``) or the data stopped at a fault
    # (known here: the source has been read to its end). Otherwise it is an ordinary hand.
    final_open = (piece.last and not bool(result.terminated[-1])
                  and (reader.complete_only or source.fault is not None))
    if lines_end > MAX_LINE_NUMBER or final_open:
        # Where the per-chunk rules may apply (the file's last hand, the line bound): the
        # chunks the rules do not touch are the scanner's, the others judged one by one.
        safe = _safe_prefix(count, lines_end)
        yield from _rows(reader, buf, result, piece, safe)
        for row in range(safe, count):
            item, stop = reader.judge(result.chunk(piece.data, row, piece.offset), source)
            if item is not None:
                yield item
            if stop:
                yield None
                return
        return
    yield from _rows(reader, buf, result, piece, count)


def _safe_prefix(count: int, lines_end: int) -> int:
    """How many of a piece's first chunks no per-chunk rule can touch: all but the file's
    last (unterminated) chunk, or none near the line bound (a rare file, judged chunk by
    chunk)."""
    return count - 1 if lines_end <= MAX_LINE_NUMBER else 0


def _rows(reader: HandReader, buf: np.ndarray, result: ScanResult, piece: _Piece, count: int
          ) -> Iterator[ParsedHand | QuarantineItem | HandRows]:
    """The first ``count`` chunks of a piece, none of which a per-chunk rule touches."""
    if count <= 0:
        return
    status = result.arrays.hands[:count, H_STATUS]
    read = np.flatnonzero(status == 0)
    yield scanned_rows(buf, result, read, reader.file, piece.offset)
    for row in np.flatnonzero(status != 0).tolist():
        item, _ = reader.judge(result.chunk(piece.data, row, piece.offset), _NO_FAULT)
        assert item is not None
        yield item
    # What HandReader.take does for each chunk, for the read ones at once.
    reader.chunks += len(read)
    last = result.chunk(piece.data, count - 1, piece.offset)
    reader.resume_offset, reader.resume_line = last.end_offset, last.next_line


class _NoFault:
    """A stream that has not failed (every chunk but the file's last is complete)."""

    fault = None

    def read(self, size: int = -1, /) -> bytes:
        return b""


_NO_FAULT = _NoFault()
