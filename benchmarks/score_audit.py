"""Score the audit against the generator's planted violations (its ground truth).

``openers generate --out DIR --violations 0.3`` writes ``DIR/logs`` and
``DIR/labels.jsonl`` (the codes planted in each hand). This audits ``DIR/logs``
as ``openers check`` does and prints, per code, how many planted hands were
flagged (tp), missed (fn), and how many hands were flagged without a plant (fp).

Run: ``.venv/bin/python benchmarks/score_audit.py DIR [--profile robert] [--select B]``
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from audit.batch import check_paths
from audit.profiles import load_profile


def main() -> None:
    """Print one line per code: planted, tp, fn, fp, and examples of misses."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path, help="The generator's output directory.")
    parser.add_argument("--profile", default="robert")
    parser.add_argument("--select", default="", help="Only codes with this prefix.")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    labels: dict[str, set[str]] = {}
    for line in (args.out / "labels.jsonl").read_text().splitlines():
        row = json.loads(line)
        labels[row["hand_id"]] = set(row["codes"])
    report = check_paths([args.out / "logs"], load_profile(args.profile), workers=args.workers)
    found: dict[str, set[str]] = defaultdict(set)
    for result in report.results:
        found[result.hand_id].update(f.code for f in result.findings)
    unverifiable = sum(len(r.unverifiable) for r in report.results)
    print(f"{report.hands} hands, {len(report.problems)} unreadable, "
          f"{unverifiable} unverifiable checks")
    codes = {c for s in labels.values() for c in s} | {c for s in found.values() for c in s}
    for code in sorted(c for c in codes if c.startswith(args.select)):
        planted = [h for h, s in labels.items() if code in s]
        missed = [h for h in planted if code not in found[h]]
        extra = [h for h, s in found.items() if code in s and code not in labels.get(h, ())]
        print(f"{code}: planted {len(planted):4d}  tp {len(planted) - len(missed):4d}  "
              f"fn {len(missed):4d}  fp {len(extra):4d}  "
              f"e.g. missed {missed[:2]} extra {extra[:2]}")


if __name__ == "__main__":
    main()
