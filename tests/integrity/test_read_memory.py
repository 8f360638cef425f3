"""DuckDB's cache while the analysis reads the store: emptied and bounded before the worker
is forked, emptied once the batches are read, and the connection's limit as it was
afterwards."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import duckdb
import pytest

from audit.integrity import engine, parallel
from audit.integrity.engine import DROP_MEMORY, READ_MEMORY, Options, run_integrity
from tests.integrity.conftest import Room


def _limit(con: duckdb.DuckDBPyConnection) -> str:
    return str(con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0])


def _spelled(setting: str) -> str:
    """A memory limit as DuckDB prints it back."""
    probe = duckdb.connect()
    probe.execute(f"SET memory_limit = '{setting}'")
    return _limit(probe)


def _cached(con: duckdb.DuckDBPyConnection) -> int:
    """Bytes of the store's blocks DuckDB holds in memory."""
    return int(con.execute("SELECT memory_usage_bytes FROM duckdb_memory() "
                           "WHERE tag = 'BASE_TABLE'").fetchall()[0][0])


def test_the_cache_read_is_dropped_and_the_limit_restored(tmp_path: Path) -> None:
    path = tmp_path / "store.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE t AS SELECT hash(i) AS i, hash(i + 1) AS j, "
                    "hash(i + 2) AS k FROM range(2000000) r(i)")  # incompressible
    con = duckdb.connect(str(path))
    try:
        con.execute("SET memory_limit = '2GB'")
        con.execute("SELECT sum(i), sum(j), sum(k) FROM t").fetchall()
        read, before = _cached(con), _limit(con)
        assert read > 2 * (16 << 20)  # well above what the drop keeps
        with engine._bounded_cache(con):
            assert _limit(con) == _spelled(READ_MEMORY)
            assert _cached(con) <= (16 << 20)  # what was cached before: dropped
            con.execute("SELECT sum(i), sum(j), sum(k) FROM t").fetchall()
        assert _cached(con) <= (16 << 20) < read
        assert _limit(con) == _spelled(before)  # as it reads (DuckDB prints it rounded)
        assert _spelled(DROP_MEMORY) == _spelled("16MB")
    finally:
        con.close()


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                    reason="the worker is forked")
def test_the_worker_is_forked_with_the_cache_bounded(cheat_room: Room,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    con = cheat_room.connect()
    seen: list[str] = []
    start = parallel.IntegrityWorker.__init__

    def forked(self: parallel.IntegrityWorker, *args: object) -> None:
        seen.append(_limit(con))  # no query of the run is in flight yet
        start(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(parallel.IntegrityWorker, "__init__", forked)
    try:
        before = _limit(con)
        assert run_integrity(con, Options(workers=1, batch_hands=700)).hands
        assert seen == [_spelled(READ_MEMORY)] != [before]
        assert _limit(con) == _spelled(before)
    finally:
        con.close()
