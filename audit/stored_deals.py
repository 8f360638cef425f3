"""Which stored deals an audit reads, and how they are cut into batches for the workers.

A J rule reads a deal's previous one, and J506 follows a carried pot back deal by deal:
the hands asked for come with their tables' deals back to the last one that carries
nothing forward (:data:`_QUIET`), and a batch that begins inside a table carries the same
context (:func:`_batches`). :mod:`audit.store` audits what these give.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TypeAlias

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

#: Hand ids to audit: Python strings, or an Arrow string column (a million ids as Python
#: strings would cost the nightly job some hundred megabytes).
HandIds: TypeAlias = Sequence[str] | pa.Array | pa.ChunkedArray


#: A deal that carries nothing forward to the next at its table (no ``Passed out:
#: carried``, no chips carried in that a misdeal could carry on): a table's deals can be
#: read from such a deal on (see :data:`_STORED_SQL`). An SQL condition on ``stg_hands h``.
_QUIET = "h.carried_out IS NULL AND h.carried = 0"

#: The hands asked for and their context: at each table, the deals from the last one before
#: the first hand asked for that can carry nothing forward (:data:`_QUIET`) to the last
#: hand asked for. A J rule
#: reads a deal's previous one, and J506 follows a carried pot back deal by deal while
#: chips were carried forward: that chain stops at such a deal, so nothing before it can
#: change a finding. Deals are ordered as the audit orders them, by (time, hand id); the
#: bounds are found by filters and aggregates, so a night sorts only the deals it reads,
#: not its tables' history.
_STORED_SQL = f"""
WITH asked AS (SELECT DISTINCT hand_id FROM _audit_ids),
mine AS (SELECT h.table_id, h.time, h.hand_id FROM stg_hands h JOIN asked USING (hand_id)),
ends AS (SELECT table_id, min(time) AS t0, max(time) AS t1 FROM mine GROUP BY table_id),
bounds AS (
    SELECT e.table_id, any_value(e.t0) AS t0, any_value(e.t1) AS t1,
           min(m.hand_id) FILTER (WHERE m.time = e.t0) AS h0,
           max(m.hand_id) FILTER (WHERE m.time = e.t1) AS h1
    FROM ends e JOIN mine m USING (table_id) GROUP BY e.table_id
), quiet AS (
    SELECT h.table_id, h.time, h.hand_id
    FROM stg_hands h JOIN bounds b USING (table_id)
    WHERE (h.time < b.t0 OR (h.time = b.t0 AND h.hand_id < b.h0))
      AND {_QUIET}
), quiet_time AS (SELECT table_id, max(time) AS ts FROM quiet GROUP BY table_id),
start AS (
    SELECT b.table_id, any_value(b.t1) AS t1, any_value(b.h1) AS h1, any_value(s.ts) AS ts,
           max(q.hand_id) AS hs
    FROM bounds b LEFT JOIN quiet_time s USING (table_id)
    LEFT JOIN quiet q ON q.table_id = b.table_id AND q.time = s.ts
    GROUP BY b.table_id
), picked AS (
    SELECT r.hand_id, h.table_id, h.time, false AS context, {_QUIET} AS quiet
    FROM raw_hands r JOIN asked USING (hand_id) LEFT JOIN stg_hands h USING (hand_id)
    UNION ALL
    SELECT h.hand_id, h.table_id, h.time, true, {_QUIET}
    FROM stg_hands h JOIN start t USING (table_id)
    WHERE (t.ts IS NULL OR h.time > t.ts OR (h.time = t.ts AND h.hand_id >= t.hs))
      AND (h.time < t.t1 OR (h.time = t.t1 AND h.hand_id <= t.h1))
      AND h.hand_id NOT IN (SELECT hand_id FROM asked)
)
SELECT hand_id, table_id, context, quiet FROM picked ORDER BY table_id, time, hand_id
"""


def _stored(con: duckdb.DuckDBPyConnection, hand_ids: HandIds | None) -> pa.Table:
    """The hands to audit and the deals of their tables they need (:data:`_STORED_SQL`),
    by table and time (columns ``hand_id``, ``table_id``: null without a staging row,
    ``context``, ``quiet``: :data:`_QUIET`, null without a staging row)."""
    if hand_ids is None:
        return con.sql(f"SELECT r.hand_id, h.table_id, false AS context, {_QUIET} AS quiet"
                       " FROM raw_hands r LEFT JOIN stg_hands h USING (hand_id)"
                       " ORDER BY h.table_id, h.time, r.hand_id").to_arrow_table()
    ids = (hand_ids if isinstance(hand_ids, pa.Array | pa.ChunkedArray)
           else pa.array(list(hand_ids), pa.string()))
    con.register("_audit_ids", pa.table({"hand_id": ids}))
    try:
        return con.sql(_STORED_SQL).to_arrow_table()
    finally:
        con.unregister("_audit_ids")


def _batches(items: pa.Table, size: int) -> Iterator[pa.Table]:
    """``items`` (by table and time) in runs of ``size`` hands, each with its context.

    A run may begin inside a table: it then starts with the deals before it back to the
    last one that carries nothing forward (``quiet``; or the table's first), marked
    ``context``, as :data:`_STORED_SQL` gives a night's hands theirs: the J rules read
    its first deals' previous ones, and nothing before that deal can change a finding.
    So a batch's size, not a table's, bounds what a worker holds, and the findings are
    those of whole tables."""
    count = items.num_rows
    if not count:
        return
    tables = pc.dictionary_encode(items.column("table_id").combine_chunks())
    code = np.asarray(tables.indices.fill_null(-1).to_numpy(zero_copy_only=False),
                      dtype=np.int64)
    # A hand without staging rows (table null) is in no table's sequence: it needs none.
    quiet = np.asarray(items.column("quiet").fill_null(True).to_numpy(zero_copy_only=False),
                       dtype=np.bool_)
    first = np.ones(count, dtype=np.bool_)  # a table's first row
    first[1:] = code[1:] != code[:-1]
    rows = np.arange(count)
    # Per row, the last row at or before it of its table where its reading may start.
    start_at = np.maximum.accumulate(np.where(quiet | first, rows, 0))
    context = items.schema.get_field_index("context")
    for lo in range(0, count, size):
        hi = min(lo + size, count)
        start = lo if first[lo] else int(start_at[lo - 1])
        part = items.slice(start, hi - start)
        if start < lo:
            marked = np.asarray(part.column(context).to_numpy(zero_copy_only=False),
                                dtype=np.bool_).copy()
            marked[:lo - start] = True
            part = part.set_column(context, "context", pa.array(marked))
        yield part
