"""Print what the audit finds in each hand of a fixture file (a helper for fixture authors).

``python -m tests.audit.findings_of tests/audit/fixtures/B101.log``
"""

from __future__ import annotations

import sys
from pathlib import Path

from audit.engine import audit_hand
from audit.profiles import load_profile
from ingest.parser import parse_hand
from tests.audit.harness import read_fixture


def main(argv: list[str]) -> None:
    """Print each hand's expectations and findings."""
    for path in argv:
        for hand in read_fixture(Path(path)):
            record = parse_hand(hand.text, first_line=hand.first_line)
            result = audit_hand(record, load_profile(hand.profile))
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
