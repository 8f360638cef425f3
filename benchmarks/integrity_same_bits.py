"""Whether two integrity runs give the same cells, alerts and PIT histograms, and by how much
they differ: between batch sizes, with and without the worker, or between two trees.

    .venv/bin/python benchmarks/integrity_same_bits.py dump STORE OUT [--batch-hands N]
        [--workers 0|1]
    .venv/bin/python benchmarks/integrity_same_bits.py compare ONE.pkl OTHER.pkl

``dump`` runs the analysis on ``STORE`` (read-only) and pickles every cell, alert and
histogram as plain values; run it from another tree's folder with ``PYTHONPATH`` set to
that folder to dump that tree's code (a base from ``git archive``). ``compare`` prints the
cells differing per test, the largest relative difference per figure, whether the alerts
(keys, ranks, hands) and the histograms are the same, and exits 1 when anything differs.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import pickle
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import duckdb

from audit.integrity.engine import Options, run_integrity
from audit.integrity.frames import BATCH_HANDS

FIGURES = ("observed", "expected", "effect", "ci_low", "ci_high", "p_value", "q_value")
Run = dict[str, list[dict[str, Any]]]


def _plain(item: Any) -> dict[str, Any]:
    """A cell, alert or histogram's fields (its evidence callback left out)."""
    return {f.name: getattr(item, f.name) for f in dataclasses.fields(item)
            if not callable(getattr(item, f.name))}


def dump(store: Path, out: Path, batch_hands: int, workers: int) -> None:
    """Analyse ``store`` and pickle the run to ``out``."""
    con = duckdb.connect(str(store), read_only=True)
    try:
        result = run_integrity(con, Options(batch_hands=batch_hands, workers=workers))
    finally:
        con.close()
    run: Run = {"tested": [_plain(t) for t in result.tested],
                "alerts": [_plain(a) for a in result.alerts],
                "bins": [_plain(b) for b in result.bins]}
    out.write_bytes(pickle.dumps(run))
    print(f"{out}: {len(result.tested):,} cells, {len(result.alerts)} alerts")


def _relative(x: float, y: float) -> float:
    if x == y or (math.isnan(x) and math.isnan(y)):
        return 0.0
    return abs(x - y) / max(abs(x), abs(y))


def compare(one: Run, other: Run) -> bool:
    """Print how the runs differ; True when they are the same to the bit."""
    def key(t: dict[str, Any]) -> tuple[str, str, str]:
        return (t["code"], str(t["level"]), t["subject_key"])

    cells = {key(t): t for t in one["tested"]}
    others = {key(t): t for t in other["tested"]}
    if cells.keys() != others.keys():
        print(f"different cells: {len(cells.keys() ^ others.keys())} in one run only")
        return False
    differing: Counter[str] = Counter()
    worst = dict.fromkeys(FIGURES, 0.0)
    for k, cell in cells.items():
        twin = others[k]
        if any(cell[f] != twin[f] for f in FIGURES) or cell["n"] != twin["n"] \
                or cell["flagged"] != twin["flagged"]:
            differing[k[0]] += 1
        for f in FIGURES:
            worst[f] = max(worst[f], _relative(cell[f], twin[f]))
    print(f"cells: {len(cells):,}, differing {sum(differing.values()):,} {dict(differing)}")
    print("largest relative difference: "
          + ", ".join(f"{f} {v:.2e}" for f, v in worst.items()))
    same_alerts = [(a["alert_key"], a["rank"], a["hands"]) for a in one["alerts"]] \
        == [(a["alert_key"], a["rank"], a["hands"]) for a in other["alerts"]]
    alert_fields = Counter(f for a, b in zip(one["alerts"], other["alerts"], strict=False)
                           for f in a if a[f] != b[f])
    print(f"alerts: {len(one['alerts'])} and {len(other['alerts'])}; same keys, ranks and "
          f"hands: {same_alerts}; fields differing: {dict(alert_fields)}")
    means = sum(a["mean"] != b["mean"] for a, b in zip(one["bins"], other["bins"], strict=False))
    same_counts = [(b["kind"], b["dealer_id"], b["counts"]) for b in one["bins"]] \
        == [(b["kind"], b["dealer_id"], b["counts"]) for b in other["bins"]]
    print(f"PIT histograms: same counts {same_counts}, means differing {means}")
    return not differing and same_alerts and not alert_fields and same_counts and not means


def main() -> None:
    """Dump a run, or compare two."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("dump")
    d.add_argument("store", type=Path)
    d.add_argument("out", type=Path)
    d.add_argument("--batch-hands", type=int, default=BATCH_HANDS)
    d.add_argument("--workers", type=int, default=0)
    c = sub.add_parser("compare")
    c.add_argument("one", type=Path)
    c.add_argument("other", type=Path)
    args = parser.parse_args()
    if args.command == "dump":
        dump(args.store, args.out, args.batch_hands, args.workers)
        return
    same = compare(pickle.loads(args.one.read_bytes()), pickle.loads(args.other.read_bytes()))
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
