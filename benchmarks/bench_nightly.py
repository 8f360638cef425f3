"""The nightly job end to end, against DuckDB's bare line scan of the same files.

    .venv/bin/python benchmarks/bench_nightly.py [--hands 100000] [--tables 40]
        [--violations 0.02] [--memory-hands 0]

One room is generated (``--hands`` hands, ``--tables`` tables, every code planted in
``--violations`` of the deals). In the same run:

- DuckDB's bare line scan of the room's files: ``read_csv`` of every line as one column
  (``strict_mode=false``), a ``count(*)`` -- the floor any reader of these bytes pays;
- the nightly job (``openers nightly``: ingest, audit, report) into a fresh store,
  whole process warm (the compiled code loaded by a first small night elsewhere),
  with its hands per second and its ratio to the line scan;
- its audit half apart: the same store re-audited (``openers audit``, from staging).

``--memory-hands N`` also runs the nightly job on an ``N``-hand room in a child process
and prints the child's peak resident memory (``ru_maxrss``).

Figures on a shared machine are noisy: the command line above reproduces them.
"""

from __future__ import annotations

import argparse
import io
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb

from audit.profiles import load_profile
from audit.store import audit_store
from openers.generator import GenerateConfig, generate
from openers.generator.generate import LOGS_DIR
from openers.nightly.job import FailOn, NightlyOptions, run_nightly
from openers.nightly.joblog import JobLog, LogFormat
from schemas.store import connect


def _line_scan(logs: Path) -> float:
    start = time.perf_counter()
    con = duckdb.connect()
    con.execute(
        "SELECT count(*) FROM read_csv(?, columns = {'line': 'VARCHAR'}, header = false, "
        "delim = '\\x01', quote = '', escape = '', strict_mode = false)",
        [str(logs / "*.log")]).fetchone()
    con.close()
    return time.perf_counter() - start


def _night(inbox: Path, db: Path, reports: Path | None) -> tuple[float, int]:
    options = NightlyOptions(inboxes=(inbox,), db=db, reports=reports, fail_on=FailOn.NEVER,
                             settle_seconds=0.0)
    start = time.perf_counter()
    result = run_nightly(options, JobLog(LogFormat.JSON, io.StringIO()))
    return time.perf_counter() - start, result.counts.hands


def _warm(root: Path) -> None:
    """A small first night: loads (or compiles) the compiled code of this process."""
    generate(GenerateConfig(hands=200, tables=2, seed=3), root / "warm")
    _night(root / "warm" / LOGS_DIR, root / "warm.duckdb", None)


def _memory(hands: int, tables: int) -> None:
    code = (
        "import io, resource, sys, tempfile\nfrom pathlib import Path\n"
        "from openers.generator import GenerateConfig, generate\n"
        "from openers.generator.generate import LOGS_DIR\n"
        "from openers.nightly.job import FailOn, NightlyOptions, run_nightly\n"
        "from openers.nightly.joblog import JobLog, LogFormat\n"
        "root = Path(sys.argv[1])\n"
        "options = NightlyOptions(inboxes=(root / 'room' / LOGS_DIR,), db=root / 'm.duckdb',"
        " fail_on=FailOn.NEVER, settle_seconds=0.0)\n"
        "r = run_nightly(options, JobLog(LogFormat.JSON, io.StringIO()))\n"
        "print(r.counts.hands)\n")
    with tempfile.TemporaryDirectory(prefix="openers-bench-memory-") as tmp:
        root = Path(tmp)
        generate(GenerateConfig(hands=hands, tables=tables, seed=5, violations=0.02,
                                workers=2), root / "room")
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        start = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", code, str(root)], check=True,
                             capture_output=True, text=True)
        seconds = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(f"nightly on {out.stdout.strip()} hands in a child process: {seconds:.1f} s, "
          f"peak resident memory {max(peak, before) / 1024:,.0f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=100_000)
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--violations", type=float, default=0.02)
    parser.add_argument("--memory-hands", type=int, default=0)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="openers-bench-nightly-"))
    try:
        generate(GenerateConfig(hands=args.hands, tables=args.tables, seed=1,
                                violations=args.violations, workers=2), root / "room")
        logs = root / "room" / LOGS_DIR
        _warm(root)
        scan = _line_scan(logs)
        seconds, hands = _night(logs, root / "store.duckdb", root / "reports")
        print(f"DuckDB line scan: {scan:.2f} s = {hands / scan:,.0f} hands/s")
        print(f"openers nightly:  {seconds:.2f} s = {hands / seconds:,.0f} hands/s "
              f"({seconds / scan:.1f} times the line scan)")
        con = connect(root / "store.duckdb")
        try:
            start = time.perf_counter()
            summary = audit_store(con, load_profile("robert"))
            audit = time.perf_counter() - start
        finally:
            con.close()
        print(f"its audit half (openers audit of the store): {audit:.2f} s = "
              f"{summary.hands / audit:,.0f} hands/s")
    finally:
        shutil.rmtree(root)
    if args.memory_hands:
        _memory(args.memory_hands, args.tables)


if __name__ == "__main__":
    main()
