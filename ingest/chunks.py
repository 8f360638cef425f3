"""Split a byte stream into hand chunks, with their line numbers and byte offsets.

Hands are separated by blank lines; comment lines (first non-blank character
``#``) before or after a hand are not part of it. The stream is read in large
blocks and split with a bytes regex, so memory stays flat in the file's size and
the per-line cost stays in C. Offsets are positions in the (decompressed) stream,
so a growing file can be read again from where the last complete hand ended.

Memory is bounded by design: the bytes between two separators (a *region*) are
held only up to ``schemas.limits.MAX_HAND_BYTES``. A longer region is one chunk
whose ``oversize`` is its length and whose ``data`` is its first MAX_HAND_BYTES
bytes (untrimmed); the rest is streamed past, counting its lines, so a 100 MB line
or a gigabyte without a blank line costs a megabyte. Runs of blank lines are
separators, consumed block by block.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple, Protocol

from schemas.limits import MAX_HAND_BYTES


class ByteStream(Protocol):
    """What the chunker reads: a binary file, or an :class:`ingest.source.ByteSource`."""

    def read(self, size: int = -1, /) -> bytes:
        """Up to ``size`` bytes; ``b""`` at the end."""
        ...


BLOCK_SIZE = 1 << 20
BOM = b"\xef\xbb\xbf"
# One or more blank (whitespace-only) lines after a line end.
_SEPARATOR = re.compile(rb"\n(?:[ \t\f\v]*+\r?\n)++")
# What may follow a region's last line end and still begin a separator.
_OPEN_BLANK = re.compile(rb"[ \t\f\v]*\r?")
# Complete blank lines, and the blanks that may start one.
_LEADING_BLANKS = re.compile(rb"(?:[ \t\f\v]*\r?\n)*")
_BLANKS = re.compile(rb"[ \t\f\v]*")


class Chunk(NamedTuple):
    """The bytes of one hand (line ends as in the file, no trailing newline).

    A named tuple rather than a frozen dataclass: one is made per hand, and a tuple is
    built in C, about three times faster than a frozen dataclass's ``__init__``.
    """

    data: bytes
    first_line: int
    start_offset: int
    #: Offset just after the hand's last line (its newline included, if any).
    end_offset: int
    #: True when a blank line (not the end of the stream) ended the chunk.
    terminated: bool
    #: True when the hand's last line ends with a line end (false: cut at end of stream).
    newline: bool
    #: 0, or the length of a region longer than MAX_HAND_BYTES (``data`` is then its
    #: first MAX_HAND_BYTES bytes, untrimmed; the chunk is never parsed).
    oversize: int = 0
    #: The lines of an oversize region (the others count theirs in ``data``).
    oversize_lines: int = 0

    @property
    def next_line(self) -> int:
        """The line number just after the chunk's last line."""
        if self.oversize:
            return self.first_line + self.oversize_lines
        return self.first_line + self.data.count(b"\n") + 1


#: Bytes a kept line cannot start with (bytes.strip() white space, and "#").
_KEPT_NOT = frozenset(b" \t\n\r\x0b\x0c#")


def _is_skippable(line: bytes) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith(b"#")


def _trim(data: bytes, first_line: int, start: int, terminated: bool) -> Chunk | None:
    """Drop leading/trailing blank and comment lines; None if nothing is left."""
    # Most hands have neither: a line whose first byte is neither white space nor "#" is
    # kept, so the first and the last line's first bytes decide without copying lines.
    newline = data.endswith(b"\n")
    body = data[:-1] if newline else data
    last = body.rfind(b"\n") + 1
    if (body[:1] and body[0] not in _KEPT_NOT
            and last < len(body) and body[last] not in _KEPT_NOT):
        if body.endswith(b"\r"):
            body = body[:-1]
        return Chunk(body, first_line, start, start + len(data), terminated, newline)
    lines = data.split(b"\n")
    head = 0
    while head < len(lines) and _is_skippable(lines[head]):
        start += len(lines[head]) + 1
        head += 1
    if head == len(lines):
        return None
    tail = len(lines)
    while _is_skippable(lines[tail - 1]):
        tail -= 1
    body = b"\n".join(lines[head:tail])
    has_newline = tail < len(lines)
    end = start + len(body) + (1 if has_newline else 0)
    if body.endswith(b"\r"):  # the last line's \r\n belongs to the line end, not the hand
        body = body[:-1]
    return Chunk(body, first_line + head, start, end, terminated, has_newline)


