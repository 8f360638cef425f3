"""A fact table's record array as one contiguous column per field, in one compiled pass.

The replay writes each fact table as a numpy record array (a row per hand, line, seat
or pot); the rules read a few columns of every row many times, which is many times
faster from contiguous columns than from the record array's strided fields.
:func:`split_columns` copies every field of every row in one pass over the rows (the
copy is bound by reading the table's memory), each field by its width: every field of
the fact tables is 1, 4 or 8 bytes wide and aligned (``align=True``), so a row reads as
8-, 4- and 1-byte integers. The columns land in three buffers, one per width and a row
per field, that a worker keeps from batch to batch
(:class:`audit.facts.arrays.TableMemory`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
from numba import njit

if TYPE_CHECKING:  # not imported at run time: the compiled code's stamp stays its own
    from audit.facts.arrays import TableMemory

#: The widths of the fields, and the integer type that moves each (widest first).
_WIDTHS = ((8, np.int64), (4, np.int32), (1, np.int8))


@njit(cache=True, nogil=True)
def _copy_out(rows8: np.ndarray, rows4: np.ndarray, rows1: np.ndarray,
              at8: npt.NDArray[np.int64], at4: npt.NDArray[np.int64],
              at1: npt.NDArray[np.int64], out8: np.ndarray, out4: np.ndarray,
              out1: np.ndarray) -> None:
    """``out[k, r] = rows[r, at[k]]`` for every field ``k`` of each width and row ``r``:
    one pass over the rows (the copy is bound by reading the table's memory once)."""
    for r in range(rows8.shape[0]):
        for k in range(at8.shape[0]):
            out8[k, r] = rows8[r, at8[k]]
        for k in range(at4.shape[0]):
            out4[k, r] = rows4[r, at4[k]]
        for k in range(at1.shape[0]):
            out1[k, r] = rows1[r, at1[k]]


def split_columns(table: np.ndarray, memory: TableMemory | None = None, name: str = ""
                  ) -> dict[str, np.ndarray]:
    """Every field of the record array ``table`` as its own contiguous column (in memory
    kept for ``name`` if ``memory`` is given: dead by the next call of the same name)."""
    dtype = table.dtype
    rows = len(table)
    fields: Mapping[str, tuple[np.dtype, int]] = dtype.fields or {}  # type: ignore[assignment]
    raw = np.ascontiguousarray(table).view(np.uint8).reshape(rows, dtype.itemsize)
    out: dict[str, np.ndarray] = {}
    args: list[np.ndarray] = []
    positions: list[np.ndarray] = []
    blocks: list[np.ndarray] = []
    for width, mover in _WIDTHS:
        names = [n for n in dtype.names or () if fields[n][0].itemsize == width]
        shape = (len(names), rows)
        block = (np.empty(shape, dtype=mover) if memory is None
                 else memory.array(f"columns {name} {width}", mover, shape))
        args.append(raw.view(mover))
        positions.append(np.array([fields[n][1] // width for n in names], dtype=np.int64))
        blocks.append(block)
        for k, field in enumerate(names):
            out[field] = block[k].view(fields[field][0])
    if rows:
        _copy_out(*args, *positions, *blocks)
    return out


def warm_up() -> None:
    """Compile (or load from the cache) the column copy."""
    split_columns(np.zeros(1, dtype=np.dtype([("a", np.int64), ("b", np.int32),
                                              ("c", np.int8)], align=True)))
