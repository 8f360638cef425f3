"""Every hand of every rule fixture gives exactly the findings its comments expect."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

import pytest

from audit.engine import AuditResult, audit_records
from audit.profiles import BUILTIN
from ingest.parser import parse_hand
from tests.audit.harness import FixtureHand, all_fixture_hands, fixture_results

HANDS = all_fixture_hands()
_RESULTS: dict[str, AuditResult] = {}


def _audit(hand: FixtureHand) -> AuditResult:
    """The hand's result (every fixture audited once, J files as deal sequences)."""
    if not _RESULTS:
        _RESULTS.update((h.label(), r) for h, r in zip(HANDS, fixture_results(HANDS),
                                                       strict=True))
    return _RESULTS[hand.label()]


def _describe(result: AuditResult) -> str:
    lines = [f"{f.code} line={f.line} seat={f.seat}: {f.message}" for f in result.findings]
    lines += [f"unverifiable {u.code}: {u.reason}" for u in result.unverifiable]
    return "\n".join(lines) or "(nothing)"


@pytest.mark.parametrize("hand", HANDS, ids=[h.label() for h in HANDS])
def test_fixture_hand(hand: FixtureHand) -> None:
    result = _audit(hand)
    report = _describe(result)
    errors = [u for u in result.unverifiable if "internal error" in u.reason]
    assert not errors, report
    if hand.none:
        unexpected = [f for f in result.findings if f.code not in hand.allow]
        assert not unexpected, f"near miss flagged:\n{report}"
        return
    code = hand.fixture_code
    own = [e for e in hand.expected if e.code == code and not e.unverifiable]
    got_own = [f for f in result.findings if f.code == code]
    assert len(got_own) == len(own), f"expected {len(own)} x {code}, got:\n{report}"
    want_lines: Counter[int | None] = Counter(e.line for e in own if e.line is not None)
    got_lines: Counter[int | None] = Counter(f.line for f in got_own)
    assert not want_lines - got_lines, f"expected lines {dict(want_lines)}, got:\n{report}"
    got_codes = {f.code for f in result.findings}
    extra = got_codes - {e.code for e in hand.expected if not e.unverifiable} - hand.allow
    assert not extra, f"unexpected codes {sorted(extra)} (expect or allow them):\n{report}"
    unverifiable = {u.code for u in result.unverifiable}
    for e in hand.expected:
        if e.unverifiable:
            assert e.code in unverifiable, f"expected {e.code} unverifiable, got:\n{report}"
        else:
            assert e.code in got_codes, f"expected {e.code}, got:\n{report}"


def test_fixture_hands_are_unique() -> None:
    """Two fixture hands with one id would hide each other in sequence audits."""
    seen: dict[str, list[str]] = defaultdict(list)
    for h in HANDS:
        seen[parse_hand(h.text, first_line=h.first_line).hand_id].append(h.label())
    assert {k: v for k, v in seen.items() if len(v) > 1} == {}


CLEAN = [h for h in HANDS if h.file.stem == "clean"]
EXAMPLE = Path(__file__).resolve().parents[2] / "ingest" / "samples" / "spec_example.log"


@pytest.mark.parametrize("profile", sorted(BUILTIN))
def test_clean_complex_hands_give_nothing_under_every_profile(profile: str) -> None:
    """Side pots, five-card draws, split pots, joker flushes and wheels, passed-out deals,
    and the format spec's example: no finding, nothing unverifiable, whatever the house."""
    records = [parse_hand(h.text, first_line=h.first_line) for h in CLEAN]
    records.append(parse_hand(EXAMPLE.read_text()))
    assert len(records) >= 8
    for result in audit_records(records, BUILTIN[profile], sequences=False):
        assert (result.findings, result.unverifiable) == ([], []), _describe(result)
