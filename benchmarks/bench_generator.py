"""Benchmark ``openers generate``: hands per second, on one process and on every core.

Run: ``.venv/bin/python benchmarks/bench_generator.py [--hands N] [--tables T] [--score]``.
Prints the figures; ``--score`` also ingests and audits the output and prints planted
vs found per code (the same comparison as ``python -m openers.generator.scoring``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

from openers.generator import GenerateConfig, generate
from openers.generator.scoring import score


def run(hands: int, tables: int, workers: int, profile: str, out: Path) -> float:
    """Generate into ``out`` and return hands per second."""
    shutil.rmtree(out, ignore_errors=True)
    cfg = GenerateConfig(hands=hands, tables=tables, seed=1, profile=profile, violations=0.05,
                         unrecorded_share=0.05, broken_share=0.005, workers=workers)
    start, cpu = time.perf_counter(), time.process_time()
    summary = generate(cfg, out)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    size = sum(p.stat().st_size for p in (out / "logs").iterdir())
    # CPU time of this process only: meaningful for the one-worker run (no children).
    per_cpu = f", {summary.hands / cpu:8,.0f} hands/CPU-s" if workers == 1 else ""
    print(f"{summary.hands:>9,} hands, {tables} tables, {workers} worker(s): {seconds:7.1f} s, "
          f"{summary.hands / seconds:8,.0f} hands/s{per_cpu}, {size / 1e6:6.1f} MB, "
          f"{sum(summary.planted.values()):,} planted, {sum(summary.broken.values()):,} broken")
    return summary.hands / seconds


def main() -> None:
    """Parse the options and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=100_000)
    parser.add_argument("--tables", type=int, default=16)
    parser.add_argument("--profile", default="robert")
    parser.add_argument("--score", action="store_true", help="also audit and compare labels")
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0))
    print(f"load average {os.getloadavg()[0]:.1f} on {cores} cores (figures assume an idle box)")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "room"
        run(max(args.hands // 10, 1000), args.tables, 1, args.profile, out)
        rate = run(args.hands, args.tables, cores, args.profile, out)
        print(f"1,000,000 hands at this rate: {1_000_000 / rate / 60:.1f} min on {cores} cores")
        if args.score:
            start = time.perf_counter()
            result = score(out, args.profile, workers=cores)
            print(result.table())
            print(f"ingest + audit + compare: {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
