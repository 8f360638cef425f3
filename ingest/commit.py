"""Write flushes of read hands to the store, several flushes to a transaction.

A *flush* is the hands of several read batches (``ingest.load.WRITE_SIZE`` hands, possibly
spanning files) and the files they finish. It is sorted against the store
(:mod:`ingest.classify`), then written with one ``INSERT ... SELECT`` per table from its
Arrow tables. Flushes are written into one transaction (:class:`Transaction`) up to
``ingest.load.BATCH_SIZE`` hands, a row group of DuckDB's: a transaction that
appends a whole row group to a table has its row groups compressed and written to the
database file once, at commit; a smaller one goes through the write-ahead log, and every
checkpoint compresses each table's last, partly filled row group again (measured on
100,000 hands: DuckDB's share 2.9 CPU s in one transaction, 3.6 in transactions of 20,000
hands). Never past a row group: seven flushes (140,000 hands) left a row group of 17,120
after each full one in the tables of a row a hand, which DuckDB's checkpoints merge with
their neighbours by writing them again (its vacuum; ``raw_text``'s zstd again): on a million
hands, ingest 106.9 -> 75.4 CPU s and the store 904 -> 737 MB once transactions stopped
short of it. A crash mid-write leaves the store as it was before that transaction.

DuckDB aborts a whole transaction when one statement fails, so only a flush whose rows
fit the store's columns (:mod:`ingest.preflight`, told before it is written) joins the
open transaction; any other is written in a transaction of its own, where a hand the
store refuses (a value a reader should have bounded and did not) is found by bisecting
the flush and quarantined as ``unstorable`` (so is a flush refused although it passed, if
it opened its transaction; after others, :class:`TransactionRefused`). Only data errors.

:class:`Writer` writes each flush in a thread of its own while the next one is read
(DuckDB runs a statement without Python's lock), and :func:`single_threaded` holds
DuckDB to that one thread while an ingest writes: with more, each thread leaves row
groups of its own half full, which the next checkpoint merges by writing them again
(measured on 100,000 hands: 5.7 CPU s for ``stg_actions`` with 2 threads, 2.9 with 1).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import duckdb
import numpy as np
import pyarrow as pa

from ingest.batches import ReadBatch
from ingest.classify import Classified, classify, hand_at
from ingest.classify import unstorable as to_quarantine
from ingest.conservation import Conservation, ConservationError
from ingest.frames import quarantine_table
from ingest.preflight import fits, store_columns
from ingest.reader import HandReader, QuarantineItem
from ingest.sizes import WRITE_SIZE
from ingest.staged import HandRows
from ingest.summary import IngestSummary
from schemas.store import transaction

__all__ = ["FileDone", "Pending", "Transaction", "TransactionRefused", "Writer", "flush",
           "single_threaded"]

#: Errors of the store about a hand's values (the flush is bisected to find the hand).
_DATA_ERRORS = (duckdb.ConversionException, duckdb.OutOfRangeException,
                duckdb.InvalidInputException, duckdb.ConstraintException,
                duckdb.TypeMismatchException)


@dataclass(frozen=True)
class FileDone:
    """A file read to its end: its ``raw_files`` row."""

    reader: HandReader
    path: str
    size: int | None
    counts: Conservation  # hands met, unreadable ones, file items
    resume_offset: int
    resume_line: int
    sha256: str | None
    content_bytes: int


class Pending:
    """Batches read but not yet written, and the files they finished."""

    def __init__(self) -> None:
        self.batches: list[ReadBatch] = []
        self.files: list[FileDone] = []
        self.size = 0
        #: Whether its rows fit the store (:mod:`ingest.preflight`), told before it is written.
        self.fits = False
        self._hands: HandRows | None = None

    def add(self, batch: ReadBatch) -> None:
        self.batches.append(batch)
        self.size += len(batch)
        self._hands = None

    def join(self) -> HandRows:
        """The readable hands of every batch, in reading order (joined once)."""
        if self._hands is None:
            self._hands = HandRows.concat([b.hands for b in self.batches])
        return self._hands


def _insert(con: duckdb.DuckDBPyConnection, table: str, data: pa.Table, verb: str = "INSERT",
            stamp: bool = True, where: str = "") -> int:
    """Insert ``data`` into ``table`` (the rows ``where`` keeps); the number inserted."""
    if data.num_rows == 0:
        return 0
    cols = ", ".join(f'"{c}"' for c in data.column_names)
    extra_cols, extra_vals = (", ingested_at", ", current_timestamp") if stamp else ("", "")
    # Read by DuckDB's scan of this frame's variables, not registered: a registered frame
    # lives until the transaction ends, which holds several flushes (~500 MB per 100k hands).
    _ingest_batch = data  # named in the statement
    done = con.execute(f"{verb} INTO {table} ({cols}{extra_cols}) "
                       f"SELECT {cols}{extra_vals} FROM _ingest_batch {where}").fetchall()
    return int(done[0][0]) if done else 0


#: The store has no index on the hand id (``schemas/ddl/10_raw.sql``): a hand id already
#: stored is left out by the insert itself, in the transaction that writes the hands, and
#: the count below then fails the flush -- never two rows for one id, whoever else wrote.
_NEW_IDS = ("WHERE NOT EXISTS (SELECT 1 FROM raw_hands r "
            "WHERE r.hand_id = _ingest_batch.hand_id)")


def _insert_hands(con: duckdb.DuckDBPyConnection, hands: HandRows) -> None:
    inserted = _insert(con, "raw_hands", hands.raw, where=_NEW_IDS)
    for table, data in hands.tables().items():
        _insert(con, table, data, stamp=False)
    if inserted != len(hands):
        raise ConservationError(f"{len(hands):,} new hands but {inserted:,} raw_hands rows "
                                "written")


def _fits(con: duckdb.DuckDBPyConnection, hands: HandRows) -> bool:
    """Whether the store takes the rows of ``hands`` (tried, then rolled back)."""
    con.begin()
    try:
        _insert_hands(con, hands)
        return True
    except _DATA_ERRORS:
        return False
    finally:
        con.rollback()


def _refused(con: duckdb.DuckDBPyConnection, hands: HandRows, rows: list[int]
             ) -> list[tuple[int, BaseException]]:
    """The rows of ``hands`` among ``rows`` the store refuses, found by bisection."""
    if len(rows) == 1:
        con.begin()
        try:
            _insert_hands(con, hands.take(np.array(rows)))
        except _DATA_ERRORS as exc:
            return [(rows[0], exc)]
        finally:
            con.rollback()
        return []
    if _fits(con, hands.take(np.array(rows))):
        return []
    half = len(rows) // 2
    return _refused(con, hands, rows[:half]) + _refused(con, hands, rows[half:])


class TransactionRefused(RuntimeError):
    """The store refused a flush the pre-flight let into a transaction holding others."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(f"the store refused a value the ingest's checks let through "
                         f"({error}); the open transaction was rolled back, none of its "
                         "hands is stored. Run again with a transaction per flush (openers "
                         f"nightly --batch-size {WRITE_SIZE}) to have the hand quarantined")


