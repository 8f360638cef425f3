"""Print what the audit finds in each hand of a fixture file (a helper for fixture authors).

``python -m tests.audit.findings_of tests/audit/fixtures/B101.log``
"""

from __future__ import annotations

import sys
from pathlib import Path

from audit.engine import AuditResult, audit_hand, audit_hands
from audit.profiles import load_profile
from ingest.parser import parse_hand
from tests.audit.harness import FixtureHand, read_fixture


def _sequence_results(hands: list[FixtureHand]) -> dict[str, AuditResult]:
    """J fixtures: each profile's hands of the file audited as deal sequences."""
    out: dict[str, AuditResult] = {}
    for profile in {h.profile for h in hands}:
        records = [parse_hand(h.text, first_line=h.first_line) for h in hands
                   if h.profile == profile]
        out.update((r.hand_id, r) for r in audit_hands(records, load_profile(profile)))
    return out


def main(argv: list[str]) -> None:
    """Print each hand's expectations and findings."""
    for path in argv:
        hands = read_fixture(Path(path))
        sequences = _sequence_results(hands) if Path(path).stem.startswith("J") else {}
        for hand in hands:
            record = parse_hand(hand.text, first_line=hand.first_line)
            result = sequences.get(record.hand_id) or audit_hand(record,
                                                                  load_profile(hand.profile))
            want = "none" if hand.none else ", ".join(
                f"{e.code}{'@' + str(e.line) if e.line else ''}" for e in hand.expected
            )
            print(f"{hand.label()} {record.hand_id} [{hand.profile}] expect {want}")
            for f in result.findings:
                print(f"    {f.code} line={f.line} seat={f.seat} {f.message}")
            for u in result.unverifiable:
                print(f"    unverifiable {u.code}: {u.reason}")


if __name__ == "__main__":
    main(sys.argv[1:])
