"""Rows of a fact table as tuples of plain Python values, some fields at a time.

A procedural rule reads a candidate hand's rows as Python values (a hand view's thirty
lines and its seats, :mod:`audit.facts.view`; one row, :meth:`Batch.hand`). numpy
gives them one call per field (``column[rows].tolist()``) or one scalar per value
(``record.item()``, ``table[rows].tolist()``); a :class:`RowReader` unpacks the rows'
bytes with one :class:`struct.Struct` instead, in C, skipping the fields it is not
asked for. The fields it reads are named in the table's own order: the values come
out in that order.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

import numpy as np

#: The struct code of each kind of field the fact tables use (numpy kind, bytes).
_CODES = {("b", 1): "?", ("i", 1): "b", ("i", 4): "i", ("i", 8): "q", ("u", 8): "Q"}


class RowReader:
    """Some fields of a fact table's rows as tuples of plain values (``bool``, ``int``)."""

    def __init__(self, dtype: np.dtype, names: Sequence[str] | None = None) -> None:
        """Read ``names`` (every field if None) of rows of ``dtype``; the names must come
        in the order of the fields in the row, which is the order of the values read."""
        fields: dict[str, Any] = dtype.fields or {}  # type: ignore[assignment]
        self.names = tuple(dtype.names or () if names is None else names)
        layout, at = ["<"], 0
        for name in self.names:
            kind, offset = fields[name][0], fields[name][1]
            if offset < at:
                raise ValueError(f"field {name!r} is out of the row's order")
            layout.append(f"{offset - at}x" if offset > at else "")
            layout.append(_CODES[(kind.kind, kind.itemsize)])
            at = offset + kind.itemsize
        layout.append(f"{dtype.itemsize - at}x" if dtype.itemsize > at else "")
        self._struct = struct.Struct("".join(layout))

    def rows(self, table: np.ndarray, start: int, stop: int) -> list[tuple[Any, ...]]:
        """Rows ``start``..``stop`` of ``table``."""
        return list(self._struct.iter_unpack(table[start:stop].tobytes()))

    def row(self, table: np.ndarray, row: int) -> tuple[Any, ...]:
        """Row ``row`` of ``table`` (negative: from the end, as numpy indexes)."""
        if row < 0:
            row += len(table)
        if not 0 <= row < len(table):
            raise IndexError(f"row {row} of {len(table)}")
        return self._struct.unpack(table[row:row + 1].tobytes())