def _region(data: bytes, first_line: int, start: int, terminated: bool) -> Chunk | None:
    """The chunk of the region ``data`` (its last line end included, if any).

    A region's size is counted from its first line that is not blank: blank lines at
    its start belong to the separator before it (which a block boundary may cut)."""
    if len(data) > MAX_HAND_BYTES:
        skip = _LEADING_BLANKS.match(data).end()  # type: ignore[union-attr]
        if len(data) - skip > MAX_HAND_BYTES and not _OPEN_BLANK.fullmatch(data, skip):
            first_line += data.count(b"\n", 0, skip)
            start += skip
            lines = data.count(b"\n", skip) + (not data.endswith(b"\n"))
            return Chunk(data[skip:skip + MAX_HAND_BYTES], first_line, start,
                         start + len(data) - skip, terminated, data.endswith(b"\n"),
                         len(data) - skip, lines)
    return _trim(data, first_line, start, terminated)


def _open_tail(window: bytes) -> int:
    """Where in ``window`` a separator may still begin (its last line end, followed only
    by the start of a blank line), or ``len(window)`` when none can."""
    i = window.rfind(b"\n")
    if i >= 0 and _OPEN_BLANK.fullmatch(window, i + 1) is not None:
        return i
    return len(window)


class _Oversize(NamedTuple):
    chunk: Chunk | None  # None: the region was all blank or comment lines after all
    rest: bytes  # bytes after the separator that ended the region
    rest_offset: int
    next_line: int


class _Start(NamedTuple):
    """Where a long region's first line that is not blank begins."""

    keep: bytes  # the region's first bytes (up to MAX_HAND_BYTES)
    start: int
    first_line: int
    window: bytes  # the bytes read after ``keep``'s start not yet searched
    at: int  # the stream offset of window[0]


def _region_start(stream: ByteStream, window: bytes, at: int, line: int) -> _Start | None:
    """Skip the blank lines a region starts with (the tail of the separator before it),
    however long; None when the stream ends first."""
    while True:
        skip = _LEADING_BLANKS.match(window).end()  # type: ignore[union-attr]
        line += window.count(b"\n", 0, skip)
        window, at = window[skip:], at + skip
        blanks = _BLANKS.match(window).end()  # type: ignore[union-attr]
        if blanks < len(window) and window[blanks:] != b"\r":
            return _Start(window[:MAX_HAND_BYTES], at, line, window, at)
        # An open line of blanks: a blank line if a line end comes, else the region's start.
        keep, size, cr = window[:MAX_HAND_BYTES], len(window), window.endswith(b"\r")
        while True:
            block = stream.read(BLOCK_SIZE)
            if not block:
                return None
            blanks = 0 if cr else _BLANKS.match(block).end()  # type: ignore[union-attr]
            rest = block[blanks:]
            if rest.startswith(b"\n") or (not cr and rest.startswith(b"\r\n")):
                end = blanks + (1 if rest.startswith(b"\n") else 2)
                window, at, line = block[end:], at + size + end, line + 1
                break
            if not cr and rest == b"\r":
                keep, size, cr = keep + block[:MAX_HAND_BYTES - len(keep)], size + len(block), True
                continue
            if blanks == len(block):
                keep, size = keep + block[:MAX_HAND_BYTES - len(keep)], size + len(block)
                continue
            keep += block[:MAX_HAND_BYTES - len(keep)]
            return _Start(keep, at, line, block, at + size)


