"""Load hand logs into the DuckDB store: dedupe, detect conflicts, quarantine, in batches.

Each batch (``batch_size`` hands, possibly spanning files) is one transaction. It is
written in parts (flushes of ``WRITE_SIZE`` hands), each checked against the store and
against itself, then written with one ``INSERT ... SELECT`` per table (:mod:`ingest.commit`):
a crash mid-load leaves the store as it was before that batch, and reading the same input
again adds nothing. A flush is written in a thread of its own while the next one is read;
batches are committed in reading order, and :func:`load_items` returns (or raises) only
once the last write has ended.

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

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from ingest.conservation import Conservation, ConservationError
from ingest.paths import expand_paths, missing_paths
from ingest.reader import HandReader
from ingest.sizes import BATCH_SIZE, READ_SIZE, WRITE_SIZE
from ingest.summary import PROBLEMS_KEPT, IngestSummary, Progress
from schemas.store import apply_ddl, connect

if TYPE_CHECKING:
    from ingest.commit import Writer

__all__ = ["BATCH_SIZE", "PROBLEMS_KEPT", "READ_SIZE", "WRITE_SIZE", "IngestSummary",
           "MissingPathError", "Progress", "canonical_name", "ingest_paths", "load_items"]


class MissingPathError(ValueError):
    """Paths given to ingest that name nothing: a usage error, and nothing is stored."""

    def __init__(self, paths: Sequence[str]) -> None:
        self.paths = list(paths)
        super().__init__("no such file, folder or matching glob: " + ", ".join(self.paths))


def canonical_name(path: str | Path) -> str:
    """The name a file is stored under: its absolute path, links resolved."""
    return str(Path(path).resolve())


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

    Batches span files (a transaction holds ``batch_size`` hands whatever the files).
    Each is written by :class:`ingest.commit.Writer` in a thread of its own while the
    next is read, in reading order; ``on_files(readers)`` is told, in that thread, of
    the files each transaction completed once it is committed.
    Raises :class:`~ingest.conservation.ConservationError` if a hand met is not
    accounted for (after the batches before it are written).
    """
    # The readers (the compiled scanner, Arrow) are loaded when a load starts: importing
    # this module for its sizes and summary (the nightly job's start) stays quick.
    from ingest.commit import Writer, single_threaded

    summary = summary if summary is not None else IngestSummary()
    with single_threaded(con):
        writer = Writer(con, summary, on_files, size=batch_size)
        try:
            _read_all(readers, summary, writer, progress, files_total, batch_size)
        except BaseException as error:
            writer.close(error)
            raise
        writer.close()
    summary.conservation.check("after the ingest")
    return summary


def _read_all(readers: Iterable[HandReader], summary: IngestSummary, writer: Writer,
              progress: Callable[[Progress], None] | None, files_total: int,
              batch_size: int) -> None:
    """Read every file, handing ``writer`` each ``WRITE_SIZE`` hands (``batch_size`` if
    smaller) to write into its transaction of ``batch_size`` hands."""
    from ingest.batches import read_batches
    from ingest.commit import FileDone, Pending

    pending = Pending()
    for reader in readers:
        counts = Conservation()  # what this file's read gave (unreadable ones only)
        for batch in read_batches(reader, min(batch_size, READ_SIZE)):
            file_items = [p for p in batch.problems if p.is_file_item]
            hand_items = len(batch.problems) - len(file_items)
            counts.hands += len(batch.hands) + hand_items
            counts.quarantined += hand_items
            counts.file_problems += len(file_items)
            with summary.lock:
                summary.hands_read += len(batch.hands) + hand_items
                summary.quarantined += hand_items
                summary.file_problems += len(file_items)
                summary.note(batch.problems)
            pending.add(batch)
            if pending.size >= min(batch_size, WRITE_SIZE):
                writer.submit(pending)
                pending = Pending()
                _report(progress, summary, files_total, reader.file, 0)
        if counts.hands != reader.chunks:
            writer.submit(pending)
            writer.commit()
            raise ConservationError(
                f"{reader.file}: the reader met {reader.chunks:,} hand(s) but "
                f"{counts.hands:,} came out of it")
        size = reader.path.stat().st_size if reader.path.is_file() else None
        with summary.lock:
            summary.files += 1
        pending.files.append(FileDone(reader, reader.file, size, counts, reader.resume_offset,
                                      reader.resume_line, reader.content_sha256,
                                      reader.content_bytes))
        _report(progress, summary, files_total, reader.file, 0)
    writer.submit(pending)
    writer.commit()


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
