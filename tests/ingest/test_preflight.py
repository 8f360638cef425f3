"""The pre-flight check of a flush: whether the store takes its rows as they are (a flush
that passes is written into the open transaction, which one refused value would abort)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from ingest.batches import read_batches
from ingest.preflight import fits, store_columns
from ingest.reader import HandReader
from ingest.staged import HandRows
from schemas.store import connect
from tests.ingest.conftest import example


@pytest.fixture
def hands(tmp_path: Path) -> HandRows:
    path = tmp_path / "day.log"
    path.write_text("\n\n".join(example(f"P{n}") for n in range(3)) + "\n")
    [batch] = list(read_batches(HandReader(path), 10))
    return batch.hands


@pytest.fixture
def con(tmp_path: Path) -> duckdb.DuckDBPyConnection:
    return connect(tmp_path / "s.duckdb")


def _with(hands: HandRows, table: str, column: str, values: pa.Array) -> HandRows:
    data = hands.raw if table == "raw_hands" else hands.staging[table]
    changed = data.set_column(data.schema.get_field_index(column), column, values)
    if table == "raw_hands":
        return HandRows(changed, hands.staging)
    return HandRows(hands.raw, {**hands.staging, table: changed})


def test_rows_read_from_a_log_fit_a_new_store(con, hands: HandRows) -> None:
    assert fits(hands, store_columns(con))


def test_text_that_is_utf8_fits_and_bytes_that_are_not_do_not(con, hands: HandRows) -> None:
    columns = store_columns(con)
    seats = len(hands.staging["stg_seats"])
    assert fits(_with(hands, "stg_seats", "player_id", pa.array(["Zoë"] * seats)), columns)
    bad = b"\xff\xfe"
    offsets = pa.array([0, *([len(bad)] * seats)], pa.int32()).buffers()[1]
    broken = pa.Array.from_buffers(pa.string(), seats, [None, offsets, pa.py_buffer(bad)])
    assert not fits(_with(hands, "stg_seats", "player_id", broken), columns)


def test_a_card_list_that_is_not_utf8_does_not_fit(con, hands: HandRows) -> None:
    actions = hands.staging["stg_actions"]
    bad = pa.Array.from_buffers(pa.string(), 1, [None, pa.array([0, 2], pa.int32()).buffers()[1],
                                                 pa.py_buffer(b"\xc3\x28")])
    cards = pa.ListArray.from_arrays(pa.array([0] + [1] * len(actions), pa.int32()), bad)
    assert not fits(_with(hands, "stg_actions", "cards", cards), store_columns(con))


def test_a_null_fits_only_a_column_that_takes_nulls(con, hands: HandRows) -> None:
    columns = store_columns(con)
    n = len(hands)
    assert fits(_with(hands, "stg_hands", "room", pa.nulls(n, pa.string())), columns)
    assert not fits(_with(hands, "stg_hands", "table_id", pa.nulls(n, pa.string())), columns)


def test_a_column_of_another_type_than_the_stores_does_not_fit(con, hands: HandRows) -> None:
    wide = pa.array([3_000_000_000] * len(hands), pa.int64())
    assert not fits(_with(hands, "stg_hands", "jackpot", wide), store_columns(con))
    # A store whose column has another type than the readers give: nothing fits it as is.
    con.execute("ALTER TABLE stg_hands ALTER jackpot TYPE BIGINT")
    assert not fits(hands, store_columns(con))
    con.execute("ALTER TABLE stg_hands DROP COLUMN rake")
    assert not fits(hands, store_columns(con))


def test_a_coded_column_whose_names_are_not_utf8_does_not_fit(con, hands: HandRows) -> None:
    """A dictionary column (ingest.staged.CODED) is checked through its dictionary."""
    actions = hands.staging["stg_actions"]
    verbs = actions.column("verb").combine_chunks()
    assert isinstance(verbs, pa.DictionaryArray)
    names = verbs.dictionary
    bad = pa.Array.from_buffers(pa.string(), len(names), [
        None, names.buffers()[1], pa.py_buffer(b"\xff" * names.buffers()[2].size)])
    broken = pa.DictionaryArray.from_arrays(verbs.indices, bad)
    assert fits(hands, store_columns(con))
    assert not fits(_with(hands, "stg_actions", "verb", broken), store_columns(con))
