"""Whether the store takes a flush's rows as they are, told before they are written.

DuckDB aborts a whole transaction when one statement in it fails, so a flush written into
a transaction that already holds other flushes (:class:`ingest.commit.Transaction`) must
not fail on its data. Such a failure can only come from a value that fits no column:

- a column whose Arrow type is not the one of the store's column (a cast that may fail:
  an integer too wide, a text that is no number...);
- a null in a ``NOT NULL`` column;
- a text that is not UTF-8 (DuckDB checks every text it reads from Arrow).

:func:`fits` checks all three on the flush's Arrow tables against the store's own column
types (read once, :func:`store_columns`), in the reading thread. A flush that does not
pass is written on its own, in a transaction of its own, where a refused hand is found by
bisection and quarantined (:func:`ingest.commit.flush`).
"""

from __future__ import annotations

from collections.abc import Iterable

import duckdb
import numpy as np
import pyarrow as pa

from ingest.staged import HandRows

__all__ = ["StoreColumns", "fits", "store_columns"]

#: table -> column -> (DuckDB type, nullable)
StoreColumns = dict[str, dict[str, tuple[str, bool]]]

#: The Arrow type DuckDB reads into each column type without a cast.
_SAME_TYPE: dict[pa.DataType, str] = {
    pa.string(): "VARCHAR",
    pa.int32(): "INTEGER",
    pa.int64(): "BIGINT",
    pa.bool_(): "BOOLEAN",
    pa.timestamp("us", tz="UTC"): "TIMESTAMP WITH TIME ZONE",
    pa.list_(pa.string()): "VARCHAR[]",
    pa.dictionary(pa.int32(), pa.string()): "VARCHAR",  # ingest.staged.CODED columns
}
_TABLES = ("raw_hands", "stg_hands", "stg_seats", "stg_actions")


def store_columns(con: duckdb.DuckDBPyConnection) -> StoreColumns:
    """The type and nullability of every column of the tables a flush writes."""
    rows = con.execute(
        "SELECT table_name, column_name, data_type, is_nullable FROM duckdb_columns() "
        "WHERE database_name = current_database() AND schema_name = current_schema() "
        "AND table_name IN (SELECT unnest(?::VARCHAR[]))", [list(_TABLES)]).fetchall()
    columns: StoreColumns = {}
    for table, column, kind, nullable in rows:
        columns.setdefault(table, {})[column] = (str(kind), bool(nullable))
    return columns


def fits(hands: HandRows, columns: StoreColumns) -> bool:
    """Whether every row of ``hands`` fits the store's columns (see the module docstring)."""
    tables = {"raw_hands": hands.raw, **hands.tables()}
    return all(_table_fits(data, columns.get(name, {})) for name, data in tables.items())


def _table_fits(data: pa.Table, columns: dict[str, tuple[str, bool]]) -> bool:
    for field, column in zip(data.schema, data.columns, strict=True):
        if field.name not in columns:
            return False
        kind, nullable = columns[field.name]
        if _SAME_TYPE.get(field.type) != kind:
            return False
        if not nullable and column.null_count:
            return False
        if kind in ("VARCHAR", "VARCHAR[]") and not _utf8(column.chunks):
            return False
    return True


def _utf8(chunks: Iterable[pa.Array]) -> bool:
    """Whether every text of ``chunks`` is UTF-8: at once when their bytes are ASCII (what
    every reader gives), else by Arrow's full check."""
    for chunk in chunks:
        if isinstance(chunk, pa.DictionaryArray):  # its texts are its dictionary's
            texts = chunk.dictionary
        else:
            texts = chunk.flatten() if isinstance(chunk, pa.ListArray) else chunk
        if not len(texts) or texts.buffers()[2] is None:
            continue
        # Only the bytes these texts use (a slice shares its parent's buffer).
        offsets = np.frombuffer(texts.buffers()[1], dtype=np.int32)
        start, end = offsets[texts.offset], offsets[texts.offset + len(texts)]
        data = np.frombuffer(texts.buffers()[2], dtype=np.uint8)[start:end]
        if not len(data) or int(data.max()) < 0x80:
            continue
        try:
            texts.validate(full=True)
        except pa.ArrowInvalid:
            return False
    return True
