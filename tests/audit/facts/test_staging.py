"""The store's staging rows read back give exactly the arrays of the records ingest stored."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa

from audit.facts.arrays import TableMemory
from audit.facts.layout import from_records
from audit.facts.staging import StagingRows, fetch_staging, read_staging, staging_arrays
from ingest.load import ingest_paths
from ingest.parser import parse_hand
from schemas.records import HandRecord
from schemas.store import connect
from tests.audit.corpus import corpus
from tests.audit.harness import FIXTURES


def test_staging_rows_are_the_records_arrays(tmp_path: Path) -> None:
    room = corpus("foster", hands=400, seed=21, violations=0.3, unrecorded=0.1, broken=0.02)
    jsonl = tmp_path / "more.jsonl"
    jsonl.write_text("".join(r.model_dump_json() + "\n" for r in room.records[:5]))
    db = tmp_path / "store.duckdb"
    ingest_paths([*map(str, room.files), str(FIXTURES / "D307.log"), str(jsonl)], str(db))
    con = connect(str(db))
    try:
        # The hands as stored (a hand given twice is kept once), read back from their text.
        stored = con.execute("SELECT raw_text, first_line, form FROM raw_hands "
                             "ORDER BY hand_id DESC").fetchall()
        records = [HandRecord.model_validate_json(text) if form == "jsonl"
                   else parse_hand(text, first_line=line) for text, line, form in stored]
        assert len(records) > 350
        arrays, labels = read_staging(con, [r.hand_id for r in records])
        # Rows in any order, read in memory kept from an earlier batch, lay out the same.
        (rows,) = fetch_staging(con, [[r.hand_id for r in records]])
        memory = TableMemory()
        read_staging(con, [r.hand_id for r in records[::-3]], memory)
        shuffled = StagingRows(rows.hands, _shuffled(rows.seats), _shuffled(rows.actions),
                               rows.first, rows.count)
        again, _ = staging_arrays(shuffled, memory)
    finally:
        con.close()
    expected = from_records(records)
    for name in ("hands", "seats", "events", "cards"):
        assert np.array_equal(getattr(arrays, name), getattr(expected, name)), name
        assert np.array_equal(getattr(again, name), getattr(expected, name)), name
    for h, record in enumerate(records):
        assert labels.hand_id(h) == record.hand_id
        assert labels.table_id(h) == record.table_id
        assert labels.result_line(h) == record.result_line
        for seat in record.seats:
            assert labels.player_id(h, seat.seat) == seat.player_id
        for a in record.actions:
            if a.reading is not None:
                assert labels.reading(h, a.index) == a.reading


def _shuffled(rows: pa.Table) -> pa.Table:
    """The rows in another order, in two chunks (as a read may come)."""
    order = np.random.default_rng(5).permutation(rows.num_rows)
    half = rows.num_rows // 2
    return pa.concat_tables([rows.take(pa.array(order[:half])),
                             rows.take(pa.array(order[half:]))])