def flush(con: duckdb.DuckDBPyConnection, pending: Pending, summary: IngestSummary,
          on_files: Callable[[list[HandReader]], None] | None = None,
          open_tx: Transaction | None = None) -> None:
    """Classify the pending hands and write everything: into ``open_tx`` when the flush
    fits the store (:mod:`ingest.preflight`), else in a transaction of its own (after
    committing ``open_tx``) where a hand the store refuses is bisected out (so is a flush
    refused although it fits, if it opened ``open_tx``); ``on_files`` is told of the files
    each transaction completed once it is committed."""
    if open_tx is not None and pending.fits:
        held = open_tx.is_open  # flushes before this one, which a refusal undoes
        try:
            open_tx.write(pending, summary)
            return
        except _DATA_ERRORS as error:  # rolled back; if only this flush: bisected below
            if held:
                raise TransactionRefused(error) from error
    if open_tx is not None:
        open_tx.commit()
    hands, problems, sorted_, rows = _sorted(con, pending)
    unstorable: list[QuarantineItem] = []
    try:
        with transaction(con):
            added = _write(con, pending, rows, problems, sorted_, unstorable)
    except _DATA_ERRORS:
        # A value the readers let through and the store refuses: bisect, set it aside.
        refused = dict(_refused(con, rows, list(range(len(rows)))))
        unstorable = [to_quarantine(hand_at(rows, r), exc) for r, exc in sorted(refused.items())]
        rows = rows.take(np.array([r for r in range(len(rows)) if r not in refused],
                                  dtype=np.int64))
        with transaction(con):
            added = _write(con, pending, rows, problems, sorted_, unstorable)
    _account(summary, hands, rows, sorted_, unstorable, added)
    if on_files is not None and pending.files:
        on_files([done.reader for done in pending.files])


