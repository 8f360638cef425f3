"""Load hand logs into the DuckDB store: dedupe, detect conflicts, quarantine, in batches.

Each batch (``batch_size`` hands, possibly spanning files) is checked against
the store and against itself, then written with one ``INSERT ... SELECT`` per
table inside a single transaction: a crash mid-load leaves the store as it was
before that batch, and reading the same input again adds nothing.

- same hand id, same SHA-256 as a kept version: a duplicate, skipped and counted;
- same hand id, other text: a conflict, quarantined with both versions (the first
  version seen stays stored) -- the sorting is :mod:`ingest.classify`'s;
- unreadable hands and files: quarantined with their precise error;
- a hand the store refuses (a value a reader should have bounded and did not): found
  by bisecting the batch, quarantined as ``unstorable``; the rest of the batch is
  written. Only errors about the data are contained so; a full disk or a lost store
  still stops the ingest.

Files are named by their canonical path (``Path.resolve``), whatever string named
them, and their content hash is kept in ``raw_files``. Every hand met is accounted
for (:mod:`ingest.conservation`): a mismatch raises instead of finishing.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa

from ingest.batches import ReadBatch, read_batches
from ingest.classify import classify, hand_at
from ingest.classify import unstorable as to_quarantine
from ingest.conservation import Conservation, ConservationError
from ingest.frames import StoredVersion, quarantine_table
from ingest.paths import expand_paths, missing_paths
from ingest.reader import HandReader, QuarantineItem
from ingest.staged import HandRows
from schemas.store import apply_ddl, connect, transaction

__all__ = ["BATCH_SIZE", "PROBLEMS_KEPT", "READ_SIZE", "IngestSummary", "MissingPathError",
           "Progress", "canonical_name", "ingest_paths", "load_items"]

#: Hands per transaction. Large enough that DuckDB writes the bigger tables' row groups
#: straight to the database file at commit (its "optimistic writes"; a smaller
#: transaction goes through the write-ahead log and is written again at checkpoint),
#: which made the commit of 5,000-hand batches cost more than their parsing.
BATCH_SIZE = 20_000
#: Hands per fast-path parse: the polars kernels run fastest on frames of about this
#: many hands (cache-sized); a transaction holds several of them.
READ_SIZE = 5000
#: Problems kept in the summary to show (all of them are in the quarantine table).
PROBLEMS_KEPT = 10_000
#: Errors of the store about a hand's values (the batch is bisected to find the hand).
_DATA_ERRORS = (duckdb.ConversionException, duckdb.OutOfRangeException,
                duckdb.InvalidInputException, duckdb.ConstraintException,
                duckdb.TypeMismatchException)


class MissingPathError(ValueError):
    """Paths given to ingest that name nothing: a usage error, and nothing is stored."""

    def __init__(self, paths: Sequence[str]) -> None:
        self.paths = list(paths)
        super().__init__("no such file, folder or matching glob: " + ", ".join(self.paths))


def canonical_name(path: str | Path) -> str:
    """The name a file is stored under: its absolute path, links resolved."""
    return str(Path(path).resolve())


@dataclass
class IngestSummary:
    """What one ingest did.

    ``hands_read`` counts every hand met (text chunk or JSON line); each one is
    ``stored``, a ``duplicate``, a ``conflict`` or ``quarantined`` (unreadable or
    unstorable), which :attr:`conservation` checks. ``file_problems`` counts items
    about whole files; ``quarantine_added`` the quarantine rows new to the store.
    ``problems`` keeps the first PROBLEMS_KEPT problems, ``problems_total`` counts all.
    ``stored_ids`` lists the ids of the hands stored, unless ``keep_ids`` is false (a
    caller that does not need them, the nightly job, spares the memory).
    """

    files: int = 0
    hands_read: int = 0
    stored: int = 0
    duplicates: int = 0
    conflicts: int = 0
    quarantined: int = 0
    file_problems: int = 0
    quarantine_added: int = 0
    stored_ids: list[str] = field(default_factory=list)
    keep_ids: bool = True
    problems: list[QuarantineItem] = field(default_factory=list)
    problems_total: int = 0

    @property
    def conservation(self) -> Conservation:
        """The counts as a balance (conflicts are quarantined hands)."""
        return Conservation(self.hands_read, self.stored, self.duplicates,
                            self.quarantined + self.conflicts, self.file_problems)

    def note(self, problems: Sequence[QuarantineItem]) -> None:
        """Count ``problems`` and keep them while there is room."""
        self.problems_total += len(problems)
        room = PROBLEMS_KEPT - len(self.problems)
        if room > 0:
            self.problems += problems[:room]


@dataclass(frozen=True)
class Progress:
    """Reported after every batch and every file."""

    files_done: int
    files_total: int
    hands_read: int
    current_file: str


@dataclass(frozen=True)
class _FileDone:
    reader: HandReader
    path: str
    size: int | None
    counts: Conservation  # hands met, unreadable ones, file items
    resume_offset: int
    resume_line: int
    sha256: str | None
    content_bytes: int


def _unregister(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """Drop a registered frame; in an aborted transaction that fails, and the error that
    aborted it is the one to report (registering the name again replaces it)."""
    with contextlib.suppress(duckdb.TransactionException):
        con.unregister(name)


def _insert(con: duckdb.DuckDBPyConnection, table: str, data: pa.Table, verb: str = "INSERT",
            stamp: bool = True, where: str = "") -> int:
    """Insert ``data`` into ``table`` (the rows ``where`` keeps); the number inserted."""
    if data.num_rows == 0:
        return 0
    cols = ", ".join(f'"{c}"' for c in data.column_names)
    extra_cols, extra_vals = (", ingested_at", ", current_timestamp") if stamp else ("", "")
    con.register("_ingest_batch", data)
    try:
        done = con.execute(f"{verb} INTO {table} ({cols}{extra_cols}) "
                           f"SELECT {cols}{extra_vals} FROM _ingest_batch {where}").fetchall()
    finally:
        _unregister(con, "_ingest_batch")
    return int(done[0][0]) if done else 0


class _Pending:
    """Batches read but not yet written, and the files they finished."""

    def __init__(self) -> None:
        self.batches: list[ReadBatch] = []
        self.files: list[_FileDone] = []
        self.size = 0

    def add(self, batch: ReadBatch) -> None:
        self.batches.append(batch)
        self.size += len(batch)


#: The store has no index on the hand id (``schemas/ddl/10_raw.sql``): a hand id already
#: stored is left out by the insert itself, in the transaction that writes the hands, and
#: the count below then fails the batch -- never two rows for one id, whoever else wrote.
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


def _flush(con: duckdb.DuckDBPyConnection, pending: _Pending, summary: IngestSummary,
           on_files: Callable[[list[HandReader]], None] | None = None) -> None:
    """Classify the pending hands and write everything in one transaction; then tell
    ``on_files`` of the files this completed."""
    hands = HandRows.concat([b.hands for b in pending.batches])
    problems = [p for b in pending.batches for p in b.problems]
    sorted_ = classify(con, hands, [len(b.hands) for b in pending.batches])
    duplicates, conflicts, others = sorted_.duplicates, sorted_.conflicts, sorted_.others
    rows = hands.take(np.array(sorted_.new, dtype=np.int64))
    unstorable: list[QuarantineItem] = []
    try:
        added = _write(con, pending, rows, problems, conflicts, others, unstorable)
    except _DATA_ERRORS:
        # A value the readers let through and the store refuses: bisect, set it aside.
        refused = dict(_refused(con, rows, list(range(len(rows)))))
        unstorable = [to_quarantine(hand_at(rows, r), exc) for r, exc in sorted(refused.items())]
        rows = rows.take(np.array([r for r in range(len(rows)) if r not in refused],
                                  dtype=np.int64))
        added = _write(con, pending, rows, problems, conflicts, others, unstorable)
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
    if on_files is not None and pending.files:
        on_files([done.reader for done in pending.files])


def _write(con: duckdb.DuckDBPyConnection, pending: _Pending, rows: HandRows,
           problems: list[QuarantineItem], conflicts: list[QuarantineItem],
           others: list[StoredVersion | None], unstorable: list[QuarantineItem]) -> int:
    """Write a flush in one transaction; the number of quarantine rows new to the store."""
    items = [*problems, *conflicts, *unstorable]
    quarantine = quarantine_table(
        items, [*([None] * len(problems)), *others, *([None] * len(unstorable))])
    with transaction(con):
        _insert_hands(con, rows)
        added = _insert(con, "quarantine", quarantine, verb="INSERT OR IGNORE")
        _check_quarantined(con, quarantine)
        _insert(con, "raw_files", _files_table(pending.files), verb="INSERT OR REPLACE")
    return added


def _files_table(files: list[_FileDone]) -> pa.Table:
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
    keys = rows.select(["file", "line", "kind", "sha256"])
    con.register("_ingest_keys", keys)
    try:
        found = con.execute(
            "SELECT count(*) FROM (SELECT DISTINCT * FROM _ingest_keys) k "
            "JOIN quarantine q USING (file, line, kind, sha256)").fetchall()[0][0]
        wanted = con.execute(
            "SELECT count(*) FROM (SELECT DISTINCT * FROM _ingest_keys)").fetchall()[0][0]
    finally:
        _unregister(con, "_ingest_keys")
    if found != wanted:
        raise ConservationError(f"{wanted:,} quarantine rows written but {found:,} in the store")


def _has_table(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    rows = con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = ?", [name]
    ).fetchall()
    return bool(rows[0][0])


def load_items(
    con: duckdb.DuckDBPyConnection,
    readers: Iterable[HandReader],
    *,
    summary: IngestSummary | None = None,
    progress: Callable[[Progress], None] | None = None,
    files_total: int = 0,
    batch_size: int = BATCH_SIZE,
    on_files: Callable[[list[HandReader]], None] | None = None,
) -> IngestSummary:
    """Read every reader to its end and load what it yields (see the module docstring).

    Batches span files (a transaction holds ``batch_size`` hands whatever the files);
    ``on_files(readers)`` is told of the files each transaction completed, once it is
    committed.
    Raises :class:`~ingest.conservation.ConservationError` if a hand met is not
    accounted for (after the batches before it are written).
    """
    summary = summary if summary is not None else IngestSummary()
    pending = _Pending()
    for reader in readers:
        counts = Conservation()  # what this file's read gave (unreadable ones only)
        for batch in read_batches(reader, min(batch_size, READ_SIZE)):
            file_items = [p for p in batch.problems if p.is_file_item]
            hand_items = len(batch.problems) - len(file_items)
            counts.hands += len(batch.hands) + hand_items
            counts.quarantined += hand_items
            counts.file_problems += len(file_items)
            summary.hands_read += len(batch.hands) + hand_items
            summary.quarantined += hand_items
            summary.file_problems += len(file_items)
            summary.note(batch.problems)
            pending.add(batch)
            if pending.size >= batch_size:
                _flush(con, pending, summary, on_files)
                pending = _Pending()
                _report(progress, summary, files_total, reader.file, 0)
        if counts.hands != reader.chunks:
            _flush(con, pending, summary, on_files)
            raise ConservationError(
                f"{reader.file}: the reader met {reader.chunks:,} hand(s) but "
                f"{counts.hands:,} came out of it")
        summary.files += 1
        size = reader.path.stat().st_size if reader.path.is_file() else None
        pending.files.append(_FileDone(reader, reader.file, size, counts, reader.resume_offset,
                                       reader.resume_line, reader.content_sha256,
                                       reader.content_bytes))
        _report(progress, summary, files_total, reader.file, 0)
    _flush(con, pending, summary, on_files)
    summary.conservation.check("after the ingest")
    return summary


def _report(progress: Callable[[Progress], None] | None, summary: IngestSummary, total: int,
            file: str, extra: int) -> None:
    if progress is not None:
        progress(Progress(summary.files, total, summary.hands_read + extra, file))


def ingest_paths(
    paths: Iterable[str | Path],
    db: str | Path | duckdb.DuckDBPyConnection,
    *,
    progress: Callable[[Progress], None] | None = None,
    batch_size: int = BATCH_SIZE,
) -> IngestSummary:
    """Ingest files, folders and globs into the store ``db`` (a path or an open connection).

    Raises :class:`MissingPathError` before touching the store when a path names
    nothing. A connection given must not be inside a transaction: each batch opens its own.
    """
    paths = list(paths)
    missing = missing_paths(paths)
    if missing:
        raise MissingPathError(missing)
    files = expand_paths(paths)
    if isinstance(db, duckdb.DuckDBPyConnection):
        con = db
        if not _has_table(con, "raw_hands"):
            apply_ddl(con)
    else:
        con = connect(db)
    try:
        readers = (HandReader(f, name=canonical_name(f)) for f in files)
        return load_items(con, readers, progress=progress, files_total=len(files),
                          batch_size=batch_size)
    finally:
        if con is not db:
            con.close()
