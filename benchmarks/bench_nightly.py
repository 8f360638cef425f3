"""The nightly job end to end, against DuckDB's bare line scan of the same files.

    .venv/bin/python benchmarks/bench_nightly.py [--hands 100000] [--tables 40]
        [--violations 0.02] [--room DIR] [--reaudit] [--next-night [--store DB]]
        [--memory-hands N | --memory-logs DIR]

One room is generated (``--hands`` hands, ``--tables`` tables, every code planted in
``--violations`` of the deals; or an existing room's ``logs`` folder given with
``--room``). In the same run:

- DuckDB's bare line scan of the room's files: ``read_csv`` of every line as one column
  (``strict_mode=false``), a ``count(*)`` -- the floor any reader of these bytes pays;
- ``openers nightly`` as a user runs it: the whole process (start-up, imports, ingest,
  audit, run record and seal, report) into a fresh store, warm (the compiled code cached
  by a first small night, the files in the OS cache): its hands per second, its ratio to
  the line scan, its CPU seconds (the job and its audit workers) and each stage's wall
  and CPU seconds from the job's own JSON log, so the figure names what limits it;
- with ``--reaudit``, its audit half apart: the same store re-audited in process
  (``audit_store``, from staging);
- with ``--next-night``, the night after instead: a first night on every file but the
  last day's (files named ``TABLE_DAY.log``), then the measured night adding that day
  to a store that holds the others (what a night costs once the store has a history);
  ``--store DB`` names that first night's store instead (e.g. a million-hand room's history,
  filled by an earlier ``openers nightly`` from the same files, read only: a copy of it
  takes the night), so only the night after is run and measured. The copy's inbox is
  planned first, as the first night's end leaves it (the files' hashes remembered).

The machine's load average is printed before and after: on a shared machine, compare
CPU seconds as well as wall time.

``--memory-hands N`` runs the nightly job (a child process) on a generated ``N``-hand
room, ``--memory-logs DIR`` on an existing room's logs folder (read only; the store is
written to a temporary folder), and prints its peak resident memory (``ru_maxrss`` of the
job and, separately, the largest of its audit workers) with its wall and CPU time.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import duckdb

from audit.profiles import load_profile
from audit.store import audit_store
from openers.generator import GenerateConfig, generate
from openers.generator.generate import LOGS_DIR
from openers.nightly.inbox import list_inbox, plan_files
from schemas.store import connect

#: The job's peak memory, and its largest audit worker's, measured inside the child.
_PEAK_CODE = """
import resource, sys
sys.argv = ["openers", *sys.argv[1:]]
from openers.cli import main
try:
    main()
except SystemExit as exit:
    code = exit.code
else:
    code = 0
