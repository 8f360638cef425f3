"""Staging reads the store audit's workers take their rows from, kept in files they map.

The main process holds the store's connection, so it reads staging for every batch
(:func:`audit.facts.staging.read_rows`, a few batches a read). It once cut each read into
its batches and pickled them to the workers: sorting, copying and pickling the rows of
every hand in the one process that the workers wait on. Now it writes each read once, as
it came, to Arrow IPC files in a temporary folder (a copy of the buffers), and a batch
travels as the name of its read and the range of its hands there: the worker maps the
files (no copy; a worker given several batches of one read maps it once) and lays its own
hands' rows out (:func:`audit.facts.staging.staging_arrays`). A read's files are removed
when its last batch is done, the folder when the audit ends, or by the next audit if this
one was killed.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa

from audit.facts.staging import StagingRows, read_rows

#: The tables of a read, one file each.
_TABLES = ("hands", "seats", "actions")


@dataclass(frozen=True, slots=True)
class StagedGroup:
    """A batch's hands in a read kept in files: the read, their first ordinal, how many."""

    read: str  #: the read's files, without ``.TABLE.arrow``
    first: int
    count: int

    def rows(self) -> StagingRows:
        """The batch's staging rows, in the read's files (mapped once per process)."""
        return StagingRows(*_mapped(self.read), self.first, self.count)


#: The read this process mapped last (its batches come together).
_MAPPED: dict[str, tuple[pa.Table, pa.Table, pa.Table]] = {}


def _mapped(read: str) -> tuple[pa.Table, pa.Table, pa.Table]:
    if read not in _MAPPED:
        _MAPPED.clear()
        hands, seats, actions = (
            pa.ipc.open_file(pa.memory_map(f"{read}.{name}.arrow")).read_all()
            for name in _TABLES)
        _MAPPED[read] = (hands, seats, actions)
    return _MAPPED[read]


class SharedReads:
    """A folder of reads in flight, each removed when its last batch is done."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._left: dict[str, int] = {}

    def stage(self, con: duckdb.DuckDBPyConnection, groups: Sequence[pa.Array | list[str]]
              ) -> list[StagedGroup]:
        """Read the staging rows of ``groups`` of hand ids into a new read's files."""
        read = str(self.folder / f"read-{len(self._left) + 1}")
        ids = pa.concat_arrays([g if isinstance(g, pa.Array) else pa.array(g, pa.string())
                                for g in groups]) if groups else pa.array([], pa.string())
        for name, table in zip(_TABLES, read_rows(con, ids), strict=True):
            # One record batch: a worker's take from a chunked table would join them again.
            table = table.combine_chunks()
            with pa.ipc.new_file(f"{read}.{name}.arrow", table.schema) as writer:
                writer.write_table(table)
        starts = np.cumsum([0, *(len(g) for g in groups)]).tolist()
        self._left[read] = len(groups)
        return [StagedGroup(read, first, len(group))
                for group, first in zip(groups, starts, strict=False)]

    def done(self, group: StagedGroup) -> None:
        """One batch of a read is audited: its files go with the read's last."""
        self._left[group.read] -= 1
        if not self._left[group.read]:
            for name in _TABLES:
                Path(f"{group.read}.{name}.arrow").unlink()


#: The folders' names: this prefix, then the process id of the audit that made them.
_PREFIX = "openers-audit-reads-"


@contextmanager
def shared_reads() -> Iterator[SharedReads]:
    """Reads in a temporary folder, removed with everything in it on the way out (and, if
    the audit was killed, by the next audit: a folder whose process is gone)."""
    _remove_orphans(Path(tempfile.gettempdir()))
    try:
        with tempfile.TemporaryDirectory(prefix=f"{_PREFIX}{os.getpid()}-") as folder:
            yield SharedReads(Path(folder))
    finally:
        _MAPPED.clear()  # a read this process mapped itself (batches audited in process)


def _remove_orphans(parent: Path) -> None:
    for folder in parent.glob(f"{_PREFIX}*-*"):
        pid = folder.name[len(_PREFIX):].split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True
