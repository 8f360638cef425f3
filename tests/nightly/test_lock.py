"""The job lock: exclusive, released on exit and on death, and it names its holder."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from openers.nightly.lock import JobLock, LockHeld, lock_path_for


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
        deadline = time.monotonic() + 5
        while True:
            try:
                JobLock(db).acquire()
                break
            except LockHeld:
                assert time.monotonic() < deadline, "lock not released after kill -9"
                time.sleep(0.05)
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
