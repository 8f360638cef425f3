"""Load hand logs into the DuckDB store: dedupe, detect conflicts, quarantine, in batches.

Each batch (``batch_size`` hands, possibly spanning files) is checked against
the store and against itself, then written with one ``INSERT ... SELECT`` per
table inside a single transaction: a crash mid-load leaves the store as it was
before that batch, and reading the same input again adds nothing.

- same hand id, same SHA-256 as a kept version: a duplicate, skipped and counted;
- same hand id, other text: a conflict, quarantined with both versions (the first
  version seen stays stored);
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
import pyarrow as pa

from ingest.batches import Candidate, ReadBatch, fast_tables, read_batches
from ingest.conservation import Conservation, ConservationError
from ingest.errors import ErrorKind
from ingest.fastpath import FastBatch
from ingest.frames import StoredVersion, hand_tables, quarantine_table, raw_table
from ingest.paths import expand_paths, missing_paths
from ingest.reader import HandReader, QuarantineItem
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
#: Errors building a hand's Arrow rows (a value that fits no column).
_BUILD_ERRORS = (pa.ArrowException, OverflowError, ValueError, TypeError)


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
            stamp: bool = True) -> int:
    """Insert ``data`` into ``table``; the number of rows inserted."""
    if data.num_rows == 0:
        return 0
    cols = ", ".join(f'"{c}"' for c in data.column_names)
    extra_cols, extra_vals = (", ingested_at", ", current_timestamp") if stamp else ("", "")
    con.register("_ingest_batch", data)
    try:
        done = con.execute(f"{verb} INTO {table} ({cols}{extra_cols}) "
                           f"SELECT {cols}{extra_vals} FROM _ingest_batch").fetchall()
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


def _stored_versions(con: duckdb.DuckDBPyConnection, ids: list[str]) -> dict[str, StoredVersion]:
    """The kept version (without its text yet) of each id of ``ids`` already in the store."""
    if not ids:
        return {}
    rows = con.execute(
        "SELECT hand_id, sha256, source_file, first_line FROM raw_hands "
        "WHERE hand_id IN (SELECT unnest(?::VARCHAR[]))", [ids]
    ).fetchall()
    return {hid: StoredVersion(sha, file, line, "") for hid, sha, file, line in rows}


def _stored_text(con: duckdb.DuckDBPyConnection, hand_id: str) -> str:
    rows = con.execute("SELECT raw_text FROM raw_hands WHERE hand_id = ?", [hand_id]).fetchall()
    return str(rows[0][0]) if rows else ""


def _staging(new: Sequence[Candidate]) -> dict[str, pa.Table]:
    """The staging rows of the new hands, from the fast path's frames and from records."""
    parts: dict[str, list[pa.Table]] = {"stg_hands": [], "stg_seats": [], "stg_actions": []}
    by_batch: dict[int, tuple[FastBatch, list[Candidate]]] = {}
    for c in new:
        if c.fast is not None:
            by_batch.setdefault(id(c.fast), (c.fast, []))[1].append(c)
    tables = [fast_tables(fast, chosen) for fast, chosen in by_batch.values()]
    tables.append(hand_tables([c.parsed for c in new if c.parsed is not None]))
    for table in tables:
        for name, data in table.items():
            parts[name].append(data)
    return {name: pa.concat_tables(data) for name, data in parts.items()}


@dataclass
class _Rows:
    """The Arrow rows of a flush: the new hands' raw and staging rows, the quarantine."""

    new: list[Candidate]
    raw: pa.Table
    staging: dict[str, pa.Table]
    unstorable: list[QuarantineItem]


def _unstorable(hand: Candidate, reason: BaseException) -> QuarantineItem:
    error = (f"line {hand.first_line}: hand {hand.hand_id} was read but the store cannot hold "
             f"its values ({type(reason).__name__}: {str(reason).splitlines()[0][:300]})")
    return QuarantineItem(hand.file, hand.first_line, hand.hand_id, ErrorKind.UNSTORABLE, error,
                          hand.raw_text, hand.first_line, hand.sha256, hand.end_offset)


def _rows(new: list[Candidate]) -> _Rows:
    """Build the rows of ``new``; a hand whose values fit no column is set aside."""
    try:
        return _Rows(new, raw_table(new), _staging(new), [])
    except _BUILD_ERRORS:
        pass
    kept: list[Candidate] = []
    unstorable: list[QuarantineItem] = []
    for hand in new:  # rare: find the hands at fault one by one
        try:
            raw_table([hand])
            _staging([hand])
        except _BUILD_ERRORS as exc:
            unstorable.append(_unstorable(hand, exc))
        else:
            kept.append(hand)
    return _Rows(kept, raw_table(kept), _staging(kept), unstorable)


def _insert_hands(con: duckdb.DuckDBPyConnection, rows: _Rows) -> None:
    inserted = _insert(con, "raw_hands", rows.raw)
    for table, data in rows.staging.items():
        _insert(con, table, data, stamp=False)
    if inserted != len(rows.new):
        raise ConservationError(f"{len(rows.new):,} new hands but {inserted:,} raw_hands rows "
                                "written")


def _fits(con: duckdb.DuckDBPyConnection, hands: list[Candidate]) -> bool:
    """Whether the store takes the rows of ``hands`` (tried, then rolled back)."""
    con.begin()
    try:
        _insert_hands(con, _rows(hands))
        return True
    except _DATA_ERRORS:
        return False
    finally:
        con.rollback()


def _refused(con: duckdb.DuckDBPyConnection, hands: list[Candidate]
             ) -> list[tuple[Candidate, BaseException]]:
    """The hands of ``hands`` the store refuses, found by bisection."""
    if len(hands) == 1:
        con.begin()
        try:
            _insert_hands(con, _rows(hands))
        except _DATA_ERRORS as exc:
            return [(hands[0], exc)]
        finally:
            con.rollback()
        return []
    if _fits(con, hands):
        return []
    half = len(hands) // 2
    return _refused(con, hands[:half]) + _refused(con, hands[half:])


