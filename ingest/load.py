"""Load hand logs into the DuckDB store: dedupe, detect conflicts, quarantine, in batches.

Each batch (``batch_size`` hands, possibly spanning files) is checked against
the store and against itself, then written with one ``INSERT ... SELECT`` per
table inside a single transaction: a crash mid-load leaves the store as it was
before that batch, and reading the same input again adds nothing.

- same hand id, same SHA-256 as a kept version: a duplicate, skipped and counted;
- same hand id, other text: a conflict, quarantined with both versions (the first
  version seen stays stored);
- unreadable hands and files: quarantined with their precise error.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import pyarrow as pa

from ingest.batches import Candidate, ReadBatch, fast_tables, read_batches
from ingest.errors import ErrorKind
from ingest.fastpath import FastBatch
from ingest.frames import StoredVersion, hand_tables, quarantine_table, raw_table
from ingest.paths import expand_paths
from ingest.reader import HandReader, QuarantineItem
from schemas.store import apply_ddl, connect, transaction

__all__ = ["BATCH_SIZE", "READ_SIZE", "IngestSummary", "Progress", "ingest_paths", "load_items"]

#: Hands per transaction. Large enough that DuckDB writes the bigger tables' row groups
#: straight to the database file at commit (its "optimistic writes"; a smaller
#: transaction goes through the write-ahead log and is written again at checkpoint),
#: which made the commit of 5,000-hand batches cost more than their parsing.
BATCH_SIZE = 20_000
#: Hands per fast-path parse: the polars kernels run fastest on frames of about this
#: many hands (cache-sized); a transaction holds several of them.
READ_SIZE = 5000


@dataclass
class IngestSummary:
    """What one ingest did. ``quarantined`` counts unreadable hands and files seen
    (conflicts are counted in ``conflicts`` only); ``quarantine_added`` the quarantine
    rows that were new to the store."""

    files: int = 0
    hands_read: int = 0
    stored: int = 0
    duplicates: int = 0
    conflicts: int = 0
    quarantined: int = 0
    quarantine_added: int = 0
    stored_ids: list[str] = field(default_factory=list)
    problems: list[QuarantineItem] = field(default_factory=list)


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
    hands_read: int
    quarantined: int
    resume_offset: int
    resume_line: int


def _insert(con: duckdb.DuckDBPyConnection, table: str, data: pa.Table, verb: str = "INSERT",
            stamp: bool = True) -> None:
    if data.num_rows == 0:
        return
    cols = ", ".join(f'"{c}"' for c in data.column_names)
    extra_cols, extra_vals = (", ingested_at", ", current_timestamp") if stamp else ("", "")
    con.register("_ingest_batch", data)
    try:
        con.execute(f"{verb} INTO {table} ({cols}{extra_cols}) "
                    f"SELECT {cols}{extra_vals} FROM _ingest_batch")
    finally:
        con.unregister("_ingest_batch")


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


def _staging(new: list[Candidate]) -> dict[str, pa.Table]:
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


def _flush(con: duckdb.DuckDBPyConnection, pending: _Pending, summary: IngestSummary) -> None:
    """Classify the pending hands and write everything in one transaction."""
    candidates = [c for b in pending.batches for c in b.candidates]
    problems = [p for b in pending.batches for p in b.problems]
    kept = _stored_versions(con, list({c.hand_id for c in candidates}))
    new: list[Candidate] = []
    conflicts: list[QuarantineItem] = []
    others: list[StoredVersion | None] = []
    duplicates = 0
    for hand in candidates:
        version = kept.get(hand.hand_id)
        if version is None:
            kept[hand.hand_id] = StoredVersion(hand.sha256, hand.file, hand.first_line,
                                               hand.raw_text)
            new.append(hand)
        elif version.sha256 == hand.sha256:
            duplicates += 1
        else:
            if not version.raw_text:
                version = kept[hand.hand_id] = StoredVersion(
                    version.sha256, version.file, version.line, _stored_text(con, hand.hand_id))
            conflicts.append(_conflict(hand, version))
            others.append(version)
    quarantine = quarantine_table([*problems, *conflicts], [*([None] * len(problems)), *others])
    staging = _staging(new)
    with transaction(con):
        before = _count(con, "quarantine")
        _insert(con, "raw_hands", raw_table(new))
        for table, data in staging.items():
            _insert(con, table, data, stamp=False)
        _insert(con, "quarantine", quarantine, verb="INSERT OR IGNORE")
        added = _count(con, "quarantine") - before
        for done in pending.files:
            con.execute(
                "INSERT OR REPLACE INTO raw_files VALUES (?, ?, ?, ?, ?, ?, current_timestamp)",
                [done.path, done.size, done.hands_read, done.quarantined, done.resume_offset,
                 done.resume_line],
            )
    summary.stored += len(new)
    summary.stored_ids += [h.hand_id for h in new]
    summary.duplicates += duplicates
    summary.conflicts += len(conflicts)
    summary.quarantine_added += added
    summary.problems += conflicts


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
    """Read every reader to its end and load what it yields (see the module docstring)."""
    summary = summary if summary is not None else IngestSummary()
    pending = _Pending()
    for reader in readers:
        read = quarantined = 0
        for batch in read_batches(reader, min(batch_size, READ_SIZE)):
            file_problems = [p for p in batch.problems if p.kind in _FILE_KINDS]
            read += len(batch) - len(file_problems)
            quarantined += len(batch.problems)
            summary.problems += batch.problems
            pending.add(batch)
            if pending.size >= batch_size:
                _flush(con, pending, summary)
                pending = _Pending()
                _report(progress, summary, files_total, reader.file, read)
        summary.files += 1
        summary.hands_read += read
        summary.quarantined += quarantined
        size = reader.path.stat().st_size if reader.path.is_file() else None
        pending.files.append(_FileDone(reader.file, size, read, quarantined,
                                       reader.resume_offset, reader.resume_line))
        _report(progress, summary, files_total, reader.file, 0)
    _flush(con, pending, summary)
    return summary


_FILE_KINDS = (ErrorKind.EMPTY_FILE, ErrorKind.UNREADABLE_FILE)


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

    A connection given must not be inside a transaction: each batch opens its own.
    """
    files = expand_paths(paths)
    if isinstance(db, duckdb.DuckDBPyConnection):
        con = db
        if not _has_table(con, "raw_hands"):
            apply_ddl(con)
    else:
        con = connect(db)
    try:
        return load_items(con, (HandReader(f) for f in files), progress=progress,
                          files_total=len(files), batch_size=batch_size)
    finally:
        if con is not db:
            con.close()
