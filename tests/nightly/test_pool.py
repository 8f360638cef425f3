"""The audit's process pools die with the process that started them.

A worker waiting for its next task never learns by itself that its parent is gone:
killed with ``kill -9`` mid-audit, the job would leave its workers running for ever
(holding memory and every descriptor they inherited).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

#: A parent that starts a pool as the audit does, prints its workers' pids and waits.
_PARENT = """
import os, sys, time
from {module} import {factory}
pool = {factory}(2)
pids = sorted(set(pool.map(os.getpid.__call__ if False else _pid, range(8))))
"""

_PARENT = """
import os, sys, time
{imports}
def pid(_):
    time.sleep(0.05)
    return os.getpid()
if __name__ == "__main__":
    pool = {make}
    print(" ".join(str(p) for p in sorted(set(pool.map(pid, range(16))))), flush=True)
    time.sleep(60)
"""

POOLS = {
    "forked pool (check, store audit)": ("from audit.workers import pool", "pool(2)"),
    "process pool (verify)": ("from audit.workers import process_pool", "process_pool(2)"),
}


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
@pytest.mark.parametrize("pool", sorted(POOLS))
def test_pool_workers_die_when_their_parent_is_killed(pool):
    imports, make = POOLS[pool]
    parent = subprocess.Popen([sys.executable, "-c", _PARENT.format(imports=imports, make=make)],
                              stdout=subprocess.PIPE, text=True)
    workers: list[int] = []
    try:
        assert parent.stdout is not None
        workers = [int(p) for p in parent.stdout.readline().split()]
        assert workers and parent.pid not in workers
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(timeout=10)
        deadline = time.monotonic() + 10
        while any(_alive(p) for p in workers):
            assert time.monotonic() < deadline, f"workers outlived their parent: {workers}"
            time.sleep(0.05)
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        for pid in workers:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
