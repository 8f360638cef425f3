"""The nightly job's ingest stage alone, with what its reading and writing threads spend.

    .venv/bin/python benchmarks/bench_ingest_threads.py [--room DIR]

Plans the room's files as the job does and runs ``openers.nightly.stages.ingest_stage``
into a fresh store in a temporary folder (DuckDB's memory bounded as the job bounds it,
``openers.nightly.storeopen.bound_memory``), then prints the stage's wall and CPU seconds,
the reading thread's CPU seconds and how long it waited for the writer, the writing
thread's busy wall and CPU seconds (every flush), and the commits of the open transaction
(timed wherever they run; the last one runs in the reading thread, after the reading).
Whether the stage is the larger of the two threads or their sum is read off these.
"""

from __future__ import annotations

import argparse
import io
import resource
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ingest.commit as commit
from openers.nightly import stages
from openers.nightly.inbox import list_inbox, plan_files
from openers.nightly.joblog import JobLog
from openers.nightly.storeopen import bound_memory
from schemas.store import connect

Spent = dict[str, float]


def _timed(spent: Spent, key: str, function: Callable[..., Any],
           only_main: bool = False) -> Callable[..., Any]:
    """``function``, adding its wall and thread CPU seconds to ``spent[key]``."""

    def timed(*args: Any, **kwargs: Any) -> Any:
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            return function(*args, **kwargs)
        finally:
            if not only_main or threading.current_thread() is threading.main_thread():
                spent[key] = spent.get(key, 0.0) + time.perf_counter() - wall
                spent[key + " cpu"] = spent.get(key + " cpu", 0.0) + time.thread_time() - cpu

    return timed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--room", type=Path, default=Path("/tmp/room100k/logs"))
    args = parser.parse_args()
    spent: Spent = {}
    commit.flush = _timed(spent, "writer", commit.flush)
    commit.Writer.wait = _timed(spent, "waited", commit.Writer.wait,  # type: ignore[method-assign]
                                only_main=True)
    if hasattr(commit, "Transaction"):  # absent before transactions spanned flushes
        commit.Transaction.commit = _timed(  # type: ignore[method-assign]
            spent, "commits", commit.Transaction.commit)
    with tempfile.TemporaryDirectory() as folder:
        con = connect(Path(folder) / "s.duckdb")
        bound_memory(con, Path(folder) / "s.duckdb")
        plans = [p for p in plan_files(con, list_inbox([args.room]), settle_seconds=0)
                 if p.pending]
        con.execute("INSERT INTO ops_runs (kind, started_at, status) "
                    "VALUES ('nightly', now(), 'running')")
        wall, cpu, main_cpu = time.perf_counter(), time.process_time(), time.thread_time()
        summary = stages.ingest_stage(con, plans, JobLog(stream=io.StringIO()), 1)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        main_cpu = time.thread_time() - main_cpu
        con.close()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(f"{summary.stored:,} hands stored: stage {wall:.2f} s wall, {cpu:.2f} CPU s; "
          f"peak {peak:,} MiB")
    print(f"reading thread: {main_cpu:.2f} CPU s, waited for the writer "
          f"{spent.get('waited', 0):.2f} s")
    print(f"writing thread: busy {spent.get('writer', 0):.2f} s, "
          f"{spent.get('writer cpu', 0):.2f} CPU s")
    print(f"commits of the open transaction: {spent.get('commits', 0):.2f} s, "
          f"{spent.get('commits cpu', 0):.2f} CPU s")


if __name__ == "__main__":
    main()
