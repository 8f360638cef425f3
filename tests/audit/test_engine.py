"""The engine: suppression of general findings, deal sequences, rule errors, the pool."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

from audit.batch import CheckReport, check_paths
from audit.engine import audit_hand, audit_sequences, sequence_pairs, suppress
from audit.profiles import load_profile
from audit.rule import HandContext, Result, Rule, SequenceContext, SequenceRule
from audit.units import plan_units
from ingest.parser import parse_hand
from schemas.findings import Finding, Severity
from tests.audit.harness import FIXTURES, read_fixture

EXAMPLE = Path(__file__).resolve().parents[2] / "ingest" / "samples" / "spec_example.log"


def _finding(code: str, line: int = 1, seat: int = 1, pot: int = 0, hand: str = "H") -> Finding:
    return Finding(code=code, name="x-y", severity=Severity.MAJOR, hand_id=hand, table_id="T",
                   line=line, seat=seat, message="m", evidence={"pot": pot}, source="-")


def test_special_findings_suppress_general_ones() -> None:
    kept = suppress([
        _finding("B107", line=27, seat=2), _finding("B105", line=27, seat=2),
        _finding("B105", line=30, seat=3), _finding("B106", line=35, seat=2),
        _finding("B106", line=35, seat=3), _finding("P403", pot=1), _finding("P401", pot=1),
        _finding("P401", pot=0), _finding("O204"), _finding("O205", line=9),
        _finding("O208", seat=4), _finding("O202", seat=4), _finding("O202", seat=5),
    ])
    assert sorted((f.code, f.line, f.seat, f.evidence["pot"]) for f in kept) == [
        ("B105", 30, 3, 0), ("B106", 35, 3, 0), ("B107", 27, 2, 0), ("O202", 1, 5, 0),
        ("O204", 1, 1, 0), ("O208", 1, 4, 0), ("P401", 1, 1, 0), ("P403", 1, 1, 1)]


class _Crashes(Rule):
    code = "B199"
    name = "always-crashes"
    severity = Severity.MINOR
    source = "-"
    summary = "test"

    def check(self, ctx: HandContext) -> Iterator[Result]:
        raise RuntimeError("boom")


def test_a_crashing_rule_is_reported_not_fatal() -> None:
    record = parse_hand(EXAMPLE.read_text())
    result = audit_hand(record, load_profile("robert"), [_Crashes()])
    assert result.findings == [] and "internal error in B199" in result.unverifiable[0].reason
    assert result.errors == result.unverifiable  # kept apart so callers cannot pass the hand


class _SequenceCrashes(SequenceRule):
    code = "J599"
    name = "always-crashes"
    severity = Severity.MINOR
    source = "-"
    summary = "test"

    def check(self, ctx: SequenceContext) -> Iterator[Result]:
        raise RuntimeError("boom")


def test_a_crashing_sequence_rule_is_reported_on_the_deal_even_a_first_one() -> None:
    record = parse_hand(EXAMPLE.read_text())
    results = audit_sequences([record], load_profile("robert"), [_SequenceCrashes()])
    assert [(r.hand_id, len(r.errors)) for r in results] == [(record.hand_id, 1)]
    assert "internal error in J599: RuntimeError: boom" in results[0].errors[0].reason


class _SeesPairs(SequenceRule):
    code = "J599"
    name = "sees-pairs"
    severity = Severity.MINOR
    source = "-"
    summary = "test"

    def check(self, ctx: SequenceContext) -> Iterator[Result]:
        if ctx.previous is None:
            assert ctx.previous_replay is None
            yield ctx.finding("first", line=ctx.current.first_line)
            return
        assert ctx.previous.time < ctx.current.time
        replay = ctx.previous_replay
        assert replay is not None and replay.record is ctx.previous
        yield ctx.finding(f"after {ctx.previous.hand_id}", line=ctx.current.first_line)


def test_sequences_pair_consecutive_deals_of_each_table_by_time() -> None:
    base = parse_hand(EXAMPLE.read_text())
    deals = [
        base.model_copy(update={"hand_id": f"H{i}", "table_id": table,
                                "time": base.time + timedelta(minutes=minute)})
        for i, (table, minute) in enumerate([("T1", 5), ("T2", 1), ("T1", 0), ("T1", 9)])
    ]
    pairs = [(a.hand_id if a else None, b.hand_id) for a, b in sequence_pairs(deals)]
    assert sorted(pairs, key=str) == [("H0", "H3"), ("H2", "H0"), (None, "H1"), (None, "H2")]
    results = audit_sequences(deals, load_profile("robert"), [_SeesPairs()])
    assert {(r.hand_id, r.findings[0].message) for r in results} == {
        ("H0", "after H2"), ("H3", "after H0"), ("H1", "first"), ("H2", "first")}


def test_pool_and_batches_give_the_same_results_as_one_process(tmp_path: Path) -> None:
    text = "\n\n".join(h.text for h in read_fixture(FIXTURES / "B101.log"))
    big = tmp_path / "big.log"
    big.write_text("# header comment\n\n" + text + "\n")
    lines = big.read_text().splitlines()
    starts = [n for n, line in enumerate(lines, 1) if line.startswith("Hand: ")]
    units = plan_units([big], unit_bytes=200).units
    assert len(units) > 2 and units[0].first_line == 1
    assert [u.first_line for u in units[1:]] == [n for n in starts if n in
                                                  {u.first_line for u in units[1:]}]
    betting = load_profile("robert").with_selection(select=["B"])
    one = check_paths([big], betting, workers=1)
    two = check_paths([big], betting, workers=2, unit_bytes=200)
    assert one.hands == two.hands == 6
    assert [r.hand_id for r in one.results] == [r.hand_id for r in two.results]
    assert [f.model_dump() for r in one.results for f in r.findings] == [
        f.model_dump() for r in two.results for f in r.findings]
    cited = [f.line for r in two.results for f in r.findings]
    assert len(cited) == 4  # the fixture's foster hand is audited with robert here
    assert all(lines[n - 1].endswith("raises 10 to 60") for n in cited if n is not None)


def test_deal_sequences_survive_batching_across_files(tmp_path: Path) -> None:
    """A table's deals split over files and batches are still paired in time order."""
    hands = read_fixture(FIXTURES / "J504.log")
    for n, h in enumerate(hands):
        (tmp_path / f"part{n % 3}.log").open("a").write(h.text + "\n\n")
    robert = load_profile("robert")
    whole = check_paths([FIXTURES / "J504.log"], robert, workers=1)
    split = check_paths([tmp_path], robert, workers=2, unit_bytes=300)

    def codes(report: CheckReport) -> dict[str, list[str]]:
        return {r.hand_id: sorted(f.code for f in r.findings) for r in report.results}

    assert codes(split) == codes(whole)
    assert any("J504" in c for c in codes(whole).values())


