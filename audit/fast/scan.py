"""The compiled byte scanner: a log's bytes to hand chunks and :class:`HandArrays` rows.

``scan(buf)`` makes one compiled pass to split the buffer into exactly the chunks
:func:`ingest.chunks.iter_chunks` yields (:mod:`audit.fast.scan_chunks`), then one
pass per chunk that reads the canonical grammar into the layout's rows
(:mod:`audit.fast.scan_hand`). Every chunk gets a hand row with its byte range and
first line; a chunk the scanner could not read has ``H_STATUS > 0`` (a reason code
below) and no seats or events, and the caller gives it to the reference reader
(:meth:`ScanResult.chunk` rebuilds the :class:`~ingest.chunks.Chunk`).

The safety rule: ``H_STATUS == 0`` only when the reference reader reads the chunk
and :func:`audit.fast.layout.from_records` of its record gives exactly the same
rows (``tests/audit/fast/test_scan.py`` checks it on generated, fixture and mutated
hands).

Speed (``benchmarks/bench_scan.py``, 50k generated hands of ~1 KB): ~170,000 hands
(~170 MB) per CPU-second on one thread, of which ~15% splitting chunks, ~25% the
kernel's page faults for the fresh output arrays (an event row is 112 bytes) and the
rest the line readers. The output arrays are views of buffers sized by upper bounds.

Status codes (``H_STATUS``):

- ``ST_READ`` 0: read;
- ``ST_BYTES`` 1: a byte outside printable ASCII (tab, lone CR, UTF-8...), or a blank,
  comment, indented or right-padded line inside the hand;
- ``ST_HEADER`` 2: a header line outside the canonical grammar, unknown or repeated;
- ``ST_MISSING`` 3: a required header, a second seat, RESULT or its ``Pot`` missing;
- ``ST_SECTION`` 4: a ``***`` line that is not the next known section;
- ``ST_LINE`` 5: an action line outside the supported verbs: read are antes, the deal,
  checks, opens, bets, calls, raises, folds, discards/draws, draws fifth, stands pat,
  splits openers, shows (openers), mucks, collects (main pot), and the dealer's burns,
  misdeal, exposes/deals [..] to Seat N, returns X to Seat N; not read are floor lines,
  ``and is all-in``, ``from side pot``, withdraws, declares openers, retrieves hand;
- ``ST_RESULT`` 6: a repeated or non-canonical Pot/Rake/Passed out line;
- ``ST_TIME`` 7: ``Time`` not ``YYYY-MM-DDTHH:MM:SS`` + ``Z``/``±HH:MM``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from numba import njit

from audit.fast.layout import (
    E_COLUMNS,
    H_BYTE_END,
    H_BYTE_START,
    H_COLUMNS,
    H_FIRST_LINE,
    S_COLUMNS,
    HandArrays,
    IntArray,
)
from audit.fast.scan_chunks import (
    C_DATA_END,
    C_END,
    C_FIRST_LINE,
    C_NEWLINE,
    C_START,
    C_TERMINATED,
    split_chunks,
)
from audit.fast.scan_hand import scan_hand
from audit.fast.scan_tokens import (
    ST_BYTES,
    ST_HEADER,
    ST_LINE,
    ST_MISSING,
    ST_READ,
    ST_RESULT,
    ST_SECTION,
    ST_TIME,
)
from ingest.chunks import Chunk

__all__ = [
    "ST_BYTES", "ST_HEADER", "ST_LINE", "ST_MISSING", "ST_READ", "ST_RESULT", "ST_SECTION",
    "ST_TIME", "ScanResult", "scan",
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

    def __len__(self) -> int:
        return len(self.arrays)

    def chunk(self, buf: npt.NDArray[np.uint8], index: int) -> Chunk:
        """The :class:`~ingest.chunks.Chunk` the reference chunker gives for chunk ``index``."""
        row = self.arrays.hands[index]
        start, end = int(row[H_BYTE_START]), int(row[H_BYTE_END])
        return Chunk(buf[start:end].tobytes(), int(row[H_FIRST_LINE]), start,
                     int(self.end_offset[index]), bool(self.terminated[index]),
                     bool(self.newline[index]))


@njit(cache=True, nogil=True)
def _grow2(rows: np.ndarray, used: int, need: int) -> np.ndarray:
    if need <= rows.shape[0]:
        return rows
    grown = np.empty((max(need, rows.shape[0] * 2), rows.shape[1]), dtype=rows.dtype)
    grown[:used] = rows[:used]
    return grown


@njit(cache=True, nogil=True)
def _grow1(values: np.ndarray, used: int, need: int) -> np.ndarray:
    if need <= values.shape[0]:
        return values
    grown = np.empty(max(need, values.shape[0] * 2), dtype=values.dtype)
    grown[:used] = values[:used]
    return grown


@njit(cache=True, nogil=True)
def _scan_chunks(buf: np.ndarray, chunks: np.ndarray) -> tuple[
        np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    count = chunks.shape[0]
    hands = np.zeros((count, H_COLUMNS), dtype=np.int64)
    size = buf.shape[0]
    seats = np.empty((count * 6 + 16, S_COLUMNS), dtype=np.int64)
    events = np.empty((size // 24 + 64, E_COLUMNS), dtype=np.int64)
    cards = np.empty(size // 4 + 64, dtype=np.int8)
    seat_stack = np.zeros(11, dtype=np.int64)
    seat_hash = np.zeros(11, dtype=np.int64)
    n_seats = 0
    n_events = 0
    n_cards = 0
    for h in range(count):
        start = chunks[h, C_START]
        end = chunks[h, C_DATA_END]
        length = end - start
        seats = _grow2(seats, n_seats, n_seats + 10)
        events = _grow2(events, n_events, n_events + length // 8 + 2)
        cards = _grow1(cards, n_cards, n_cards + length + 2)
        hand = hands[h]
        _, n_seats, n_events, n_cards = scan_hand(
            buf, start, end, chunks[h, C_FIRST_LINE], hand, seats, n_seats, events, n_events,
            cards, n_cards, seat_stack, seat_hash)
        hand[H_BYTE_START] = start
        hand[H_BYTE_END] = end
    return hands, seats[:n_seats], events[:n_events], cards[:n_cards]


def scan(buf: npt.NDArray[np.uint8], start_line: int = 1, *,
         skip_bom: bool = True) -> ScanResult:
    """Scan a whole log's bytes (``np.frombuffer(data, np.uint8)``).

    ``start_line`` is the line number of ``buf[0]``; ``skip_bom`` skips a UTF-8 BOM at
    ``buf[0]`` as the reference chunker does at the start of a file.
    """
    data = np.ascontiguousarray(buf, dtype=np.uint8)
    chunks = split_chunks(data, start_line, skip_bom)
    hands, seats, events, cards = _scan_chunks(data, chunks)
    return ScanResult(
        HandArrays(hands, seats, events, cards),
        chunks[:, C_END].copy(),
        chunks[:, C_TERMINATED].astype(np.bool_),
        chunks[:, C_NEWLINE].astype(np.bool_),
    )
