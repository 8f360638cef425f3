"""Split a byte stream into hand chunks, with their line numbers and byte offsets.

Hands are separated by blank lines; comment lines (first non-blank character
``#``) before or after a hand are not part of it. The stream is read in large
blocks and split with a bytes regex, so memory stays flat in the file's size and
the per-line cost stays in C. Offsets are positions in the (decompressed) stream,
so a growing file can be read again from where the last complete hand ended.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import BinaryIO, NamedTuple

BLOCK_SIZE = 1 << 20
BOM = b"\xef\xbb\xbf"
# One or more blank (whitespace-only) lines after a line end.
_SEPARATOR = re.compile(rb"\n(?:[ \t\f\v]*\r?\n)+")


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


def iter_chunks(
    stream: BinaryIO, *, start_offset: int = 0, start_line: int = 1
) -> Iterator[Chunk]:
    """Yield the hand chunks of ``stream``, read from its current position.

    ``start_offset``/``start_line`` are the position and line number of that
    current position in the file, used to number what follows.
    """
    buffer = b""
    offset = start_offset  # file offset of buffer[0]
    line = start_line  # line number of buffer[0]
    first = start_offset == 0
    while True:
        block = stream.read(BLOCK_SIZE)
        if first and block.startswith(BOM):  # Windows exports often start with one
            block, offset = block[len(BOM):], offset + len(BOM)
        first = False
        # A separator can only straddle the old tail from its trailing whitespace on, so
        # a hand longer than a block is not rescanned from its start every round.
        scan_from = len(buffer.rstrip(b" \t\f\v\r\n"))
        buffer += block
        pos = 0
        for match in _SEPARATOR.finditer(buffer, scan_from):
            data = buffer[pos : match.start() + 1]
            chunk = _trim(data, line, offset + pos, terminated=True)
            if chunk is not None:
                yield chunk
            line += data.count(b"\n") + match.group().count(b"\n") - 1
            pos = match.end()
        buffer = buffer[pos:]
        offset += pos
        if not block:
            break
    if buffer:
        chunk = _trim(buffer, line, offset, terminated=False)
        if chunk is not None:
            yield chunk
