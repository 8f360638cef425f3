"""Findings pinned like snapshots: what each fixture hand reports, kept beside the fixture.

``tests/audit/fixtures/<CODE>.snap`` holds, for every hand of ``<CODE>.log``, each
finding's code, severity, line, lines, seat, message and evidence, and each rule the
hand was unverifiable for. A change in what a rule reports shows as a diff of that
file to review; accept it with::

    OPENERS_UPDATE_SNAPSHOTS=1 .venv/bin/python -m pytest tests/audit/test_snapshots.py -n 0

The snapshots are the contract a rewrite of a rule (or of the engine) must keep.
"""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path

import pytest

from audit.engine import AuditResult
from tests.audit.harness import FIXTURES, FixtureHand, fixture_results, read_fixture

UPDATE = os.environ.get("OPENERS_UPDATE_SNAPSHOTS", "") not in ("", "0")
FILES = sorted(FIXTURES.glob("*.log"))


def render(hands: list[FixtureHand], results: list[AuditResult]) -> str:
    """The snapshot text of one fixture file: a block per hand, a few lines per finding."""
    out = [f"# What the audit reports on each hand of {hands[0].file.name}.",
           "# Regenerate: OPENERS_UPDATE_SNAPSHOTS=1 pytest tests/audit/test_snapshots.py"]
    for hand, result in zip(hands, results, strict=True):
        out += ["", f"== {hand.label()} {result.hand_id} [{hand.profile}]"]
        for f in result.findings:
            out.append(f"{f.code} {f.severity.value} line={f.line} lines={f.lines} "
                       f"seat={f.seat}")
            out.append(f"  message: {f.message}")
            # A JSON round trip: integer seat keys are strings, as the store keeps them.
            evidence = json.loads(json.dumps(f.evidence))
            out.append(f"  evidence: {json.dumps(evidence, sort_keys=True)}")
        for u in result.unverifiable:
            out.append(f"unverifiable {u.code} seat={u.seat}: {u.reason}")
        if not result.findings and not result.unverifiable:
            out.append("(nothing)")
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_fixture_findings_match_their_snapshot(path: Path) -> None:
    hands = read_fixture(path)
    got = render(hands, fixture_results(hands))
    snap = path.with_suffix(".snap")
    if UPDATE:
        snap.write_text(got, encoding="utf-8")
        return
    assert snap.exists(), f"no snapshot {snap.name}: run with OPENERS_UPDATE_SNAPSHOTS=1"
    want = snap.read_text(encoding="utf-8")
    if got != want:
        diff = "".join(difflib.unified_diff(want.splitlines(keepends=True),
                                            got.splitlines(keepends=True),
                                            f"{snap.name} (kept)", f"{snap.name} (now)"))
        pytest.fail(f"{path.name} reports other findings than its snapshot:\n{diff}")


def test_every_fixture_has_a_snapshot_and_no_snapshot_is_orphaned() -> None:
    logs = {p.stem for p in FILES}
    snaps = {p.stem for p in FIXTURES.glob("*.snap")}
    assert snaps == logs


def test_a_changed_finding_shows_as_a_diff() -> None:
    """The comparison can fail: one evidence figure changed is a different snapshot."""
    hands = read_fixture(FIXTURES / "B101.log")
    results = fixture_results(hands)
    kept = render(hands, results)
    hit = next(r for r in results if r.findings)
    first = hit.findings[0]
    hit.findings[0] = first.model_copy(update={"evidence": {**first.evidence, "cap": 99}})
    assert render(hands, results) != kept