def _flush(con: duckdb.DuckDBPyConnection, pending: _Pending, summary: IngestSummary) -> None:
    """Classify the pending hands and write everything in one transaction."""
    candidates = [c for b in pending.batches for c in b.candidates]
    problems = [p for b in pending.batches for p in b.problems]
    kept = _stored_versions(con, list({c.hand_id for c in candidates}))
    new: list[Candidate] = []
    conflicts: list[QuarantineItem] = []
    others: list[StoredVersion | None] = []
    duplicates: list[Candidate] = []
    for hand in candidates:
        version = kept.get(hand.hand_id)
        if version is None:
            kept[hand.hand_id] = StoredVersion(hand.sha256, hand.file, hand.first_line,
                                               hand.raw_text)
            new.append(hand)
        elif version.sha256 == hand.sha256:
            duplicates.append(hand)
        else:
            if not version.raw_text:
                version = kept[hand.hand_id] = StoredVersion(
                    version.sha256, version.file, version.line, _stored_text(con, hand.hand_id))
            conflicts.append(_conflict(hand, version))
            others.append(version)
    rows = _rows(new)
    try:
        added = _write(con, pending, rows, problems, conflicts, others)
    except _DATA_ERRORS:
        # A value the readers let through and the store refuses: bisect, set it aside.
        refused = {id(hand): exc for hand, exc in _refused(con, rows.new)}
        rows = _rows([h for h in rows.new if id(h) not in refused])
        rows.unstorable += [_unstorable(h, refused[id(h)]) for h in new if id(h) in refused]
        added = _write(con, pending, rows, problems, conflicts, others)
    summary.stored += len(rows.new)
    summary.stored_ids += [h.hand_id for h in rows.new]
    summary.duplicates += len(duplicates)
    summary.conflicts += len(conflicts)
    summary.quarantined += len(rows.unstorable)
    summary.quarantine_added += added
    summary.note([*conflicts, *rows.unstorable])
    if len(candidates) != len(rows.new) + len(duplicates) + len(conflicts) + len(rows.unstorable):
        raise ConservationError(f"{len(candidates):,} hands read in a batch but "
                                f"{len(rows.new) + len(duplicates) + len(conflicts):,} classified")


def _write(con: duckdb.DuckDBPyConnection, pending: _Pending, rows: _Rows,
           problems: list[QuarantineItem], conflicts: list[QuarantineItem],
           others: list[StoredVersion | None]) -> int:
    """Write a flush in one transaction; the number of quarantine rows new to the store."""
    items = [*problems, *conflicts, *rows.unstorable]
    quarantine = quarantine_table(
        items, [*([None] * len(problems)), *others, *([None] * len(rows.unstorable))])
    with transaction(con):
        _insert_hands(con, rows)
        added = _insert(con, "quarantine", quarantine, verb="INSERT OR IGNORE")
        _check_quarantined(con, quarantine)
        for done in pending.files:
            c = done.counts
            con.execute(
                "INSERT OR REPLACE INTO raw_files (source_file, size_bytes, hands_read, "
                "quarantined, resume_offset, resume_line, ingested_at, sha256, content_bytes, "
                "file_problems) VALUES (?, ?, ?, ?, ?, ?, current_timestamp, ?, ?, ?)",
                [done.path, done.size, c.hands, c.quarantined + c.file_problems, done.resume_offset,
                 done.resume_line, done.sha256, done.content_bytes, c.file_problems],
            )
    return added


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


def _count(con: duckdb.DuckDBPyConnection, table: str) -> int:
    return int(con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0])


def _conflict(hand: Candidate, kept: StoredVersion) -> QuarantineItem:
    error = (
        f"line {hand.first_line}: hand {hand.hand_id} conflicts with the version "
        f"stored from {kept.file} line {kept.line} (same id, different text; "
        f"sha256 {hand.sha256[:12]} vs {kept.sha256[:12]})"
    )
    return QuarantineItem(hand.file, hand.first_line, hand.hand_id, ErrorKind.CONFLICT,
                          error, hand.raw_text, hand.first_line, hand.sha256, hand.end_offset)


def load_items(
    con: duckdb.DuckDBPyConnection,
    readers: Iterable[HandReader],
    *,
    summary: IngestSummary | None = None,
    progress: Callable[[Progress], None] | None = None,
    files_total: int = 0,
    batch_size: int = BATCH_SIZE,
) -> IngestSummary:
    """Read every reader to its end and load what it yields (see the module docstring).

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
            counts.hands += len(batch.candidates) + hand_items
            counts.quarantined += hand_items
            counts.file_problems += len(file_items)
            summary.hands_read += len(batch.candidates) + hand_items
            summary.quarantined += hand_items
            summary.file_problems += len(file_items)
            summary.note(batch.problems)
            pending.add(batch)
            if pending.size >= batch_size:
                _flush(con, pending, summary)
                pending = _Pending()
                _report(progress, summary, files_total, reader.file, 0)
        if counts.hands != reader.chunks:
            _flush(con, pending, summary)
            raise ConservationError(
                f"{reader.file}: the reader met {reader.chunks:,} hand(s) but "
                f"{counts.hands:,} came out of it")
        summary.files += 1
        size = reader.path.stat().st_size if reader.path.is_file() else None
        pending.files.append(_FileDone(reader.file, size, counts, reader.resume_offset,
                                       reader.resume_line, reader.content_sha256,
                                       reader.content_bytes))
        _report(progress, summary, files_total, reader.file, 0)
    _flush(con, pending, summary)
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
