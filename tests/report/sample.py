"""A report built by hand, to test the renderers apart from the store."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from openers.report.charts import DayCounts
from openers.report.model import (
    Case,
    Changes,
    Comparison,
    CountRow,
    DecisionGroup,
    FindingRow,
    QuarantineRow,
    Report,
    RuleDoc,
    Totals,
)

HOSTILE = '<img src=x onerror="alert(1)">'
FORMULA = "=HYPERLINK(\"http://evil.example\",\"x\")"


def sample_report() -> Report:
    """Two findings (one with hostile text), one quarantined hand, 30 days of counts."""
    finding = FindingRow(
        code="B101", name="over-cap-raise", severity="major", hand_id="BCY-T01-000004",
        table_id="T01", dealer_id="D-4401", time_text="2026-11-28 20:08:00 -08:00",
        line=31, action_index=9, seat=3, player_id="P-30988",
        message="seat 3 made bet number 6 of the round",
        evidence={"bets": 6, "cap": 5, "amount": 1000, "opened_line": 27}, source="R-DH 1",
        source_file="/in/t01.log",
        link="https://audit.example/hand?hand_id=BCY-T01-000004",
        excerpt=((27, "Seat 1: opens 10"), (30, "Seat 1: raises 10 to 50"),
                 (31, "Seat 3: raises 10 to 60")),
        highlight=frozenset({31, 27}),
        case=Case("escalated", None, "bo", "2026-11-30", "ana", "2026-11-29T07:00:00+00:00",
                  "ask the floor"),
    )  # fmt: skip
    hostile = FindingRow(
        code="P402", name="chips-not-conserved", severity="critical", hand_id="BCY-T02-000001",
        table_id="T02", dealer_id=FORMULA, time_text="", line=None, action_index=None,
        seat=None, player_id=None, message=HOSTILE, evidence={"note": HOSTILE}, source="—",
        source_file=None, link="https://audit.example/hand?hand_id=BCY-T02-000001",
    )  # fmt: skip
    first = date(2026, 10, 30)
    daily = [DayCounts(first + timedelta(days=i), critical=i % 3 == 0, major=i % 4,
                       minor=i % 5) for i in range(30)]  # fmt: skip
    return Report(
        title="Nightly audit report",
        scope="nightly run #7",
        generated_at=datetime(2026, 11, 29, 6, 0, tzinfo=UTC),
        run_id=7,
        run_status="ok",
        totals=Totals(files=2, hands=120, duplicates=3, quarantined=1, unverifiable=4,
                      findings={"critical": 1, "major": 1, "minor": 0}, tables=2),
        by_code=[CountRow("P402", "chips-not-conserved", 1, 0, 0),
                 CountRow("B101", "over-cap-raise", 0, 1, 0)],
        by_table=[CountRow("T02", "T02", 1, 0, 0), CountRow("T01", "T01", 0, 1, 0)],
        by_dealer=[CountRow("D-4401", "D-4401", 0, 1, 0)],
        findings=[hostile, finding],
        quarantine=[QuarantineRow("/in/t01.log", 77, None, f"line 80: unknown verb {HOSTILE}")],
        quarantine_total=1,
        daily=daily,
        rules={"B101": RuleDoc("B101", "over-cap-raise", "major", "R-DH 1",
                               "What it does: counts raises.")},
        first_day=date(2026, 11, 28),
        last_day=date(2026, 11, 28),
        rooms=("Bay City Card Club",),
        profile="robert",
        needs_decision=[DecisionGroup("T02", FORMULA, (hostile,))],
        changes=Changes(against=(Comparison("run #6", 0, 3, 1),), new_codes=("P402",),
                        new_dealers=(FORMULA,)),
    )  # fmt: skip
