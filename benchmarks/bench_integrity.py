"""The nightly job's integrity stage alone, on a copy of a store, timed part by part.

    .venv/bin/python benchmarks/bench_integrity.py STORE [--runs 3] [--profile robert]

Runs the stage's own call (``analyse_store``: read staging, replay, feed every test,
judge every cell, write the run) on a fresh copy of ``STORE`` (never written) ``--runs``
times after a first run (which, as in the nightly job, loads the compiled code and
builds the hand laws), and prints the CPU and wall seconds of each part in the first run
and the minimum over the others:

- ``read``: the staging read (``read_batches``: the hands' cursor, and per batch the
  seats and lines queried and turned into arrays; ``read.batch`` is the per-batch part);
- ``replay`` (the compiled pass), ``view`` (dealt strengths and PITs), ``lookup``;
- ``feed.CODE``: each test's per-batch sums; ``bins``: the PIT histograms;
- ``cells``: every test's cells as rows (``cells.CODE``: each test's own); ``judge``: false
  discovery control, rows, alerts;
- ``write``: ``store_result`` (the run's rows built and inserted in one transaction);
- with the worker process (``--workers 1``, the default on two cores or more: see
  ``audit/integrity/parallel.py``): ``worker.send`` (a batch written for it, with any wait
  for it to catch up) and ``worker.wait`` (waiting for its cells and evidence). The
  worker's own tests are timed in it and not listed: ``--workers 0`` times every test.

Arrow is set up as the nightly job does (pyarrow never imports pandas). A part's CPU
seconds are its thread's (``read`` runs in the read-ahead thread,
``audit/integrity/ahead.py``, beside the replay and the tests; what DuckDB hands to its
own threads is in no part); ``stage`` is the process's, every thread's, plus the
worker's (``children``). On a shared machine compare CPU seconds, run back to back,
rather than wall seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from audit.integrity import engine, frames, store
from audit.integrity.registry import TESTS
from audit.integrity.store import analyse_store
from audit.profiles import load_profile
from openers.nightly.startup import arrow_without_pandas
from schemas.store import connect

#: part -> [cpu, wall] of the current run.
_SPENT: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])


def _timed(owner: Any, name: str, part: str) -> None:
    """Wrap ``owner.name`` so the time spent in it is added to ``part``."""
    inner: Callable[..., Any] = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        cpu, wall = time.thread_time(), time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            spent = _SPENT[part]
            spent[0] += time.thread_time() - cpu
            spent[1] += time.perf_counter() - wall

    setattr(owner, name, wrapper)


def _timed_iterator(owner: Any, name: str, part: str) -> None:
    """Wrap a generator function so the time spent producing its items goes to ``part``."""
    inner: Callable[..., Iterator[Any]] = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Iterator[Any]:
        items = inner(*args, **kwargs)
        while True:
            cpu, wall = time.thread_time(), time.perf_counter()
            try:
                item = next(items)
            except StopIteration:
                return
            finally:
                spent = _SPENT[part]
                spent[0] += time.thread_time() - cpu
                spent[1] += time.perf_counter() - wall
            yield item

    setattr(owner, name, wrapper)


def _listed(cells: Callable[..., Any]) -> Callable[..., Any]:
    """A test's ``cells`` made into a list, so its time is its own, not its consumer's."""
    def wrapper(*args: Any, **kwargs: Any) -> list[Any]:
        return list(cells(*args, **kwargs))
    return wrapper


def _instrument() -> None:
    _timed_iterator(engine, "read_batches", "read")
    _timed(frames, "_batch", "read.batch")
    _timed(engine, "replay", "replay")
    _timed(engine, "view", "view")
    _timed(engine.Lookup, "add_batch", "lookup")
    _timed(engine._Bins, "add", "bins")
    _timed(engine._Bins, "result", "bins")
    _timed(engine._Cells, "__init__", "cells")
    _timed(engine, "_judge", "judge")
    _timed(store, "store_result", "write")
    try:
        from audit.integrity import parallel
    except ImportError:  # a copy from before the worker (a baseline)
        pass
    else:
        _timed(parallel.IntegrityWorker, "feed", "worker.send")
        _timed(parallel.IntegrityWorker, "cells", "worker.wait")
        _timed(parallel.IntegrityWorker, "evidence", "worker.wait")
        _in_worker(parallel)


#: Where the worker leaves its parts' times (read back by the main process).
_WORKER_TIMES = Path(tempfile.gettempdir()) / f"openers-bench-integrity-{os.getpid()}.json"


class _TimedConnection:
    """The worker's end of the pipe, its waits for the next request timed (``w.idle``)."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn

    def recv(self) -> Any:
        wall = time.perf_counter()
        try:
            return self._conn.recv()
        finally:
            _SPENT["w.idle"][1] += time.perf_counter() - wall

    def send(self, message: Any) -> None:
        self._conn.send(message)

    def fileno(self) -> int:
        return int(self._conn.fileno())