def _sorted(con: duckdb.DuckDBPyConnection, pending: Pending
            ) -> tuple[HandRows, list[QuarantineItem], Classified, HandRows]:
    """A flush's hands, its reading problems, their sorting against the store, new rows."""
    hands = pending.join()
    sorted_ = classify(con, hands, [len(b.hands) for b in pending.batches])
    return (hands, [p for b in pending.batches for p in b.problems], sorted_,
            hands.take(np.array(sorted_.new, dtype=np.int64)))


def _account(summary: IngestSummary, hands: HandRows, rows: HandRows, sorted_: Classified,
             unstorable: list[QuarantineItem], added: int) -> None:
    """Count a written flush; every hand of it is stored, a duplicate, a conflict or
    unstorable."""
    duplicates, conflicts = sorted_.duplicates, sorted_.conflicts
    with summary.lock:
        summary.stored += len(rows)
        if summary.keep_ids:
            summary.stored_ids += rows.raw.column("hand_id").to_pylist()
        summary.duplicates += len(duplicates)
        summary.conflicts += len(conflicts)
        summary.quarantined += len(unstorable)
        summary.quarantine_added += added
        summary.note([*conflicts, *unstorable])
    if len(hands) != len(rows) + len(duplicates) + len(conflicts) + len(unstorable):
        raise ConservationError(f"{len(hands):,} hands read in a batch but "
                                f"{len(rows) + len(duplicates) + len(conflicts):,} classified")


def _write(con: duckdb.DuckDBPyConnection, pending: Pending, rows: HandRows,
           problems: list[QuarantineItem], sorted_: Classified,
           unstorable: list[QuarantineItem]) -> int:
    """Write a flush inside the caller's transaction; the number of quarantine rows new to
    the store."""
    items = [*problems, *sorted_.conflicts, *unstorable]
    quarantine = quarantine_table(
        items, [*([None] * len(problems)), *sorted_.others, *([None] * len(unstorable))])
    _insert_hands(con, rows)
    added = _insert(con, "quarantine", quarantine, verb="INSERT OR IGNORE")
    _check_quarantined(con, quarantine)
    _insert(con, "raw_files", _files_table(pending.files), verb="INSERT OR REPLACE")
    return added


class Transaction:
    """The writing thread's open transaction: flushes that fit the store are written into
    it until it holds ``size`` hands, or commits first when the next flush would take it past
    them (see the module docstring for why transactions of a row group's hands). ``on_files``
    is told of the files it completed once it is committed. Any error inside rolls it back
    whole and is raised."""

    def __init__(self, con: duckdb.DuckDBPyConnection, size: int,
                 on_files: Callable[[list[HandReader]], None] | None) -> None:
        self._con, self._size, self._on_files = con, size, on_files
        self._hands = 0
        self._files: list[FileDone] = []
        self.is_open = False

    def write(self, pending: Pending, summary: IngestSummary) -> None:
        """Write ``pending`` (which fits the store) into the transaction, after committing
        the transaction first if ``pending`` would take it past ``size`` hands."""
        if self.is_open and self._hands + pending.size > self._size:
            self.commit()  # never past a row group (the module docstring says why)
        if not self.is_open:
            self._con.begin()
            self.is_open = True
        try:
            # Sorted inside the transaction: it sees the hands written into it before.
            hands, problems, sorted_, rows = _sorted(self._con, pending)
            added = _write(self._con, pending, rows, problems, sorted_, [])
            _account(summary, hands, rows, sorted_, [], added)
        except BaseException:
            self.rollback()
            raise
        self._hands += pending.size
        self._files += pending.files
        if self._hands >= self._size:
            self.commit()

    def commit(self) -> None:
        """Commit what the transaction holds (if anything), then tell of its files."""
        if not self.is_open:
            return
        try:
            self._con.commit()
        except BaseException:
            self.rollback()
            raise
        self.is_open, self._hands = False, 0
        files, self._files = self._files, []
        if self._on_files is not None and files:
            self._on_files([done.reader for done in files])

    def rollback(self) -> None:
        """Give up what the transaction holds."""
        if self.is_open:
            self.is_open, self._hands, self._files = False, 0, []
            with contextlib.suppress(duckdb.Error):
                self._con.rollback()


