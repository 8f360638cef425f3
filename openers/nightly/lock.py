"""The nightly job's lock: one job per store at a time.

An advisory ``flock`` on ``<store>.lock`` beside the database. The kernel drops
it when the holder dies, even on ``kill -9``, so a crashed job never leaves a
stale lock behind and the next run can start straight away. The file also holds
the holder's pid and start time, only to make the refusal message useful.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType


class LockHeld(RuntimeError):
    """Another job holds the lock on this store."""


def lock_path_for(db: Path) -> Path:
    """The lock file that guards the store ``db``."""
    return db.with_name(db.name + ".lock")


class JobLock:
    """An exclusive, non-blocking lock on a store, for use in a ``with`` block."""

    def __init__(self, db: Path) -> None:
        self.path = lock_path_for(db)
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock at once or raise :class:`LockHeld` naming the holder."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_holder(fd)
            os.close(fd)
            raise LockHeld(
                f"another nightly job is already running on this store ({holder}); "
                f"lock file {self.path}"
            ) from None
        # Only the holder writes: the content is informational, the flock is the lock.
        info = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(info).encode(), 0)
        self._fd = fd

    def release(self) -> None:
        """Drop the lock (the file stays: removing it would race with a new holder)."""
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> JobLock:
        self.acquire()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()


def _read_holder(fd: int) -> str:
    """Describe the current holder from the lock file, as well as it can be read."""
    try:
        raw = os.pread(fd, 4096, 0)
        info = json.loads(raw.decode() or "{}")
    except (OSError, ValueError):
        return "holder unknown"
    if not info:
        return "holder unknown"
    return f"pid {info.get('pid')} on {info.get('host')}, started {info.get('started')}"
