"""Staging reads the store audit's workers take their rows from, kept in files they map.

The main process holds the store's connection, so it reads staging for every batch
(:func:`audit.facts.staging.read_rows`, a few batches a read). It once cut each read into
its batches and pickled them to the workers: sorting, copying and pickling the rows of
every hand in the one process that the workers wait on. Now it writes each read once, as
it came, to Arrow IPC files in a temporary folder (a copy of the buffers), and a batch
travels as its hand ids and the name of its read: the worker maps the files (no copy) and
takes and sorts its own hands' rows (:func:`audit.facts.staging.group_rows`), the same
rows in the same order as before. A read's files are removed when its last batch is done,
the folder when the audit ends, or by the next audit if this one was killed.
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

from audit.facts.staging import StagingRows, group_rows, read_rows

#: The tables of a read, one file each.
_TABLES = ("hands", "seats", "actions")


@dataclass(frozen=True, slots=True)
class StagedGroup:
    """A batch's hands in a read kept in files: their ids, the read, their first ordinal."""

    hand_ids: list[str]
    read: str  #: the read's files, without ``.TABLE.arrow``
    first: int

    def rows(self) -> StagingRows:
        """The batch's staging rows (by hand then seat or line), from the mapped files."""
        hands, seats, actions = (
            pa.ipc.open_file(pa.memory_map(f"{self.read}.{name}.arrow")).read_all()
            for name in _TABLES)
        return group_rows(self.hand_ids, self.first, hands, seats, actions)


class SharedReads:
    """A folder of reads in flight, each removed when its last batch is done."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._left: dict[str, int] = {}

    def stage(self, con: duckdb.DuckDBPyConnection, groups: Sequence[list[str]]
              ) -> list[StagedGroup]:
        """Read the staging rows of ``groups`` of hand ids into a new read's files."""
        read = str(self.folder / f"read-{len(self._left) + 1}")
        for name, table in zip(_TABLES, read_rows(con, [h for g in groups for h in g]),
                               strict=True):
            # One record batch: a worker's take from a chunked table would join them again.
            table = table.combine_chunks()
            with pa.ipc.new_file(f"{read}.{name}.arrow", table.schema) as writer:
                writer.write_table(table)
        starts = np.cumsum([0, *(len(g) for g in groups)]).tolist()
        self._left[read] = len(groups)
        return [StagedGroup(group, read, first)
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
    with tempfile.TemporaryDirectory(prefix=f"{_PREFIX}{os.getpid()}-") as folder:
        yield SharedReads(Path(folder))


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
