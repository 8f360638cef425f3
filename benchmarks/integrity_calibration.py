"""Calibration of the integrity tests on clean rooms: false alarms and the law of p-values.

For each seed a clean room (default 200,000 hands, 8 tables, no cheat planted; with
``--violations``, planted rule violations as in a nightly room, which are no cheats) is
analysed at FDR 5%. In a clean room every alert is false, so the false discovery
proportion of a room is 1 if it has any alert and 0 otherwise, and its average over
rooms estimates the FDR actually delivered (to be at or under the configured rate).
Per test, the share of cells with p below 0.05 and 0.01 shows each test's calibration
(exact discrete tests sit at or below the nominal share; the two-sided mean tests and
the chi-square tests near it), and the far tail that alerts come from: the cells with p
below 1e-3, 1e-4 and 1e-5 against their expected number (cells times the level; a
calibrated test gives at most that).

Run (CPU-heavy: about 5 minutes per room on 2 cores):
``nice -n 10 .venv/bin/python benchmarks/integrity_calibration.py --dir /tmp/integrity-cal
--seeds 1 2 3 4``. At a nightly room's scale (one room is 15-60 minutes to generate on a
loaded machine, then 2 minutes to ingest and 1 to analyse):
``nice -n 10 .venv/bin/python benchmarks/integrity_calibration.py --dir /tmp/integrity-cal
--seeds 5 --hands 1000000 --tables 40 --violations 0.02``
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

import duckdb
import numpy as np
from integrity_rooms import room, workers_default

from audit.integrity.engine import Options, run_integrity
from audit.integrity.test import Settings

#: The far-tail levels counted per test.
TAIL = (1e-3, 1e-4, 1e-5)


def main() -> None:
    """Print, per seed, the alerts of a clean room; then per test the share of small p."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dir", type=Path, required=True, help="Folder for the rooms.")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4])
    parser.add_argument("--hands", type=int, default=200_000)
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--violations", type=float, default=0.0,
                        help="Share of deals with a planted rule violation.")
    parser.add_argument("--fdr", type=float, default=0.05)
    parser.add_argument("--workers", type=int, default=workers_default())
    args = parser.parse_args()
    p_values: dict[str, list[float]] = defaultdict(list)
    false_rooms = 0
    for seed in args.seeds:
        name = f"clean-{seed}" + (f"-v{args.violations:g}" if args.violations else "")
        store = room(args.dir / name, hands=args.hands, tables=args.tables, seed=seed,
                     workers=args.workers, violations=args.violations)
        con = duckdb.connect(str(store), read_only=True)
        result = run_integrity(con, Options(settings=Settings(fdr=args.fdr)))
        con.close()
        false_rooms += bool(result.alerts)
        print(f"seed {seed}: {result.hands:,} hands, {len(result.tested):,} cells, "
              f"{len(result.alerts)} alerts (false discovery proportion "
              f"{1.0 if result.alerts else 0.0:.0f}), {result.seconds:.0f} s")
        for a in result.alerts:
            print(f"    {a.code} {a.level.value} q={a.q_value:.2g} {a.message[:140]}")
        for t in result.tested:
            p_values[t.code].append(t.p_value)
    print(f"\nrooms with any alert: {false_rooms} of {len(args.seeds)} "
          f"(estimated FDR {false_rooms / len(args.seeds):.2f}; configured {args.fdr})")
    print("\ntest  cells   p<0.05  p<0.01  (shares over every room)   "
          "p<1e-3  p<1e-4  p<1e-5 (cells, and at most expected)")
    for code in sorted(p_values):
        p = np.array(p_values[code])
        tail = "  ".join(f"{int(np.sum(p < level)):4d} ({len(p) * level:.1f})"
                         for level in TAIL)
        print(f"{code}  {len(p):6d}   {np.mean(p < 0.05):.4f}  {np.mean(p < 0.01):.4f}   {tail}")


if __name__ == "__main__":
    main()
