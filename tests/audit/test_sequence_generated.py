"""J506 and J508 on generated rooms of every built-in house (issue 10).

Clean rooms seat newcomers into carried pots of antes (R-DH 11: "the right to pay the
ante (whether single or multiple) at any time and receive a hand"): the audit must
find nothing there. Planted J506 and J508 must be found exactly where they were planted.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from audit.engine import audit_records
from audit.profiles import BUILTIN
from ingest.reader import ParsedHand, read_path
from openers.generator import GenerateConfig, generate
from openers.generator.generate import LABELS_FILE, LOGS_DIR
from schemas.records import HandRecord

PROFILES = sorted(BUILTIN)


def _room(out: Path, profile: str, **config: object) -> list[HandRecord]:
    generate(GenerateConfig(profile=profile, **config), out)  # type: ignore[arg-type]
    records: list[HandRecord] = []
    for path in sorted((out / LOGS_DIR).iterdir()):
        records.extend(item.record for item in read_path(path) if isinstance(item, ParsedHand))
    return records


def _newcomers_in_carried_pots(records: list[HandRecord]) -> list[str]:
    """Deals with Carried > 0 that seat a player the table's deal before did not seat."""
    by_table: dict[str, list[HandRecord]] = {}
    for r in records:
        by_table.setdefault(r.table_id, []).append(r)
    found = []
    for deals in by_table.values():
        deals.sort(key=lambda r: (r.time, r.hand_id))
        for before, deal in itertools.pairwise(deals):
            seated = {s.player_id for s in before.seats}
            if deal.carried and any(s.player_id not in seated for s in deal.seats):
                found.append(deal.hand_id)
    return found


@pytest.mark.parametrize("profile", PROFILES)
def test_clean_rooms_seat_newcomers_into_carried_antes_without_finding(
        tmp_path: Path, profile: str) -> None:
    records = _room(tmp_path / "room", profile, hands=2400, tables=3, seed=11)
    newcomers = _newcomers_in_carried_pots(records)
    results = audit_records(records, BUILTIN[profile])
    flagged = {r.hand_id: [f.code for f in r.findings] for r in results if r.findings}
    assert flagged == {}
    assert newcomers, "the generator seated no newcomer into a carried pot of antes"


@pytest.mark.parametrize("profile", PROFILES)
def test_planted_j506_and_j508_are_found_where_planted(tmp_path: Path, profile: str) -> None:
    out = tmp_path / "room"
    records = _room(out, profile, hands=1500, tables=3, seed=5, violations=0.25,
                    codes=("J506", "J508"))
    planted: dict[str, set[str]] = {}
    for line in (out / LABELS_FILE).read_text().splitlines():
        row = json.loads(line)
        planted[row["hand_id"]] = set(row["codes"])
    found: dict[str, set[str]] = {}
    for r in audit_records(records, BUILTIN[profile]):
        found[r.hand_id] = {f.code for f in r.findings}
    for code in ("J506", "J508"):
        want = {h for h, codes in planted.items() if code in codes}
        got = {h for h, codes in found.items() if code in codes}
        assert got == want, code
    assert any("J506" in c for c in planted.values())
    if BUILTIN[profile].unproven_opener_penalty_antes:
        assert any("J508" in c for c in planted.values())


def test_j506_looks_closely_only_at_the_deals_it_reports(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """J506 follows carried pots back in columns: of the deals dealt into a pot with
    forfeited money (most of them seat only players who were there), only those it
    reports reach the per-deal code that writes the finding."""
    from audit.rules.j506_ineligible_player_dealt_in import IneligiblePlayerDealtIn

    looked: list[str] = []
    deal = IneligiblePlayerDealtIn._deal.__func__  # type: ignore[attr-defined]

    def counted(cls: type, ctx: Any, row: int, pots: Any) -> Any:
        looked.append(ctx.labels.hand_id(row))
        return deal(cls, ctx, row, pots)

    monkeypatch.setattr(IneligiblePlayerDealtIn, "_deal", classmethod(counted))
    records = _room(tmp_path / "room", "robert", hands=1500, tables=3, seed=5,
                    violations=0.25, codes=("J506",))
    carried_forfeits = {r.hand_id for before, r in itertools.pairwise(records)
                        if r.table_id == before.table_id and r.carried}
    reported = {r.hand_id for r in audit_records(records, BUILTIN["robert"])
                if any(f.code == "J506" for f in r.findings)}
    assert reported
    assert len(carried_forfeits) > len(reported)  # many deals a slower rule would follow
    assert sorted(looked) == sorted(reported)