def test_a_replay_failure_makes_the_hand_unverifiable(monkeypatch) -> None:
    import audit.engine

    def broken(record: object) -> None:
        raise RuntimeError("replay bug")

    monkeypatch.setattr(audit.engine, "Replay", broken)
    record = parse_hand(EXAMPLE.read_text())
    result = audit_hand(record, load_profile("robert"), [_Crashes()])
    assert result.findings == []
    assert [u.code for u in result.unverifiable] == [u.code for u in result.errors] == ["B199"]
    assert "internal error in the replay: RuntimeError: replay bug" in result.unverifiable[0].reason


def test_first_deals_are_judged_alone_and_only_once_in_batches() -> None:
    """A table's first deal gets the single-deal J checks (J501 on J501-T4-4); a batch
    that starts inside a table still compares its first deal with the one before."""
    fixtures = [FIXTURES / "J501.log", FIXTURES / "J504.log"]
    robert = load_profile("robert")
    whole = check_paths(fixtures, robert, workers=1)
    split = check_paths(fixtures, robert, workers=1, unit_bytes=300)

    def codes(report: CheckReport) -> dict[str, list[str]]:
        return {r.hand_id: sorted(f.code for f in r.findings) for r in report.results}

    assert codes(split) == codes(whole)
    assert codes(whole)["J501-T4-4"] == ["J501"]
    assert [r.hand_id for r in whole.results].count("J501-T4-4") == 1


def test_an_impossible_split_paid_is_o208_only() -> None:
    """rules.md "O208 over O202": the split seat that could not have held openers and was
    paid unproven is reported as O208, and O202 (which the hand breaks too) is dropped."""
    from audit.rules.o202_unproven_opener_paid import UnprovenOpenerPaid

    hand = next(h for h in read_fixture(FIXTURES / "O208.log") if h.violating)
    record = parse_hand(hand.text, first_line=hand.first_line)
    robert = load_profile("robert")
    alone = audit_hand(record, robert, [UnprovenOpenerPaid()])
    assert [f.code for f in alone.findings] == ["O202"]
    codes = [f.code for f in audit_hand(record, robert).findings]
    assert "O208" in codes and "O202" not in codes
