"""The job lock: exclusive, released on exit and on death, and it names its holder."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

import pytest

from openers.nightly.lock import JobLock, LockHeld, lock_path_for


def _taken_within(db, seconds: float, why: str) -> None:
    """Take and release the lock, retrying for ``seconds`` (the kernel frees a dead
    holder's lock)."""
    deadline = time.monotonic() + seconds
    lock = JobLock(db)
    while True:
        try:
            lock.acquire()
        except LockHeld:
            assert time.monotonic() < deadline, why
            time.sleep(0.05)
        else:
            lock.release()
            return


def test_second_lock_is_refused_with_the_holder(tmp_path):
    db = tmp_path / "store.duckdb"
    with JobLock(db):
        with pytest.raises(LockHeld) as refused:
            JobLock(db).acquire()
        assert f"pid {os.getpid()}" in str(refused.value)
        assert str(lock_path_for(db)) in str(refused.value)
    # Released on exit: it can be taken again.
    with JobLock(db):
        pass


def test_lock_of_a_killed_holder_is_free_at_once(tmp_path):
    db = tmp_path / "store.duckdb"
    code = (
        "import sys, time; from pathlib import Path\n"
        "from openers.nightly.lock import JobLock\n"
        f"JobLock(Path({str(db)!r})).acquire(); print('held', flush=True); time.sleep(60)\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(LockHeld):
            JobLock(db).acquire()
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(timeout=10)
        _taken_within(db, 5, "lock not released after kill -9")
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()


def test_a_forked_child_does_not_hold_the_lock_after_its_parent_dies(tmp_path):
    """A process the job forks (a pool worker) must not keep the lock when the job dies."""
    db = tmp_path / "store.duckdb"
    code = (
        "import os, sys, time; from pathlib import Path\n"
        "from openers.nightly.lock import JobLock\n"
        f"JobLock(Path({str(db)!r})).acquire()\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    time.sleep(60); os._exit(0)\n"
        "print(child, flush=True); time.sleep(60)\n"
    )
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    child = None
    try:
        assert holder.stdout is not None
        child = int(holder.stdout.readline())
        with pytest.raises(LockHeld):
            JobLock(db).acquire()
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait(timeout=10)
        assert os.path.exists(f"/proc/{child}"), "the child should outlive its parent here"
        _taken_within(db, 5, "the forked child still holds the lock")
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
        if child is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGKILL)


def test_a_finished_holder_leaves_no_lock_file(tmp_path):
    db = tmp_path / "store.duckdb"
    with JobLock(db):
        assert lock_path_for(db).exists()
    assert not lock_path_for(db).exists()
    # Taken again after a release, and refused while held, as before.
    with JobLock(db), pytest.raises(LockHeld):
        JobLock(db).acquire()
    assert not lock_path_for(db).exists()


def test_a_lock_file_left_by_a_killed_holder_is_taken_over(tmp_path):
    db = tmp_path / "store.duckdb"
    lock_path_for(db).write_text('{"pid": 999999999, "host": "elsewhere", "started": "x"}')
    with JobLock(db):
        assert f'"pid": {os.getpid()}' in lock_path_for(db).read_text()
    assert not lock_path_for(db).exists()