def _in_worker(parallel: Any) -> None:
    """Time the worker: its tests' parts (``w.`` + part) and its idle waits, written to
    :data:`_WORKER_TIMES` when it ends."""
    answer: Callable[..., None] = parallel._answer

    def wrapper(conn: Any, *args: Any) -> None:
        _SPENT.clear()
        cpu = time.process_time()
        try:
            answer(_TimedConnection(conn), *args)
        finally:
            _SPENT["w.cpu"][0] = time.process_time() - cpu
            _WORKER_TIMES.write_text(json.dumps({f"w.{k.removeprefix('w.')}": v
                                                 for k, v in _SPENT.items()}))

    parallel._answer = wrapper
    for code, test in TESTS.items():
        test.cells = _listed(test.cells)  # type: ignore[method-assign]
        _timed(test, "feed", f"feed.{code}")
        _timed(test, "cells", f"cells.{code}")


def _children() -> float:
    """CPU seconds of the ended child processes (the worker, once the stage has ended it)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", default="robert")
    parser.add_argument("--workers", type=int, default=None,
                        help="worker processes for the tests (0 or 1; default: as the night)")
    args = parser.parse_args()
    arrow_without_pandas()  # as the nightly job starts (pyarrow's first array would import it)
    _instrument()
    profile = load_profile(args.profile)
    runs: list[dict[str, list[float]]] = []
    with tempfile.TemporaryDirectory(prefix="openers-bench-integrity-") as tmp:
        for run in range(args.runs + 1):
            copy = Path(tmp) / "store.duckdb"
            shutil.copy(args.store, copy)
            con = connect(str(copy))
            _SPENT.clear()
            cpu, wall = time.process_time() + _children(), time.perf_counter()
            result = analyse_store(con, profile, **(
                {} if args.workers is None else {"workers": args.workers}))
            _SPENT["stage"] = [time.process_time() + _children() - cpu,
                               time.perf_counter() - wall]
            if _WORKER_TIMES.exists():
                _SPENT.update(json.loads(_WORKER_TIMES.read_text()))
                _WORKER_TIMES.unlink()
            con.close()
            copy.unlink()
            runs.append(dict(_SPENT))
            print(f"run {run}: stage {_SPENT['stage'][0]:.2f} CPU s, "
                  f"{_SPENT['stage'][1]:.2f} s wall; {result.hands:,} hands, "
                  f"{len(result.tested):,} cells, {len(result.alerts)} alerts")
    one, five, _ = os.getloadavg()
    print(f"CPU s / wall s of the first run (as in the nightly job: compiled code loaded, "
          f"hand laws built) and the min of the {len(runs) - 1} others; "
          f"load average {one:.2f} {five:.2f}:")
    first, warm = runs[0], runs[1:] or runs
    for part in sorted({p for r in runs for p in r}, key=lambda p: (p != "stage", p)):
        cpu = min(r.get(part, [0.0, 0.0])[0] for r in warm)
        wall = min(r.get(part, [0.0, 0.0])[1] for r in warm)
        was = first.get(part, [0.0, 0.0])
        print(f"  {part:<12} first {was[0]:7.3f} {was[1]:7.3f}   min {cpu:7.3f} {wall:7.3f}")

if __name__ == "__main__":
    main()