def _stream_past(stream: ByteStream, data: bytes, offset: int, line: int) -> _Oversize:
    """Read past a region that is longer than MAX_HAND_BYTES or starts with blank lines
    that are (``data`` at stream ``offset``, line ``line``): keep its first MAX_HAND_BYTES
    bytes, count its lines, and find the separator that ends it."""
    begun = _region_start(stream, data, offset, line)
    if begun is None:
        return _Oversize(None, b"", offset + len(data), line)  # never used: the stream ended
    keep, start, first_line, window, at = begun
    newlines = 0  # line ends of the region before ``window``
    shift = 0

    def place(k: int) -> int:
        """The stream offset of window[k] (window[0] is at ``at``, window[1:] at
        ``at + k + shift``: an open tail of blanks is kept shortened)."""
        return at + k + (shift if k > 0 else 0)

    def after(k: int) -> int:
        """The stream offset just after window[k]."""
        return place(k) + 1

    while True:
        found = _SEPARATOR.search(window)
        if found is not None:
            cut = found.start() + 1  # the region ends after the separator's first line end
            end = after(cut - 1)
            newlines += window.count(b"\n", 0, cut)
            next_line = first_line + newlines + found.group().count(b"\n") - 1
            return _Oversize(_ended(keep, first_line, start, end, True, True, newlines),
                             window[found.end():], place(found.end()), next_line)
        tail = _open_tail(window)
        newlines += window.count(b"\n", 0, tail)
        block = stream.read(BLOCK_SIZE)
        if not block:
            newlines += window.count(b"\n", tail)
            end = after(len(window) - 1) if window else at
            newline = window.endswith(b"\n")
            chunk = _ended(keep, first_line, start, end, False, newline, newlines + (not newline))
            return _Oversize(chunk, b"", end, first_line + newlines)
        keep += block[:MAX_HAND_BYTES - len(keep)]
        if tail < len(window):
            # Keep the open tail as "\n" (+ "\r"): its blanks may be a megabyte long.
            old = window[tail:]
            short = b"\n\r" if old.endswith(b"\r") and len(old) > 1 else b"\n"
            new_at, stream_len = place(tail), after(len(window) - 1) - place(tail)
            at, shift, window = new_at, stream_len - len(short), short + block
        else:
            at, shift, window = (after(len(window) - 1) if window else at), 0, block


def _ended(keep: bytes, first_line: int, start: int, end: int, terminated: bool,
           newline: bool, lines: int) -> Chunk | None:
    """The chunk of a region streamed past, now that its end is known."""
    size = end - start
    if size > MAX_HAND_BYTES:
        return Chunk(keep, first_line, start, end, terminated, newline, size, lines)
    return _trim(keep[:size], first_line, start, terminated)


def iter_chunks(
    stream: ByteStream, *, start_offset: int = 0, start_line: int = 1
) -> Iterator[Chunk]:
    """Yield the hand chunks of ``stream``, read from its current position.

    ``start_offset``/``start_line`` are the position and line number of that
    current position in the file, used to number what follows.
    """
    buffer = b""
    offset = start_offset  # file offset of buffer[0]
    line = start_line  # line number of buffer[0]
    first = start_offset == 0
    searched = True  # whether buffer (but its trailing blanks) was searched for separators
    while True:
        block = stream.read(BLOCK_SIZE)
        if first and block.startswith(BOM):  # Windows exports often start with one
            block, offset = block[len(BOM):], offset + len(BOM)
        first = False
        # A separator can only straddle the old tail from its trailing whitespace on, so
        # a hand longer than a block is not rescanned from its start every round.
        scan_from = len(buffer.rstrip(b" \t\f\v\r\n")) if searched else 0
        searched = True
        buffer += block
        pos = 0
        for match in _SEPARATOR.finditer(buffer, scan_from):
            data = buffer[pos : match.start() + 1]
            chunk = _region(data, line, offset + pos, terminated=True)
            if chunk is not None:
                yield chunk
            line += data.count(b"\n") + match.group().count(b"\n") - 1
            pos = match.end()
        buffer = buffer[pos:]
        offset += pos
        if not block:
            break
        if len(buffer) > MAX_HAND_BYTES:
            past = _stream_past(stream, buffer, offset, line)
            if past.chunk is not None:
                yield past.chunk
            buffer, offset, line = past.rest, past.rest_offset, past.next_line
            searched = False
    if buffer:
        chunk = _region(buffer, line, offset, terminated=False)
        if chunk is not None:
            yield chunk
