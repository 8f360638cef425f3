"""Open the store, waiting a bounded time while another process holds it.

DuckDB lets one process write a database file, and none while another has it
open even read-only. The dashboards hold the store only for the moment it takes
to copy it (``dashboards.connection.take_snapshot``), and ``openers verify`` only
while it reads: a job that starts in that moment waits for it to end rather than
fail the night. Only a lock conflict is waited for; any other error (a corrupt
file, a full disk, no permission) is raised at once, and so is the conflict
once ``wait`` seconds have passed.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from schemas.store import connect

#: Seconds the nightly job waits by default for a store another process holds.
DEFAULT_WAIT = 300.0
#: DuckDB's memory limit while the nightly job ingests, audits and analyses. By default
#: DuckDB keeps every block it reads or writes cached up to 80% of the machine, so the job's
#: memory would grow with the night and the store; bounded, it evicts what it wrote or read
#: (a block is read once here) and spills what a query needs beyond the limit to its
#: temporary folder (``<store>.tmp``). The store has no index that must stay in memory (the
#: hand ids are unique by ingest's own check), so nothing stops it from spilling. Measured
#: on a million hands: at 1 GB the cache of blocks ingest wrote and the audit read (about
#: 600 MB) was a third of the job's peak (1,950 to 2,080 MiB).
WORK_MEMORY_LIMIT = "256MB"
#: DuckDB's memory limit for the transaction that closes the run (the run claim and the
#: seal): 512 MB made it fail on a million hands when the seal's digest was one
#: ``string_agg ... ORDER BY`` over the night's hands, which does not spill. The digest now
#: streams (``schemas.seals._pair``) and the run's start checks the last seal at the work
#: limit; the closing limit is kept, not measured again.
CLOSING_MEMORY_LIMIT = "1GB"
_LOCK = re.compile(r"\block\b", re.IGNORECASE)
_FIRST_PAUSE = 0.05
_LONGEST_PAUSE = 2.0


def names_a_lock(text: str) -> bool:
    """Whether an error's text speaks of a lock (the word: "could not allocate block" of
    an out-of-memory error is no lock)."""
    return _LOCK.search(text) is not None


def is_lock_conflict(exc: BaseException) -> bool:
    """Whether ``exc`` is DuckDB refusing the file because another process holds it."""
    return isinstance(exc, duckdb.IOException) and names_a_lock(str(exc))


def bound_memory(con: duckdb.DuckDBPyConnection, db: Path) -> None:
    """Hold DuckDB's memory at :data:`WORK_MEMORY_LIMIT`, spilling to ``<db>.tmp``."""
    folder = str(db) + ".tmp"
    con.execute("SET temp_directory = '" + folder.replace("'", "''") + "'")
    con.execute(f"SET memory_limit = '{WORK_MEMORY_LIMIT}'")


@contextmanager
def closing_memory(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """DuckDB's memory limit at :data:`CLOSING_MEMORY_LIMIT` inside, then back at
    :data:`WORK_MEMORY_LIMIT` (which evicts the cached blocks beyond it)."""
    con.execute(f"SET memory_limit = '{CLOSING_MEMORY_LIMIT}'")
    try:
        yield
    finally:
        con.execute(f"SET memory_limit = '{WORK_MEMORY_LIMIT}'")


def connect_waiting(
    db: Path, *, read_only: bool = False, wait: float = DEFAULT_WAIT,
    on_wait: Callable[[str], None] | None = None,
) -> duckdb.DuckDBPyConnection:
    """:func:`schemas.store.connect`, retried while another process holds the file.

    ``on_wait(reason)`` is called once, when the first attempt is refused.
    """
    deadline = time.monotonic() + wait
    pause = _FIRST_PAUSE
    told = False
    while True:
        try:
            return connect(db, read_only=read_only)
        except duckdb.Error as exc:
            left = deadline - time.monotonic()
            if not is_lock_conflict(exc) or left <= 0:
                raise
            if not told and on_wait is not None:
                on_wait(str(exc).splitlines()[0])
                told = True
            time.sleep(min(pause, left))
            pause = min(pause * 2, _LONGEST_PAUSE)
