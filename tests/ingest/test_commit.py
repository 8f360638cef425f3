"""The writing thread of an ingest: flushes written in order while the next is read, errors
raised to the caller, the store left whole, DuckDB's thread setting restored."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
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


def _on_commit(monkeypatch: pytest.MonkeyPatch,
               seen: Callable[[ingest.commit.Transaction], object]) -> None:
    """Show ``seen`` each open transaction just before it commits."""
    real = ingest.commit.Transaction.commit

    def watched(self: ingest.commit.Transaction) -> None:
        if self.is_open:
            seen(self)
        real(self)

    monkeypatch.setattr(ingest.commit.Transaction, "commit", watched)


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


def test_a_transaction_holds_several_flushes_and_a_failure_undoes_them_all(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Transactions of 4 hands written as flushes of 2: a crash in a transaction's second
    flush leaves the store as before the transaction, the transactions before it whole;
    a file is told done only once its hands are committed."""
    import ingest.load

    monkeypatch.setattr(ingest.load, "WRITE_SIZE", 2)
    monkeypatch.setattr(ingest.load, "READ_SIZE", 2)
    real = ingest.commit._insert
    calls = {"stg_actions": 0}
    fail_at = {"n": 4}

    def failing(con, table, data, **kw):
        if table == "stg_actions":
            calls["stg_actions"] += 1
            if calls["stg_actions"] == fail_at["n"]:
                raise RuntimeError("power cut")
        return real(con, table, data, **kw)

    monkeypatch.setattr(ingest.commit, "_insert", failing)
    files = [_file(tmp_path / f"{name}.log", f"K{2 * n + 1}", f"K{2 * n + 2}")
             for n, name in enumerate("abcd")]
    con = connect(tmp_path / "s.duckdb")
    committed: list[tuple[str, int]] = []

    def told(readers: list[HandReader]) -> None:  # another connection sees committed rows
        other = con.cursor()
        for reader in readers:
            count = other.execute("SELECT count(*) FROM raw_hands WHERE source_file = ?",
                                  [reader.file]).fetchall()[0][0]
            committed.append((reader.path.name, count))
        other.close()

    with pytest.raises(RuntimeError, match="power cut"):
        load_items(con, [HandReader(f) for f in files], batch_size=4, on_files=told)
    # Flushes K1 K2 | K3 K4 (transaction 1), K5 K6 | K7 K8 (transaction 2, cut in its second).
    assert _ids(con, "raw_hands") == ["K1", "K2", "K3", "K4"]
    assert _ids(con, "stg_actions") == ["K1", "K2", "K3", "K4"]
    # A file's raw_files row goes with the flush after its last hands: b.log's was undone.
    assert committed == [("a.log", 2)]
    assert con.execute("SELECT count(*) FROM raw_files").fetchall() == [(1,)]
    monkeypatch.setattr(ingest.commit, "_insert", real)
    committed.clear()
    again = load_items(con, [HandReader(f) for f in files], batch_size=4, on_files=told)
    assert (again.stored, again.duplicates) == (4, 4)
    assert committed == [("a.log", 2), ("b.log", 2), ("c.log", 2), ("d.log", 2)]
    assert con.execute("SELECT count(*) FROM raw_files").fetchall() == [(4,)]
    con.close()


def test_a_flush_that_does_not_fit_the_store_is_written_on_its_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The open transaction is committed first, then the flush is written in its own
    transaction (where a refused hand can be bisected out)."""
    import ingest.load

    monkeypatch.setattr(ingest.load, "WRITE_SIZE", 2)
    monkeypatch.setattr(ingest.load, "READ_SIZE", 2)
    real_fits = ingest.commit.fits
    monkeypatch.setattr(ingest.commit, "fits", lambda hands, columns: (
        "K3" not in hands.raw.column("hand_id").to_pylist() and real_fits(hands, columns)))
    commits: list[list[str]] = []
    con = connect(tmp_path / "s.duckdb")
    _on_commit(monkeypatch, lambda _: commits.append(_ids(con, "raw_hands")))
    path = _file(tmp_path / "a.log", "K1", "K2", "K3", "K4", "K5", "K6")
    summary = load_items(con, [HandReader(path)], batch_size=10)
    assert summary.stored == 6 and _ids(con, "raw_hands") == [f"K{n}" for n in range(1, 7)]
    assert commits == [["K1", "K2"], ["K1", "K2", "K3", "K4", "K5", "K6"]]
    con.close()


def _transactions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: int) -> list[int]:
    """The hands each committed transaction held, ingesting four files of three hands in
    flushes of a file each (flushes of 2 hands or more) into transactions of ``size``."""
    monkeypatch.setattr(ingest.load, "WRITE_SIZE", 2)
    committed: list[int] = []
    _on_commit(monkeypatch, lambda transaction: committed.append(transaction._hands))
    con = connect(tmp_path / "s.duckdb")
    files = [_file(tmp_path / f"{n}.log", f"{n}1", f"{n}2", f"{n}3") for n in "ABCD"]
    assert load_items(con, [HandReader(f) for f in files], batch_size=size).stored == 12
    assert _ids(con, "stg_hands") == sorted(f"{n}{i}" for n in "ABCD" for i in (1, 2, 3))
    con.close()
    # (The files' last records may follow in a transaction of no hands.)
    return [hands for hands in committed if hands]


def test_a_transaction_commits_before_a_flush_would_take_it_past_its_size(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A transaction is a row group's hands at most: one past it leaves a small row group
    after a full one in each table of a row a hand, which DuckDB's checkpoints then merge by
    writing both again (the ingest's size is a row group, 122,880 hands; here 5, so a
    second 3-hand flush would make a transaction of 6)."""
    assert _transactions(tmp_path, monkeypatch, 5) == [3, 3, 3, 3]  # e4d3cb7: [6, 6]


def test_flushes_fill_a_transaction_up_to_its_size(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The near miss: flushes that add up to the size exactly share one transaction."""
    assert _transactions(tmp_path, monkeypatch, 6) == [6, 6]