def _files_table(files: list[FileDone]) -> pa.Table:
    """The raw_files rows of the files a flush finishes (one statement for all)."""
    return pa.table({
        "source_file": pa.array([f.path for f in files], pa.string()),
        "size_bytes": pa.array([f.size for f in files], pa.int64()),
        "hands_read": pa.array([f.counts.hands for f in files], pa.int32()),
        "quarantined": pa.array([f.counts.quarantined + f.counts.file_problems
                                 for f in files], pa.int32()),
        "resume_offset": pa.array([f.resume_offset for f in files], pa.int64()),
        "resume_line": pa.array([f.resume_line for f in files], pa.int32()),
        "sha256": pa.array([f.sha256 for f in files], pa.string()),
        "content_bytes": pa.array([f.content_bytes for f in files], pa.int64()),
        "file_problems": pa.array([f.counts.file_problems for f in files], pa.int32()),
    })


def _check_quarantined(con: duckdb.DuckDBPyConnection, rows: pa.Table) -> None:
    """Every quarantine row of the flush is in the store (new, or there from before)."""
    if rows.num_rows == 0:
        return
    _ingest_keys = rows.select(["file", "line", "kind", "sha256"])  # scanned as _insert's
    found = con.execute(
        "SELECT count(*) FROM (SELECT DISTINCT * FROM _ingest_keys) k "
        "JOIN quarantine q USING (file, line, kind, sha256)").fetchall()[0][0]
    wanted = con.execute(
        "SELECT count(*) FROM (SELECT DISTINCT * FROM _ingest_keys)").fetchall()[0][0]
    if found != wanted:
        raise ConservationError(f"{wanted:,} quarantine rows written but {found:,} in the store")


class Writer:
    """Writes flushes one at a time, each in the writing thread while the caller reads on,
    into transactions of ``size`` hands (:class:`Transaction`).

    :meth:`submit` waits for the flush before it (so at most one is written while one is
    read, and flushes commit in the order given), then hands this one over; an error of
    a flush is raised by the next :meth:`submit`, :meth:`wait` or :meth:`commit`. The
    caller must not use the connection until :meth:`wait` has returned.
    """

    def __init__(self, con: duckdb.DuckDBPyConnection, summary: IngestSummary,
                 on_files: Callable[[list[HandReader]], None] | None,
                 size: int = 1) -> None:
        self._con, self._summary, self._on_files = con, summary, on_files
        self._columns = store_columns(con)
        self._tx = Transaction(con, size, on_files)
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ingest-writer")
        self._running: Future[None] | None = None

    def submit(self, pending: Pending) -> None:
        """Write ``pending`` once the flush before it is written."""
        # Here, in the reading thread, while the write before runs.
        pending.fits = fits(pending.join(), self._columns)
        self.wait()
        self._running = self._pool.submit(flush, self._con, pending, self._summary,
                                          self._on_files, self._tx)

    def wait(self) -> None:
        """Wait for the flush being written; raise its error, if it failed."""
        running, self._running = self._running, None
        if running is not None:
            running.result()

    def commit(self) -> None:
        """Wait for the flush being written, then commit the open transaction."""
        self.wait()
        self._tx.commit()

    def close(self, error: BaseException | None = None) -> None:
        """Commit what is written and stop the thread. With ``error`` (the caller's, being
        raised), a failure of that is noted on it, not raised."""
        try:
            self.commit()
        except BaseException as failed:
            if error is None:
                raise
            error.add_note(f"the ingest's last write failed too: {failed!r}")
        finally:
            self._tx.rollback()  # nothing left open, whatever failed
            self._pool.shutdown(wait=True)


@contextlib.contextmanager
def single_threaded(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """Hold DuckDB to one thread for the block (see the module docstring), then restore
    the connection's setting."""
    threads = int(con.execute("SELECT current_setting('threads')").fetchall()[0][0])
    con.execute("SET threads = 1")
    try:
        yield
    finally:
        con.execute(f"SET threads = {threads}")
