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

import time
from collections.abc import Callable
from pathlib import Path

import duckdb

from schemas.store import connect

#: Seconds the nightly job waits by default for a store another process holds.
DEFAULT_WAIT = 300.0
_FIRST_PAUSE = 0.05
_LONGEST_PAUSE = 2.0


def is_lock_conflict(exc: BaseException) -> bool:
    """Whether ``exc`` is DuckDB refusing the file because another process holds it."""
    return isinstance(exc, duckdb.IOException) and "lock" in str(exc).lower()


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
