"""Time and memory of ``openers integrity`` on a large store (the target: 1,000,000 hands in
under 5 minutes, memory flat).

Makes (once) a room of ``--hands`` hands with a crooked dealer and a colluding pair,
then runs the whole command, ``openers integrity --db STORE --format json``, in a fresh
interpreter on growing prefixes of the store (``--until``), and prints wall-clock time,
hands per second and peak resident memory of each run: flat memory means the peak does
not grow with the hands read.

Run (CPU-heavy: the 1M-hand room takes about an hour to make on 2 busy cores):
``nice -n 10 .venv/bin/python benchmarks/integrity_speed.py --dir /tmp/integrity-speed``;
or, from five 200,000-hand rooms the calibration and power benchmarks already made,
``... integrity_speed.py --dir /tmp/integrity-speed --from-rooms /tmp/integrity-cal/clean-1
/tmp/integrity-cal/clean-2 ... /tmp/integrity-power``
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import duckdb
from integrity_power import cut_days
from integrity_rooms import OPENERS, merge_rooms, room, workers_default


def measure(store: Path, until: str | None) -> tuple[float, float]:
    """Seconds and peak RSS (MB) of one ``openers integrity`` run.

    The command runs under a fresh intermediate interpreter whose only child it is, so
    that interpreter's ``RUSAGE_CHILDREN`` peak is this run's alone.
    """
    args = [OPENERS, "integrity", "--db", str(store), "--format", "json"]
    if until:
        args += ["--until", until]
    probe = ("import resource, subprocess, sys; "
             "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL); "
             "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", probe, *args], check=True,
                          capture_output=True, text=True)
    seconds = time.perf_counter() - started
    return seconds, int(done.stdout.strip()) / 1024


def main() -> None:
    """Print time and memory per prefix of the store."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dir", type=Path, required=True)
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--tables", type=int, default=16)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--points", type=int, default=4, help="Prefixes timed.")
    parser.add_argument("--workers", type=int, default=workers_default())
    parser.add_argument("--from-rooms", type=Path, nargs="*", default=None,
                        help="Instead of generating a room: merge these rooms (folders made "
                        "by the other integrity benchmarks) into one store.")
    args = parser.parse_args()
    if args.from_rooms:
        store = merge_rooms(args.from_rooms, args.dir, args.workers)
    else:
        store = room(args.dir, hands=args.hands, tables=args.tables, seed=args.seed,
                     workers=args.workers,
                     cheats=("--crooked-dealers", "1", "--colluders", "1"))
    con = duckdb.connect(str(store), read_only=True)
    cuts = cut_days(con, args.points)
    con.close()
    measure(store, cuts[0][0].isoformat())  # warm the compiled-code cache once
    print("hands        seconds   hands/s    peak RSS (MB)")
    for day, hands in cuts:
        seconds, peak = measure(store, day.isoformat())
        print(f"{hands:>10,}   {seconds:7.1f}   {hands / seconds:8,.0f}   {peak:8.0f}")


if __name__ == "__main__":
    main()
