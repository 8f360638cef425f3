"""The writing thread of an ingest: flushes written in order while the next is read, errors
raised to the caller, the store left whole, DuckDB's thread setting restored."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

import ingest.commit
from ingest.commit import Pending, Writer, single_threaded
from ingest.load import load_items
from ingest.reader import HandReader
from ingest.summary import IngestSummary
from schemas.store import connect
from tests.ingest.conftest import example


def _file(path: Path, *ids: str) -> Path:
    path.write_text("\n\n".join(example(i) for i in ids) + "\n")
    return path


def _ids(con: duckdb.DuckDBPyConnection, table: str) -> list[str]:
    return [r[0] for r in con.execute(f"SELECT DISTINCT hand_id FROM {table} ORDER BY 1")
            .fetchall()]


def test_the_thread_setting_is_restored_after_an_ingest_and_after_a_failed_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    con = connect(tmp_path / "s.duckdb")
    con.execute("SET threads = 3")
    load_items(con, [HandReader(_file(tmp_path / "a.log", "T1", "T2"))])
    assert con.execute("SELECT current_setting('threads')").fetchall() == [(3,)]

    def failing(*args: object, **kwargs: object) -> int:
        raise RuntimeError("disk gone")

    monkeypatch.setattr(ingest.commit, "_insert", failing)
    with pytest.raises(RuntimeError, match="disk gone"):
        load_items(con, [HandReader(_file(tmp_path / "b.log", "T3"))])
    assert con.execute("SELECT current_setting('threads')").fetchall() == [(3,)]
    assert _ids(con, "raw_hands") == ["T1", "T2"]
    con.close()


def test_single_threaded_holds_duckdb_to_one_thread_inside() -> None:
    con = duckdb.connect()
    con.execute("SET threads = 2")
    with single_threaded(con):
        assert con.execute("SELECT current_setting('threads')").fetchall() == [(1,)]
    assert con.execute("SELECT current_setting('threads')").fetchall() == [(2,)]


def test_flushes_are_written_in_reading_order_in_the_writing_thread(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    con = connect(tmp_path / "s.duckdb")
    threads: set[str] = set()
    real = ingest.commit.flush

    def watched(*args: object, **kwargs: object) -> None:
        threads.add(threading.current_thread().name)
        time.sleep(0.05)  # a slow write: the reading goes on meanwhile
        real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ingest.commit, "flush", watched)
    files = [_file(tmp_path / f"{n}.log", f"{n}1", f"{n}2", f"{n}3") for n in "ABC"]
    done: list[str] = []
    summary = load_items(con, [HandReader(f) for f in files], batch_size=2,
                         on_files=lambda readers: done.extend(r.path.name for r in readers))
    assert (summary.stored, summary.hands_read) == (9, 9)
    assert done == ["A.log", "B.log", "C.log"]
    assert threading.current_thread().name not in threads
    assert all(name.startswith("ingest-writer") for name in threads)
    # Every hand once, in reading order (the insert order of the store's rows).
    assert [r[0] for r in con.execute("SELECT hand_id FROM raw_hands").fetchall()] == [
        f"{n}{i}" for n in "ABC" for i in (1, 2, 3)]
    con.close()


def test_a_reading_error_waits_for_the_write_in_flight_and_is_the_one_raised(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    con = connect(tmp_path / "s.duckdb")
    real = ingest.commit.flush
    written = threading.Event()

    def slow(*args: object, **kwargs: object) -> None:
        time.sleep(0.2)
        real(*args, **kwargs)  # type: ignore[arg-type]
        written.set()

    monkeypatch.setattr(ingest.commit, "flush", slow)

    def readers() -> Iterator[HandReader]:
        yield HandReader(_file(tmp_path / "a.log", "R1", "R2"))
        raise OSError("the inbox went away")

    with pytest.raises(OSError, match="inbox went away"):
        load_items(con, readers(), batch_size=2)
    assert written.is_set()  # load_items returned only once the write was done
    assert _ids(con, "raw_hands") == ["R1", "R2"]
    assert _ids(con, "stg_actions") == ["R1", "R2"]
    con.close()


def test_a_write_that_fails_while_the_caller_fails_is_noted_on_the_callers_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    con = connect(tmp_path / "s.duckdb")

    def failing(*args: object, **kwargs: object) -> None:
        raise RuntimeError("write failed")

    monkeypatch.setattr(ingest.commit, "flush", failing)
    writer = Writer(con, IngestSummary(), None)
    writer.submit(Pending())
    error = KeyboardInterrupt()
    writer.close(error)
    assert any("write failed" in note for note in error.__notes__)
    writer = Writer(con, IngestSummary(), None)
    writer.submit(Pending())
    with pytest.raises(RuntimeError, match="write failed"):
        writer.close()
    con.close()
