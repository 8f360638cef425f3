"""The nightly job's lock: one job per store at a time.

An advisory ``flock`` on ``<store>.lock`` beside the database. The kernel drops
it when the holder dies, even on ``kill -9``, so a crashed job never leaves a
stale lock behind and the next run can start straight away. The file also holds
the holder's pid and start time, only to make the refusal message useful.

Two details make "the holder dies, the lock is free" true:

- a ``flock`` belongs to the open file, which a forked child shares: a pool
  worker forked by the job would keep the lock for as long as it lives. Every
  process forked while the lock is held closes its copy of the descriptor at
  once (``os.register_at_fork``), which leaves the parent's lock alone;
- the holder removes the file before it lets go, so a finished run leaves no
  file naming a process that is gone. A taker checks, once it has the lock, that
  the file it locked is still the one at the path (a releasing holder may have
  removed it in between) and otherwise tries again on the new file.
"""

from __future__ import annotations

import contextlib
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


#: Descriptors of the locks this process holds, closed in every child it forks.
_held: set[int] = set()


def _close_in_child() -> None:
    for fd in _held:
        with contextlib.suppress(OSError):
            os.close(fd)  # the child's copy only; flock(LOCK_UN) would free the parent's lock
    _held.clear()


os.register_at_fork(after_in_child=_close_in_child)


class JobLock:
    """An exclusive, non-blocking lock on a store, for use in a ``with`` block."""

    def __init__(self, db: Path) -> None:
        self.path = lock_path_for(db)
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock at once or raise :class:`LockHeld` naming the holder."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        while True:
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
            if _is_current(fd, self.path):
                break
            os.close(fd)  # locked a file its holder removed on release: take the new one
        _held.add(fd)
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
        """Remove the lock file, then drop the lock (removed while held, so no taker
        can be left holding a file that is no longer at the path unnoticed)."""
        if self._fd is None:
            return
        try:
            self.path.unlink(missing_ok=True)
        finally:
            _held.discard(self._fd)
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


def _is_current(fd: int, path: Path) -> bool:
    """Whether ``fd`` is the file now at ``path``."""
    try:
        at_path = os.stat(path)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (at_path.st_dev, at_path.st_ino) == (mine.st_dev, mine.st_ino)


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
