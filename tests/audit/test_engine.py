"""The engine: suppression of general findings, deal sequences across units, the pool."""

from __future__ import annotations

from pathlib import Path

from audit.batch import CheckReport, check_paths
from audit.engine import audit_records, suppress
from audit.profiles import load_profile
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
    hand = next(h for h in read_fixture(FIXTURES / "O208.log") if h.violating)
    record = parse_hand(hand.text, first_line=hand.first_line)
    robert = load_profile("robert")
    alone = audit_records([record], robert.with_selection(select=["O202"]), sequences=False)
    assert [f.code for f in alone[0].findings] == ["O202"]
    codes = [f.code for f in audit_records([record], robert, sequences=False)[0].findings]
    assert "O208" in codes and "O202" not in codes
