"""Compare a generated directory's labels with what the real pipeline reports.

Ingests ``DIR/logs`` into an in-memory store (quarantine, conflicts), audits the
stored hands with the real engine, and matches the findings and quarantine rows
hand by hand against ``DIR/labels.jsonl``. Run it as
``python -m openers.generator.scoring DIR --profile robert``.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from audit.profiles import load_profile
from audit.store import audit_store
from ingest.load import ingest_paths
from openers.generator.generate import LABELS_FILE, LOGS_DIR


@dataclass(slots=True)
class Score:
    """Planted vs found, per code; and everything that does not match."""

    planted: Counter[str] = field(default_factory=Counter)
    found: Counter[str] = field(default_factory=Counter)
    #: (hand_id, code): a planted code the audit did not report.
    missed: list[tuple[str, str]] = field(default_factory=list)
    #: (hand_id, code): a finding no label asked for.
    unexpected: list[tuple[str, str]] = field(default_factory=list)
    #: (hand_id, wanted kind, reported kinds): broken input not quarantined as labelled.
    broken_wrong: list[tuple[str, str, str]] = field(default_factory=list)
    #: hand ids of good hands that did not reach the store, or were quarantined.
    lost: list[str] = field(default_factory=list)
    hands: int = 0
    broken: int = 0

    @property
    def ok(self) -> bool:
        """Every planted code found, nothing unexpected, broken input and good hands right."""
        return not (self.missed or self.unexpected or self.broken_wrong or self.lost)

    def table(self) -> str:
        """Planted vs found per code, one line each."""
        lines = [f"{'code':6} {'planted':>8} {'found':>8}"]
        for code in sorted(self.planted):
            lines.append(f"{code:6} {self.planted[code]:8d} {self.found[code]:8d}")
        lines.append(f"hands {self.hands}, broken {self.broken}, missed {len(self.missed)}, "
                     f"unexpected {len(self.unexpected)}, broken wrong "
                     f"{len(self.broken_wrong)}, lost {len(self.lost)}")
        return "\n".join(lines)


def score(out: Path, profile_name: str, workers: int = 1) -> Score:
    """Run ingest and audit on ``out`` and compare with its labels."""
    labels = [json.loads(line) for line in
              (out / LABELS_FILE).read_text(encoding="utf-8").splitlines()]
    con = duckdb.connect()
    try:
        summary = ingest_paths([out / LOGS_DIR], con)
        audit_store(con, load_profile(profile_name), workers=workers)
        rows = con.execute("SELECT hand_id, code FROM findings").fetchall()
    finally:
        con.close()
    found: dict[str, set[str]] = {}
    for hand_id, code in rows:
        found.setdefault(str(hand_id), set()).add(str(code))
    quarantined: dict[str, set[str]] = {}
    for item in summary.problems:
        if item.hand_id is not None:
            quarantined.setdefault(item.hand_id, set()).add(item.kind.value)
    stored = set(summary.stored_ids)
    result = Score(hands=len(labels))
    for label in labels:
        hid, codes = label["hand_id"], set(label["codes"])
        got = found.get(hid, set())
        for code in codes:
            result.planted[code] += 1
            if code in got:
                result.found[code] += 1
            else:
                result.missed.append((hid, code))
        result.unexpected += [(hid, code) for code in sorted(got - codes)]
        kind = label.get("broken")
        if kind is not None:
            result.broken += 1
            if kind not in quarantined.get(hid, set()):
                result.broken_wrong.append((hid, kind, ",".join(sorted(quarantined.get(hid, ())))))
        elif hid not in stored or hid in quarantined:
            result.lost.append(hid)
    return result


def main() -> None:
    """``python -m openers.generator.scoring DIR [--profile NAME] [--workers N]``."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("--profile", default="robert")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--show", type=int, default=10, help="mismatches to list")
    args = parser.parse_args()
    result = score(args.out, args.profile, args.workers)
    print(result.table())
    for name in ("missed", "unexpected", "broken_wrong", "lost"):
        items = getattr(result, name)
        for item in items[: args.show]:
            print(name, item)


if __name__ == "__main__":
    main()
