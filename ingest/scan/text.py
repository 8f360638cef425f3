"""Compiled copy of byte spans into Arrow's string layout (one data buffer, offsets).

The scanner leaves a hand's strings where they are in the buffer (``Spans``); the
staging rows need them as Arrow string columns. :func:`gather` copies every span
into one contiguous buffer in a single compiled pass (memcpy speed), optionally
writing ``\\r\\n`` as ``\\n`` (a hand's raw text is kept with ``\\n`` line ends, as the
reference reader keeps it), and returns the offsets Arrow wants.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pyarrow as pa
from numba import njit

ByteArray = npt.NDArray[np.uint8]
IntArray = npt.NDArray[np.int64]
_CARD_LIST = pa.list_(pa.string())


@njit(cache=True, nogil=True)
def _gather(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, drop_cr: bool
            ) -> tuple[np.ndarray, np.ndarray]:
    n = starts.shape[0]
    total = 0
    for i in range(n):
        if starts[i] >= 0:
            total += ends[i] - starts[i]
    out = np.empty(total, dtype=np.uint8)
    offsets = np.empty(n + 1, dtype=np.int32)
    k = 0
    for i in range(n):
        offsets[i] = k
        if starts[i] < 0:
            continue
        start, end = starts[i], ends[i]
        if not drop_cr:
            out[k:k + end - start] = buf[start:end]  # a memcpy
            k += end - start
            continue
        for j in range(start, end):
            byte = buf[j]
            if byte == 13 and j + 1 < end and buf[j + 1] == 10:
                continue
            out[k] = byte
            k += 1
    offsets[n] = k
    return out[:k], offsets


def gather(buf: ByteArray, starts: IntArray, ends: IntArray, *, drop_cr: bool = False,
           ) -> pa.StringArray:
    """The strings buf[starts[i]:ends[i]] (null where ``starts[i]`` is -1) as Arrow
    strings; ``drop_cr`` writes each ``\\r\\n`` as ``\\n``. The spans must hold UTF-8
    (the scanner reads printable ASCII only), and total less than 2 GiB."""
    if drop_cr and len(buf) and not (buf == 13).any():
        drop_cr = False  # no CR at all (the usual log): copy spans whole, not byte by byte
    data, offsets = _gather(buf, np.ascontiguousarray(starts, dtype=np.int64),
                            np.ascontiguousarray(ends, dtype=np.int64), drop_cr)
    valid = np.asarray(starts) >= 0
    nulls = int(len(valid) - np.count_nonzero(valid))
    bitmap = pa.py_buffer(np.packbits(valid, bitorder="little")) if nulls else None
    return pa.StringArray.from_buffers(len(valid), pa.py_buffer(offsets), pa.py_buffer(data),
                                       bitmap, nulls)


@njit(cache=True, nogil=True)
def _card_text(codes: np.ndarray, starts: np.ndarray, counts: np.ndarray, names: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    n = starts.shape[0]
    lists = np.empty(n + 1, dtype=np.int32)
    total = 0
    for i in range(n):
        lists[i] = total
        if counts[i] > 0:
            total += counts[i]
    lists[n] = total
    out = np.empty(2 * total, dtype=np.uint8)
    k = 0
    for i in range(n):
        for j in range(starts[i], starts[i] + max(counts[i], 0)):
            code = codes[j]
            out[k] = names[code, 0]
            out[k + 1] = names[code, 1]
            k += 2
    return out, lists


def card_lists(codes: npt.NDArray[np.int8], starts: IntArray, counts: IntArray,
               names: npt.NDArray[np.uint8]) -> pa.ListArray:
    """``list<string>`` of the two-letter card names (``names[code]``) of each range
    codes[starts[i]:starts[i] + counts[i]]; null where the count is -1."""
    data, lists = _card_text(codes, np.ascontiguousarray(starts, dtype=np.int64),
                             np.ascontiguousarray(counts, dtype=np.int64), names)
    cards = len(data) // 2
    values = pa.StringArray.from_buffers(
        cards, pa.py_buffer(np.arange(0, 2 * cards + 1, 2, dtype=np.int32)),
        pa.py_buffer(data))
    valid = np.asarray(counts) >= 0
    nulls = len(valid) - int(np.count_nonzero(valid))
    bitmap = pa.py_buffer(np.packbits(valid, bitorder="little")) if nulls else None
    # Straight from the buffers: ``ListArray.from_arrays`` with a mask copies and checks them.
    return pa.Array.from_buffers(_CARD_LIST, len(valid), [bitmap, pa.py_buffer(lists)],
                                 null_count=nulls, children=[values])


def warm_up() -> None:
    """Compile (or load from the cache) the copy kernels, on empty input as ingest calls
    them (a read-only buffer: the bytes of a piece)."""
    buf = np.zeros(0, dtype=np.uint8)
    buf.flags.writeable = False
    none = np.zeros(0, dtype=np.int64)
    gather(buf, none, none, drop_cr=True)
    card_lists(np.zeros(0, dtype=np.int8), none, none, np.zeros((1, 2), dtype=np.uint8))
