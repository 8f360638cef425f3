"""Some hands' rows of ``raw_hands``, found without reading every stored text.

A semi-join on ``hand_id`` (``WHERE hand_id IN (SELECT ...)``) makes DuckDB read, and
decompress, the ``raw_text`` of every stored hand before it joins, and an expression on
the text in the same ``WHERE`` (``sha256(raw_text) <> sha256``) is computed for every
stored hand too. :func:`raw_rows_of` finds the hands' row ids on the ``hand_id`` column
alone and keeps those rows by row id, which DuckDB fetches without the others' texts.
On a store of a million hands, for 2,000 ids: 0.06 s instead of 0.4 to 1.3 s for their
texts, and 0.06 s instead of 3.7 to 4.7 s for those of them that do not hash to their
sha256 (``benchmarks/bench_raw_reads.py``).
"""

from __future__ import annotations

__all__ = ["raw_rows_of"]


def raw_rows_of(ids: str) -> str:
    """A ``WHERE`` condition on ``raw_hands`` (unaliased) keeping the hands named by
    ``ids``: a relation, or a parenthesised query, with a ``hand_id`` column (a name
    not stored matches nothing; a name given twice, its one row)."""
    return ("raw_hands.rowid IN (SELECT r.rowid FROM raw_hands r "
            f"WHERE r.hand_id IN (SELECT hand_id FROM {ids}))")
