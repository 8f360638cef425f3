"""FNV-1a 64 hashes of string columns, as the compiled scanner hashes ids (the staging
read's table, hand and player ids must hash as a scan of the same hands does)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ingest.scan.layout import IntArray

_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)


def one_string_array(column: pa.Array | pa.ChunkedArray) -> pa.StringArray:
    """One contiguous string array of ``column`` (nulls as empty strings)."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if column.type != pa.string():
        column = column.cast(pa.string())
    return column.fill_null("")


def _fnv_distinct(texts: pa.StringArray) -> IntArray:
    """FNV-1a 64 of each string's UTF-8, one byte position at a time over all strings."""
    count = len(texts)
    offsets = np.frombuffer(texts.buffers()[1], dtype=np.int32)[
        texts.offset:texts.offset + count + 1]
    data = texts.buffers()[2]
    raw = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
    starts = offsets[:-1].astype(np.int64)
    lengths = (offsets[1:] - offsets[:-1]).astype(np.int64)
    h = np.full(count, _FNV_OFFSET, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(int(lengths.max()) if count else 0):
            live = np.flatnonzero(lengths > j)
            h[live] = (h[live] ^ raw[starts[live] + j].astype(np.uint64)) * _FNV_PRIME
    return h.view(np.int64)


def fnv1a64_column(column: pa.Array | pa.ChunkedArray) -> IntArray:
    """:func:`ingest.scan.layout.fnv1a64` of each value's UTF-8, as int64 (each distinct
    value hashed once: ids repeat)."""
    encoded = pc.dictionary_encode(one_string_array(column))
    hashes = _fnv_distinct(encoded.dictionary)
    return hashes[encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)]


def fnv1a64_many(texts: Sequence[str]) -> IntArray:
    """:func:`ingest.scan.layout.fnv1a64` of each text's UTF-8, as int64."""
    return fnv1a64_column(pa.array(list(texts), pa.string()))
