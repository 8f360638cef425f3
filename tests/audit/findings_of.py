"""Print what the audit finds in each hand of a fixture file (a helper for fixture authors).

``python -m tests.audit.findings_of tests/audit/fixtures/B101.log``
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.audit.harness import fixture_results, read_fixture


def main(argv: list[str]) -> None:
    """Print each hand's expectations and findings."""
    for path in argv:
        hands = read_fixture(Path(path))
        for hand, result in zip(hands, fixture_results(hands), strict=True):
            want = "none" if hand.none else ", ".join(
                f"{e.code}{'@' + str(e.line) if e.line else ''}" for e in hand.expected
            )
            print(f"{hand.label()} {result.hand_id} [{hand.profile}] expect {want}")
            for f in result.findings:
                print(f"    {f.code} line={f.line} lines={f.lines} seat={f.seat} {f.message}")
            for u in result.unverifiable:
                print(f"    unverifiable {u.code}: {u.reason}")


if __name__ == "__main__":
    main(sys.argv[1:])
