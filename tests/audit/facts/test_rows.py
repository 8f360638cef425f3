"""RowReader: a fact table's rows as plain values, exactly as numpy gives them."""

from __future__ import annotations

import numpy as np
import pytest

from audit.facts.rows import RowReader
from audit.facts.tables import ACTION, HAND, POT, SEAT, new_table


@pytest.mark.parametrize("dtype", [HAND, ACTION, SEAT, POT], ids=["hand", "action", "seat", "pot"])
def test_rows_are_numpys_values(dtype: np.dtype) -> None:
    rng = np.random.default_rng(7)
    table = new_table(dtype, 40)
    for name in dtype.names or ():
        kind = dtype[name]
        if kind.kind == "b":
            table[name] = rng.integers(0, 2, len(table)).astype(bool)
        else:  # every width's extremes, so a wrong code or offset shows
            info = np.iinfo(kind)
            values = [info.min, -1, 0, 1, 77, info.max] if info.min else [0, 1, 77, info.max]
            table[name] = np.array(values, dtype=kind)[rng.integers(0, len(values), len(table))]
    every = RowReader(dtype)
    assert every.rows(table, 3, 17) == table[3:17].tolist()
    assert every.row(table, 5) == table[5].item()
    assert every.row(table, -1) == table[-1].item()
    with pytest.raises(IndexError):
        every.row(table, len(table))
    some = (dtype.names or ())[1::3]
    picked = RowReader(dtype, some).rows(table, 0, len(table))
    assert picked == list(zip(*(table[name].tolist() for name in some), strict=True))
    assert all(type(v) in (bool, int) for row in picked for v in row)


def test_fields_must_come_in_the_rows_order() -> None:
    with pytest.raises(ValueError, match="out of the row's order"):
        RowReader(SEAT, ("seat", "hand"))
