"""Split a log's bytes into hand chunks exactly as :func:`ingest.chunks.iter_chunks` does.

The reference chunker finds separators with the regex ``\\n(?:[ \\t\\f\\v]*\\r?\\n)+``
and trims leading and trailing comment/blank lines (``bytes.strip()`` white space,
then ``#``) off each piece. This is the same walk as one compiled pass over the
buffer, so the scanner can hand every chunk, read or not, back to the reference
reader with the same bytes, line number and flags. A region longer than
``schemas.limits.MAX_HAND_BYTES`` (counted from its first line that is not blank, as
the reference counts it) is one row with ``C_OVERSIZE`` set and its whole byte range.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ingest.scan.layout import IntArray
from ingest.scan.tokens import first_flagged, kernel, load_word, newline_bytes
from schemas.limits import MAX_HAND_BYTES

# Columns of the chunk table ``split_chunks`` returns.
C_START = 0  # Chunk.start_offset
C_DATA_END = 1  # buf[C_START:C_DATA_END] == Chunk.data
C_END = 2  # Chunk.end_offset
C_FIRST_LINE = 3
C_TERMINATED = 4
C_NEWLINE = 5
C_OVERSIZE = 6  # 0, or the size of a region over MAX_HAND_BYTES (Chunk.oversize)
C_LINES = 7  # the lines of an oversize region (Chunk.oversize_lines)
C_COLUMNS = 8

_NL = 10
_CR = 13


@kernel
def _is_strip_space(byte: int) -> bool:
    # bytes.strip() white space: space, \t, \n, \v, \f, \r
    return byte == 32 or 9 <= byte <= 13


@kernel
def _skippable(buf: np.ndarray, start: int, end: int) -> bool:
    """Whether the line buf[start:end] is blank or a comment (``_is_skippable``)."""
    for i in range(start, end):
        byte = buf[i]
        if not _is_strip_space(byte):
            return byte == 35  # "#"
    return True


@njit(cache=True, nogil=True)
def _trim(buf: np.ndarray, start: int, end: int, first_line: int, terminated: int,
          out: np.ndarray, count: int) -> np.ndarray:
    """Append the trimmed chunk of data buf[start:end] to ``out`` (grown if full).

    Returns ``out``; the caller learns whether a row was added from ``out``'s
    row ``count`` having ``C_START >= 0`` (set to -1 beforehand when nothing is kept).
    """
    head = start
    line = first_line
    while True:
        stop = head
        while stop < end and buf[stop] != _NL:
            stop += 1
        if not _skippable(buf, head, stop):
            break
        if stop >= end:
            if count < out.shape[0]:
                out[count, C_START] = -1
            return out
        head = stop + 1
        line += 1
    tail = end  # the kept body is buf[head:tail]
    while True:
        line_start = tail
        while line_start > head and buf[line_start - 1] != _NL:
            line_start -= 1
        if not _skippable(buf, line_start, tail):
            break
        tail = line_start - 1
    out = _room(out, count)
    newline = 1 if tail < end else 0
    data_end = tail - 1 if tail > head and buf[tail - 1] == _CR else tail
    out[count, C_START] = head
    out[count, C_DATA_END] = data_end
    out[count, C_END] = tail + newline
    out[count, C_FIRST_LINE] = line
    out[count, C_TERMINATED] = terminated
    out[count, C_NEWLINE] = newline
    out[count, C_OVERSIZE] = 0
    out[count, C_LINES] = 0
    return out


@njit(cache=True, nogil=True)
def _room(out: np.ndarray, count: int) -> np.ndarray:
    """``out`` with room for row ``count`` (grown if full)."""
    if count < out.shape[0]:
        return out
    grown = np.empty((out.shape[0] * 2 + 16, C_COLUMNS), dtype=np.int64)
    for row in range(count):  # a loop: a slice copy compiles numba's shape checks
        for column in range(C_COLUMNS):
            grown[row, column] = out[row, column]
    return grown


@kernel
def _blank_run(buf: np.ndarray, pos: int, end: int) -> tuple[int, int, bool]:
    """Skip the complete blank lines (``[ \t\f\v]*\r?\n``) at ``pos``: (where the
    first other line starts, lines skipped, whether all that is left before ``end`` is
    the start of one more blank line)."""
    lines = 0
    while True:
        k = pos
        while k < end and (buf[k] == 32 or buf[k] == 9 or buf[k] == 11 or buf[k] == 12):
            k += 1
        if k < end and buf[k] == _CR:
            k += 1
        if k < end and buf[k] == _NL:
            pos = k + 1
            lines += 1
        else:
            return pos, lines, k == end


@kernel
def _next_separator(buf: np.ndarray, i: int) -> tuple[int, int, int, int]:
    """The first separator at or after ``i``: (its first newline, its end, newlines
    before it, blank lines in it); (n, n, newlines, 0) when there is none."""
    n = buf.shape[0]
    newlines = 0
    while i < n:
        # Eight bytes at a time up to the word holding the next newline, then to it.
        while i + 8 <= n:
            flags = newline_bytes(load_word(buf, i))
            if flags:
                i += first_flagged(flags)
                break
            i += 8
        stop = min(i + 8, n)
        while i < stop and buf[i] != _NL:
            i += 1
        if i == stop:
            continue
        # A separator: this newline, then one or more lines of [ \t\f\v]* with \r?\n.
        j, blank_lines, _ = _blank_run(buf, i + 1, n)
        if blank_lines:
            return i, j, newlines, blank_lines
        newlines += 1
        i += 1
    return n, n, newlines, 0


@njit(cache=True, nogil=True)
def split_chunks(buf: np.ndarray, start_line: int, skip_bom: bool
                 ) -> tuple[IntArray, int, int]:
    """The chunk table (``C_*`` columns) of ``buf`` in file order, and bounds on the lines
    and the bytes of its chunks that are not oversize (on the event and card rows; runs
    of blank lines between hands and oversize regions are not counted: they cost nothing)."""
    n = buf.shape[0]
    out = np.empty((min(max(16, n // 512), 4096), C_COLUMNS), dtype=np.int64)
    count = int(np.int64(0))  # not a literal 0: see _trim's call
    pos = 0
    if skip_bom and n >= 3 and buf[0] == 0xEF and buf[1] == 0xBB and buf[2] == 0xBF:
        pos = 3
    line = start_line  # the line number of buf[pos]
    chunk_lines = 0
    chunk_bytes = 0
    while pos < n:
        i, j, newlines, blank_lines = _next_separator(buf, pos)
        terminated = 1 if blank_lines else 0
        end = min(i + 1, n)
        first, skipped, open_blank = _blank_run(buf, pos, end)
        if end - first > MAX_HAND_BYTES and not open_blank:
            out = _room(out, count)
            newline = 1 if buf[end - 1] == _NL else 0
            out[count, C_START] = first
            out[count, C_DATA_END] = end
            out[count, C_END] = end
            out[count, C_FIRST_LINE] = line + skipped
            out[count, C_TERMINATED] = terminated
            out[count, C_NEWLINE] = newline
            out[count, C_OVERSIZE] = end - first
            out[count, C_LINES] = newlines - skipped + (1 if terminated else 1 - newline)
            count += 1
        else:
            # One call site with int64 arguments: a literal argument compiles another
            # specialisation of _trim.
            out = _trim(buf, pos, end, line, terminated, out, count)
            if count < out.shape[0] and out[count, C_START] >= 0:
                count += 1
                chunk_lines += newlines + 1
                chunk_bytes += end - pos
        line += newlines + terminated + blank_lines
        pos = j
    return out[:count], chunk_lines, chunk_bytes
