"""Ingest throughput on a generated room, against DuckDB's bare line scan of the same files.

Run: ``nice .venv/bin/python benchmarks/bench_ingest.py [--hands 100000] [--room DIR]
[--profile]``

A room of ``--hands`` hands (40 tables, 2% planted violations, 5% unrecorded cards,
``openers generate``) is written once (or ``--room`` names an existing generated
room). Then, in one run, on the same files:

1. **bare scan**: DuckDB reading every line of the files (``read_csv`` with one column,
   ``strict_mode=false``): the floor any reader of these bytes has, as issue 11 sets it;
2. **read**: ``ingest.batches.read_batches`` over every file: the compiled scanner, its
   staging rows built column-wise, the reference parser for the hands it does not read;
3. **ingest**: ``ingest_paths`` into a fresh store: the above, plus classifying each hand
   (new, duplicate, conflict) and writing raw and staging rows to DuckDB.

Each is given in hands per second by the wall clock and per CPU-second of this
process (DuckDB's own threads count in the process's CPU time); the machine may be
shared, so the CPU figures are the comparable ones. ``--profile`` prints where the
read pass spends its time.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import duckdb
import numpy as np

from ingest.batches import read_batches
from ingest.load import READ_SIZE, ingest_paths
from ingest.paths import expand_paths
from ingest.reader import HandReader
from ingest.scan.layout import H_STATUS
from ingest.scan.scanner import scan
from openers.generator import GenerateConfig, generate
from openers.generator.generate import LOGS_DIR

T = TypeVar("T")


def timed(func: Callable[[], T]) -> tuple[T, float, float]:
    """``func()``, its wall-clock seconds and this process's CPU seconds."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = func()
    return result, time.perf_counter() - wall, time.process_time() - cpu


def rate(hands: int, wall: float, cpu: float) -> str:
    return (f"{hands / wall:>10,.0f} hands/s wall ({wall:6.2f} s)   "
            f"{hands / cpu:>10,.0f} hands/CPU-s ({cpu:6.2f} s CPU)")


def bare_scan(logs: Path) -> int:
    """DuckDB reading every line of the logs, one VARCHAR column: the lines it read."""
    con = duckdb.connect()
    pattern = str(logs / "*.log")
    rows = con.execute(
        "SELECT count(*) FROM read_csv(?, columns = {'line': 'VARCHAR'}, header = false, "
        "delim = '\x01', quote = '', escape = '', auto_detect = false, strict_mode = false)",
        [pattern]).fetchall()
    con.close()
    return int(rows[0][0])


def read_pass(files: list[Path]) -> tuple[int, int]:
    """Read every file as ingest does; (hands read, problems)."""
    hands = problems = 0
    for path in files:
        for batch in read_batches(HandReader(path), READ_SIZE):
            hands += len(batch.hands)
            problems += len(batch.problems)
    return hands, problems


def scanner_share(files: list[Path]) -> float:
    """The share of hands the compiled scanner reads (the rest go to the parser)."""
    read = total = 0
    for path in files:
        result = scan(np.frombuffer(path.read_bytes(), dtype=np.uint8))
        read += int((result.arrays.hands[:, H_STATUS] == 0).sum())
        total += len(result)
    return read / max(total, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=100_000)
    parser.add_argument("--room", type=Path, help="an existing generated room to read")
    parser.add_argument("--profile", action="store_true", help="profile the read pass")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="openers-ingest-") as tmp:
        work = Path(tmp)
        room = args.room
        if room is None:
            room = work / "room"
            generate(GenerateConfig(hands=args.hands, tables=40, seed=42, violations=0.02,
                                    unrecorded_share=0.05, workers=2), room)
        logs = room / LOGS_DIR
        files = expand_paths([logs])
        size = sum(f.stat().st_size for f in files)
        print(f"room: {len(files)} files, {size / 1e6:.1f} MB; scanner reads "
              f"{scanner_share(files):.1%} of the hands")
        lines, wall, cpu = timed(lambda: bare_scan(logs))
        hands, _, _ = timed(lambda: read_pass(files))  # warm: compiled code and page cache
        count = hands[0]
        print(f"hands: {count:,}; lines: {lines:,}")
        print(f"bare scan (DuckDB read_csv)  {rate(count, wall, cpu)}")
        bare = wall, cpu
        (_, problems), wall, cpu = timed(lambda: read_pass(files))
        print(f"read (scanner + parser)      {rate(count, wall, cpu)}   {problems} problems")
        read = wall, cpu
        summary, wall, cpu = timed(lambda: ingest_paths([logs], work / "store.duckdb"))
        assert summary.stored + summary.quarantined + summary.conflicts + summary.duplicates \
            == summary.hands_read
        print(f"ingest (read + store)        {rate(summary.stored, wall, cpu)}")
        print(f"  of which storing           {rate(summary.stored, wall - read[0], cpu - read[1])}")
        print(f"ingest / bare scan: {wall / bare[0]:.1f}x wall, {cpu / bare[1]:.1f}x CPU")
        if args.profile:
            profile = cProfile.Profile()
            profile.runcall(read_pass, files)
            pstats.Stats(profile).sort_stats("tottime").print_stats(20)
        if args.room is None:
            shutil.rmtree(room)


if __name__ == "__main__":
    main()