self_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
workers_peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(f"PEAK {self_peak} {workers_peak}", file=sys.stderr)
sys.exit(code)
"""


@dataclass(frozen=True)
class Night:
    """One ``openers nightly`` process."""

    seconds: float
    cpu_seconds: float
    hands: int
    stages: list[str]
    peak_kib: int
    workers_peak_kib: int


def _line_scan(logs: Path) -> float:
    start = time.perf_counter()
    con = duckdb.connect()
    con.execute(
        "SELECT count(*) FROM read_csv(?, columns = {'line': 'VARCHAR'}, header = false, "
        "delim = '\\x01', quote = '', escape = '', strict_mode = false)",
        [str(logs / "**" / "*.log")]).fetchone()
    con.close()
    return time.perf_counter() - start


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _night(inbox: Path, db: Path, reports: Path) -> Night:
    """Run ``openers nightly`` in a child process: wall, CPU, its stages from its log."""
    command = [sys.executable, "-c", _PEAK_CODE, "nightly", str(inbox), "--db", str(db),
               "--reports", str(reports), "--fail-on", "never", "--fail-on-quality", "never",
               "--settle", "0", "--log-format", "json"]
    cpu = _children_cpu()
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    cpu = _children_cpu() - cpu
    if done.returncode != 0:
        raise SystemExit(f"openers nightly exited {done.returncode}:\n{done.stderr[-3000:]}")
    hands, stages, peaks = 0, [], (0, 0)
    first: float | None = None
    for line in done.stderr.splitlines():
        if line.startswith("PEAK "):
            peaks = (int(line.split()[1]), int(line.split()[2]))
            continue
        try:
            event = json.loads(line)
        except ValueError:
            continue
        at = _seconds(event["time"])
        first = at if first is None else first
        if event["message"] == "run finished":
            hands = int(event.get("hands", 0))
        if "progress" not in event["message"]:
            extra = (f"  (stage: {event['seconds']:.2f} s wall, {event['cpu_seconds']:.2f} s CPU, "
                     f"job's peak so far {event.get('peak_mib', 0):,} MiB)"
                     if "cpu_seconds" in event else "")
            stages.append(f"    +{at - first:7.2f} s  {event['message']}{extra}")
    return Night(seconds, cpu, hands, stages, *peaks)


def _seconds(stamp: str) -> float:
    hours, minutes, seconds = stamp[11:-1].split(":")
    return int(hours) * 3600 + int(minutes) * 60 + float(seconds)


def _warm(root: Path) -> None:
    """A small first night: loads (or compiles) the compiled code into its cache."""
    generate(GenerateConfig(hands=3000, tables=4, seed=3), root / "warm")
    _night(root / "warm" / LOGS_DIR, root / "warm.duckdb", root / "warm-reports")


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} ({os.cpu_count()} cores)"


def _memory(logs: Path) -> None:
    with tempfile.TemporaryDirectory(prefix="openers-bench-memory-") as tmp:
        root = Path(tmp)
        _warm(root)
        print(_load())
        night = _night(logs, root / "m.duckdb", root / "reports")
        print(_load())
    print(f"nightly on {night.hands:,} hands in a child process: {night.seconds:.1f} s "
          f"({night.hands / night.seconds:,.0f} hands/s), {night.cpu_seconds:.1f} CPU s; "
          f"peak resident memory {night.peak_kib / 1024:,.0f} MiB "
          f"(largest audit worker {night.workers_peak_kib / 1024:,.0f} MiB)")
    print("\n".join(night.stages))


def _next_night(logs: Path, root: Path, store: Path | None) -> tuple[Night | None, Night]:
    """A first night on every file but the last day's (or a copy of ``store``, which holds
    them), then the night that adds it."""
    files = sorted(logs.rglob("*.log"))
    last = max(f.stem.rsplit("_", 1)[-1] for f in files)
    inbox = root / "inbox"
    inbox.mkdir()
    for f in files:
        if not f.stem.endswith(last):
            (inbox / f.name).symlink_to(f)
    first = None
    if store is None:
        first = _night(inbox, root / "store.duckdb", root / "reports")
    else:
        shutil.copyfile(store, root / "store.duckdb")
        con = connect(root / "store.duckdb")
        try:
            plan_files(con, list_inbox([inbox]), settle_seconds=0.0)
        finally:
            con.close()
    for f in files:
        if f.stem.endswith(last):
            (inbox / f.name).symlink_to(f)
    return first, _night(inbox, root / "store.duckdb", root / "reports")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=100_000)
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--violations", type=float, default=0.02)
    parser.add_argument("--room", default="", help="an existing room's logs folder")
    parser.add_argument("--reaudit", action="store_true")
    parser.add_argument("--next-night", action="store_true")
    parser.add_argument("--store", default="", help="with --next-night: the first night's "
                        "store (read only; a copy takes the night)")
    parser.add_argument("--memory-hands", type=int, default=0)
    parser.add_argument("--memory-logs", default="")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="openers-bench-nightly-"))
    try:
        if args.memory_logs or args.memory_hands:
            logs = Path(args.memory_logs) if args.memory_logs else root / "mem" / LOGS_DIR
            if not args.memory_logs:
                generate(GenerateConfig(hands=args.memory_hands, tables=args.tables, seed=5,
                                        violations=0.02, workers=2), root / "mem")
            _memory(logs)
            return
        if args.room:
            logs = Path(args.room)
        else:
            generate(GenerateConfig(hands=args.hands, tables=args.tables, seed=1,
                                    violations=args.violations, workers=2), root / "room")
            logs = root / "room" / LOGS_DIR
        _warm(root)
        print(_load())
        if args.next_night:
            first, night = _next_night(logs, root, Path(args.store) if args.store else None)
            print(_load())
            if first is not None:
                print(f"first night: {first.hands:,} hands in {first.seconds:.2f} s, "
                      f"{first.cpu_seconds:.1f} CPU s")
            print(f"next night:  {night.hands:,} new hands in {night.seconds:.2f} s, "
                  f"{night.cpu_seconds:.1f} CPU s; peak {night.peak_kib / 1024:,.0f} MiB")
            print("\n".join(night.stages))
            return
        scan = _line_scan(logs)
        night = _night(logs, root / "store.duckdb", root / "reports")
        print(_load())
        hands = night.hands
        print(f"DuckDB line scan: {scan:.2f} s = {hands / scan:,.0f} hands/s")
        print(f"openers nightly:  {night.seconds:.2f} s = {hands / night.seconds:,.0f} hands/s "
              f"({night.seconds / scan:.1f} times the line scan); {night.cpu_seconds:.1f} CPU s "
              f"(job and workers) = {hands / night.cpu_seconds:,.0f} hands per CPU second; "
              f"peak {night.peak_kib / 1024:,.0f} MiB")
        print("\n".join(night.stages))
        if args.reaudit:
            con = connect(root / "store.duckdb")
            try:
                start = time.perf_counter()
                summary = audit_store(con, load_profile("robert"))
                audit = time.perf_counter() - start
            finally:
                con.close()
            print(f"its audit half (openers audit of the store, in process): {audit:.2f} s = "
                  f"{summary.hands / audit:,.0f} hands/s")
    finally:
        shutil.rmtree(root)


if __name__ == "__main__":
    main()
