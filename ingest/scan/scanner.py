"""The compiled byte scanner: a log's bytes to hand chunks and :class:`HandArrays` rows.

``scan(buf)`` makes one compiled pass to split the buffer into exactly the chunks
:func:`ingest.chunks.iter_chunks` yields (:mod:`ingest.scan.chunks`), then one
pass per chunk that reads the canonical grammar into the layout's rows
(:mod:`ingest.scan.hand`). Every chunk gets a hand row with its byte range and
first line; a chunk the scanner could not read has ``H_STATUS > 0`` (a reason code
below) and no seats or events, and the caller gives it to the reference reader
(:meth:`ScanResult.chunk` rebuilds the :class:`~ingest.chunks.Chunk`).

The safety rule: ``H_STATUS == 0`` only when the reference reader reads the chunk
and :func:`ingest.scan.layout.from_records` of its record gives exactly the same
rows (``tests/audit/fast/test_scan.py`` checks it on generated, fixture and mutated
hands).

Speed (``benchmarks/bench_fast_path.py``, 30k generated hands of ~1 KB): ~320,000
hands (~320 MB) per CPU-second on one thread (was ~160,000). What it took: the output
arrays are allocated by numpy from bounds (numpy asks for huge pages, halving the
page faults of the ~4.5 bytes of rows written per input byte); lines and newlines
are found eight bytes at a time; cards are read by table look-up (a chain of
compares mispredicted on nearly every card). What is left: ~20% splitting chunks,
~25% page faults, the rest the line readers. Cold compile ~9 s CPU (was ~20 s): one
specialisation per function (no literal or writable/read-only twins) and one level
of calls less.

Status codes (``H_STATUS``):

- ``ST_READ`` 0: read;
- ``ST_BYTES`` 1: a byte outside printable ASCII (tab, lone CR, UTF-8...), or a blank,
  comment, indented or right-padded line inside the hand;
- ``ST_HEADER`` 2: a header line outside the canonical grammar, unknown or repeated;
- ``ST_MISSING`` 3: a required header, a second seat, RESULT or its ``Pot`` missing;
- ``ST_SECTION`` 4: a ``***`` line that is not the next known section;
- ``ST_LINE`` 5: an action line outside the format's verbs or their canonical
  spelling (every player, dealer and floor verb is read, ``and is all-in`` after a
  wager and ``from side pot K`` after collects included);
- ``ST_RESULT`` 6: a repeated or non-canonical Pot/Rake/Passed out line;
- ``ST_TIME`` 7: ``Time`` not ``YYYY-MM-DDTHH:MM:SS`` + ``Z``/``±HH:MM``, or outside
  the years 1901..9998 or offsets ±17:59 (inside the bounds of ``schemas.limits``);
- ``ST_TOO_LONG`` 8: a region over ``MAX_HAND_BYTES``, never read (the reference
  quarantines it from its first bytes); a line over ``MAX_LINE_BYTES`` is ``ST_BYTES``.

Memory: the arrays are sized from bounds; the event rows from the lines of the
chunks, so blank lines between hands cost nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from numba import njit

from ingest.chunks import Chunk
from ingest.scan.chunks import (
    C_DATA_END,
    C_END,
    C_FIRST_LINE,
    C_LINES,
    C_NEWLINE,
    C_OVERSIZE,
    C_START,
    C_TERMINATED,
    split_chunks,
)
from ingest.scan.hand import scan_hand
from ingest.scan.layout import (
    E_COLUMNS,
    H_BYTE_END,
    H_BYTE_START,
    H_COLUMNS,
    H_EVENT_COUNT,
    H_EVENT_START,
    H_FIRST_LINE,
    H_SEAT_COUNT,
    H_SEAT_START,
    H_STATUS,
    P_COLUMNS,
    S_COLUMNS,
    S_PLAYER_HASH,
    S_SEAT,
    S_STACK,
    HandArrays,
    IntArray,
    Spans,
)
from ingest.scan.tokens import (
    ST_BYTES,
    ST_HEADER,
    ST_LINE,
    ST_MISSING,
    ST_READ,
    ST_RESULT,
    ST_SECTION,
    ST_TIME,
    ST_TOO_LONG,
)
from schemas.limits import MAX_HAND_BYTES

__all__ = [
    "ST_BYTES", "ST_HEADER", "ST_LINE", "ST_MISSING", "ST_READ", "ST_RESULT", "ST_SECTION",
    "ST_TIME", "ST_TOO_LONG", "Allocate", "ScanResult", "fresh_array", "scan", "warm_up",
]

BoolArray = npt.NDArray[np.bool_]


@dataclass(slots=True)
class ScanResult:
    """The hands of a buffer: one ``arrays.hands`` row per chunk, in file order."""

    arrays: HandArrays
    #: Chunk.end_offset of each chunk (after its last line's line end, if any).
    end_offset: IntArray
    #: Chunk.terminated: a blank line (not the end of the buffer) ended the chunk.
    terminated: BoolArray
    #: Chunk.newline: the chunk's last line ends with a line end.
    newline: BoolArray
    #: Chunk.oversize and Chunk.oversize_lines (0 for the chunks under the limit).
    oversize: IntArray
    oversize_lines: IntArray
    #: Where the read hands' strings are in the buffer (for the staging rows).
    spans: Spans

    def __len__(self) -> int:
        return len(self.arrays)

    def chunk(self, buf: npt.NDArray[np.uint8] | bytes, index: int, offset: int = 0) -> Chunk:
        """The :class:`~ingest.chunks.Chunk` the reference chunker gives for chunk ``index``
        (``offset``: where ``buf`` starts in its file)."""
        row = self.arrays.hands[index]
        start, end = int(row[H_BYTE_START]), int(row[H_BYTE_END])
        oversize = int(self.oversize[index])
        if oversize:
            end = start + MAX_HAND_BYTES
        data = buf[start:end]
        return Chunk(data if isinstance(data, bytes) else data.tobytes(),
                     int(row[H_FIRST_LINE]), start + offset, int(self.end_offset[index]) + offset,
                     bool(self.terminated[index]), bool(self.newline[index]), oversize,
                     int(self.oversize_lines[index]))


@njit(cache=True, nogil=True)
def _scan_chunks(buf: np.ndarray, chunks: np.ndarray, hands: np.ndarray, seats: np.ndarray,
                 events: np.ndarray, cards: np.ndarray, hand_spans: np.ndarray,
                 seat_spans: np.ndarray, event_spans: np.ndarray) -> tuple[int, int, int]:
    """Fill ``hands`` (one row per chunk, zeroed by the caller) and the other arrays,
    sized by the caller's upper bounds: (seat rows, event rows, cards) used. The span
    arrays parallel hands, seats and events (``hand_spans`` set to -1 by the caller)."""
    seat_stack = np.zeros(11, dtype=np.int64)
    seat_hash = np.zeros(11, dtype=np.int64)
    seat_text = np.zeros((11, 2), dtype=np.int64)
    # Not a plain 0: a literal 0 passed on the first iteration would compile a second,
    # literal-typed specialisation of the whole hand reader (~10 s).
    n_seats = int(np.int64(0))
    n_events = int(np.int64(0))
    n_cards = int(np.int64(0))
    for h in range(chunks.shape[0]):
        start = chunks[h, C_START]
        end = chunks[h, C_DATA_END]
        first_line = chunks[h, C_FIRST_LINE]
        hand = hands[h]
        # The seat rows and counts are written here, not in a compiled wrapper of
        # scan_hand: numba re-optimises every callee's code at each level of calls, so
        # a level less saves seconds of cold compile.
        if chunks[h, C_OVERSIZE]:
            status, seat_mask, new_events, new_cards = ST_TOO_LONG, 0, 0, 0
        else:
            status, seat_mask, new_events, new_cards = scan_hand(
                buf, start, end, first_line, hand, events, n_events, cards, n_cards,
                seat_stack, seat_hash, hand_spans[h], event_spans, seat_text)
        first_seat = n_seats
        if status == ST_READ:
            for seat in range(1, 11):
                if seat_mask & (1 << seat):
                    seats[n_seats, S_SEAT] = seat
                    seats[n_seats, S_STACK] = seat_stack[seat]
                    seats[n_seats, S_PLAYER_HASH] = seat_hash[seat]
                    seat_spans[n_seats, 0] = seat_text[seat, 0]
                    seat_spans[n_seats, 1] = seat_text[seat, 1]
                    n_seats += 1
            hand[H_EVENT_START] = n_events
            hand[H_EVENT_COUNT] = new_events - n_events
            n_events = new_events
            n_cards = new_cards
        else:
            for column in range(H_COLUMNS):
                hand[column] = 0
            hand[H_EVENT_START] = n_events
        hand[H_STATUS] = status
        hand[H_SEAT_START] = first_seat
        hand[H_SEAT_COUNT] = n_seats - first_seat
        hand[H_FIRST_LINE] = first_line
        hand[H_BYTE_START] = start
        hand[H_BYTE_END] = end
    return n_seats, n_events, n_cards


#: Where :func:`scan` puts its row arrays: ``allocate(name, dtype, shape)`` gives an
#: array of that shape, uninitialised (the scanner writes what it reads).
Allocate = Callable[[str, type[np.generic], tuple[int, ...]], np.ndarray]


def fresh_array(name: str, dtype: type[np.generic], shape: tuple[int, ...]) -> np.ndarray:
    """:data:`Allocate` from fresh memory (``np.empty``): the default."""
    return np.empty(shape, dtype=dtype)


def scan(buf: npt.NDArray[np.uint8], start_line: int = 1, *,
         skip_bom: bool = True, allocate: Allocate = fresh_array) -> ScanResult:
    """Scan a whole log's bytes (``np.frombuffer(data, np.uint8)``).

    ``start_line`` is the line number of ``buf[0]``; ``skip_bom`` skips a UTF-8 BOM at
    ``buf[0]`` as the reference chunker does at the start of a file. ``allocate`` gives
    the arrays of the rows: a caller that scans batch after batch passes memory it keeps
    (fresh memory costs a page fault per page at its first write: ~2 us a hand, as much
    as half the scan, on this virtual machine); the result then lives only as long as
    that memory is not handed out again.
    """
    data = np.ascontiguousarray(buf, dtype=np.uint8).view()
    # Always read-only (as np.frombuffer of bytes is): numba compiles a separate
    # specialisation for writable arrays, which would double the cold compile when
    # the warm-up passes np.zeros and the worker a file's bytes.
    data.flags.writeable = False
    chunks, lines, chunk_bytes = split_chunks(data, start_line, skip_bom)
    count = chunks.shape[0]
    # Allocated here, not in compiled code: numpy asks the kernel for huge pages on big
    # arrays, which halves the page-fault cost of the ~4.5 bytes of rows per input
    # byte, and a caller may keep the memory (``allocate``). The bounds: an event is a
    # line of a chunk, a card takes 3 bytes, a hand 10 seats (and a seat a line);
    # untouched pages of the bound cost nothing.
    hands = allocate("hands", np.int64, (count, H_COLUMNS))
    hands.fill(0)
    seat_rows = min(count * 10, lines)
    seats = allocate("seats", np.int64, (seat_rows, S_COLUMNS))
    events = allocate("events", np.int64, (lines, E_COLUMNS))
    cards = allocate("cards", np.int8, (chunk_bytes // 3 + 1,))
    hand_spans = allocate("hand spans", np.int64, (count, P_COLUMNS))
    hand_spans.fill(-1)
    seat_spans = allocate("seat spans", np.int64, (seat_rows, 2))
    event_spans = allocate("event spans", np.int64, (lines, 2))
    n_seats, n_events, n_cards = _scan_chunks(data, chunks, hands, seats, events, cards,
                                              hand_spans, seat_spans, event_spans)
    return ScanResult(
        HandArrays(hands, seats[:n_seats], events[:n_events], cards[:n_cards]),
        chunks[:, C_END].copy(),
        chunks[:, C_TERMINATED].astype(np.bool_),
        chunks[:, C_NEWLINE].astype(np.bool_),
        chunks[:, C_OVERSIZE].copy(),
        chunks[:, C_LINES].copy(),
        Spans(hand_spans, seat_spans[:n_seats], event_spans[:n_events]),
    )


def warm_up() -> None:
    """Compile (or load from the cache) the scanner, on an empty input (read-only, as
    :func:`scan` always passes its bytes)."""
    scan(np.zeros(0, dtype=np.uint8))
