"""Per-key sums kept across batches, exact: the same totals, to the bit, however the hands
are cut into batches, whichever process feeds them and in whatever order they come.

Why exact. A float sum's rounding depends on how its terms are grouped and ordered, so
per-batch float sums added batch after batch moved in their last bits with the batch cut
(on 100,000 hands, 1,013 of 30,578 cells between batches of 50,000 and 7,001 hands, up to
3e-12 relatively: ``benchmarks/integrity_same_bits.py``). Integers add exactly in any
order, so everything a :class:`Sums` keeps is an ``int64``:

- counts and integer-valued columns as they are (the card tests' deals and seats, the
  cards returning to a seat, the pair tests' decisions);
- fractional columns (the PITs and their squares) in fixed point (:func:`fixed`): each
  value truncated towards zero to a multiple of 2**-64 and held as two integers, the
  multiples of 2**-32 and the rest; summed per key with ``np.add.at`` (exact on integers).

Why this device rather than another:

- Exact where it matters: a float64 has 53 bits, so every value of at least 2**-11 is a
  multiple of 2**-64 and kept exactly; a smaller one loses less than 2**-64. On a sum of
  n PITs (about n/2, or n/3 for the squares) that is under a thousandth of the float
  total's last bit: the total is the float sum done exactly, rounded once.
- Fast: a few array passes over a batch's values, made once a batch and shared by every
  level (:meth:`FixedPoint.__getitem__`); no sorting, and no Python call per key as
  ``math.fsum``'s partials would need (and a float's own exponent and mantissa would
  need shifting to a common point anyway: that is the fixed point).
- Rounded once (:func:`to_float`): the high part times 2**-32 plus the low part times
  2**-64, both exact in float64, is one correctly rounded addition while the total is
  below 2**21 (the high part below 2**53); above that a fixed function of the integers.
- Integers can be stored and added night to night (an incremental analysis).

Room: values of magnitude at most :data:`FIXED_LIMIT` (PITs are in [0, 1]), so a key's
high parts (2**33 a value at most) overflow an ``int64`` only past 2**30 values.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from audit.integrity.checks._common import unique_inverse

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
#: Bits of a fixed-point value's fraction held by each of its two parts.
_HALF = 32
_SCALE = float(1 << _HALF)
_LOW_MASK = (1 << _HALF) - 1
#: Largest magnitude :func:`fixed` takes.
FIXED_LIMIT = 2.0


@dataclass(frozen=True)
class FixedPoint:
    """Values as ``high * 2**-32 + low * 2**-64``, each truncated towards zero to a
    multiple of 2**-64 (both parts with the value's sign, ``low`` below 2**32 in
    magnitude)."""

    high: I64
    low: I64

    def __len__(self) -> int:
        return len(self.high)

    def __getitem__(self, index: npt.NDArray[np.bool_] | npt.NDArray[np.intp]) -> FixedPoint:
        return FixedPoint(self.high[index], self.low[index])


def fixed(values: npt.ArrayLike) -> FixedPoint:
    """``values`` (finite, at most :data:`FIXED_LIMIT` in magnitude) in fixed point.

    Scaling by 2**32 is exact, and so is taking a float's integer part from it: the high
    part is the integer part of ``value * 2**32``, the low part that of the fraction left
    times 2**32."""
    x = np.asarray(values, dtype=np.float64)
    if len(x) and not (x.min() >= -FIXED_LIMIT and x.max() <= FIXED_LIMIT):
        raise ValueError(f"fixed point takes finite values within ±{FIXED_LIMIT:g}")
    scaled = x * _SCALE
    high = scaled.astype(np.int64)
    low = ((scaled - high) * _SCALE).astype(np.int64)
    return FixedPoint(high, low)


def to_float(high: I64, low: I64) -> F64:
    """The sums of fixed-point values (their parts summed apart) as floats, rounded once."""
    high = high + (low >> _HALF)  # carry: the low part then in [0, 2**32)
    low = low & _LOW_MASK
    return high.astype(np.float64) / _SCALE + low.astype(np.float64) / (_SCALE * _SCALE)


class Sums:
    """Per-key sums of several columns, accumulated batch by batch, exactly (int64).

    A column is counted (``None``: 1 a row; a boolean column: its true rows), summed as
    integers (a numeric column: its values must be integers), or, when its index is in
    ``fractional``, summed in fixed point (a float column, or its :class:`FixedPoint`
    made once for several sums). :meth:`totals` gives the columns as floats.

    Blocks are merged whenever those added since the last merge outnumber the merged
    rows (and a floor), so memory follows the number of keys, not of batches, at a
    cost of a constant factor of extra merging.
    """

    #: Rows added before a merge is worth its cost, whatever the keys.
    MERGE_FLOOR = 200_000

    def __init__(self, columns: int, fractional: Iterable[int] = ()) -> None:
        self._columns = columns
        self._fractional = frozenset(fractional)
        # each column's first slot in the blocks: a fractional column takes two (high, low)
        self._slot = np.cumsum([0] + [1 + (i in self._fractional) for i in range(columns)])
        self._keys: list[I64] = []
        self._blocks: list[I64] = []
        self._merged_rows = 0
        self._pending_rows = 0

    def add(self, keys: I64, *columns: npt.ArrayLike | FixedPoint | None) -> None:
        """Add one row per key (keys may repeat); a column ``None`` is 1 on every row."""
        if len(keys) == 0:
            return
        unique, inverse = unique_inverse(keys)
        block = np.zeros((self._slot[-1], len(unique)), dtype=np.int64)
        for i, column in enumerate(columns):
            at = self._slot[i]
            if i in self._fractional:
                value = column if isinstance(column, FixedPoint) else fixed(
                    np.asarray(column))
                np.add.at(block[at], inverse, value.high)
                np.add.at(block[at + 1], inverse, value.low)
            elif column is None:
                block[at] = np.bincount(inverse, minlength=len(unique))
            elif isinstance(column, np.ndarray) and column.dtype == np.bool_:
                block[at] = np.bincount(inverse[column], minlength=len(unique))
            else:
                assert not isinstance(column, FixedPoint), f"column {i} is not fractional"
                total = np.bincount(inverse, weights=np.asarray(column, dtype=np.float64),
                                    minlength=len(unique))
                if not np.array_equal(total, np.rint(total)):
                    raise ValueError(f"column {i} has fractions: declare it fractional")
                block[at] = total
        self._add(unique, block)

    def add_block(self, unique: I64, block: I64) -> None:
        """Add per-key counts already made, in a :class:`Sums` without fractional columns:
        ``unique`` keys (sorted, distinct), a row each, a column each."""
        assert not self._fractional, "fractional columns are added by add()"
        self._add(unique, np.ascontiguousarray(np.asarray(block, dtype=np.int64).T))

    def _add(self, unique: I64, block: I64) -> None:
        """Keep a block (slots by keys); merge the blocks once they outgrow the merged."""
        self._keys.append(unique)
        self._blocks.append(block)
        self._pending_rows += len(unique)
        if self._pending_rows > max(self.MERGE_FLOOR, self._merged_rows):
            keys_now, block_now = self._merged()
            self._keys, self._blocks = [keys_now], [block_now]
            self._merged_rows, self._pending_rows = len(keys_now), 0

    def _merged(self) -> tuple[I64, I64]:
        """Unique keys and their summed slots (slots by keys)."""
        if not self._keys:
            return np.zeros(0, dtype=np.int64), np.zeros((self._slot[-1], 0), dtype=np.int64)
        if len(self._keys) == 1:
            return self._keys[0], self._blocks[0]
        unique, inverse = unique_inverse(np.concatenate(self._keys))
        blocks = np.concatenate(self._blocks, axis=1)
        out = np.zeros((len(blocks), len(unique)), dtype=np.int64)
        for slot in range(len(blocks)):
            np.add.at(out[slot], inverse, blocks[slot])
        return unique, out

    def totals(self) -> tuple[I64, F64]:
        """Unique keys and their summed columns as floats (rows aligned with the keys)."""
        keys, block = self._merged()
        out = np.empty((len(keys), self._columns))
        for i in range(self._columns):
            at = self._slot[i]
            out[:, i] = to_float(block[at], block[at + 1]) if i in self._fractional \
                else block[at]
        return keys, out
