"""What a report shows, as plain data: the queries fill it, the renderers print it.

Keeping the content separate from the HTML lets ``summary.json`` and
``findings.csv`` say exactly what the page says.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import date, datetime
from typing import Any

from audit.integrity.summary import IntegritySummary
from openers.report.charts import DayCounts

SEVERITIES: tuple[str, ...] = ("critical", "major", "minor")


@dataclass(frozen=True)
class Totals:
    """The night's (or the period's) figures."""

    files: int
    hands: int
    duplicates: int
    quarantined: int
    unverifiable: int
    findings: dict[str, int]
    tables: int

    @property
    def findings_total(self) -> int:
        """All findings, every severity."""
        return sum(self.findings.values())


@dataclass(frozen=True)
class CountRow:
    """One line of a breakdown (by code, table or dealer)."""

    key: str
    label: str
    critical: int
    major: int
    minor: int

    @property
    def total(self) -> int:
        """All findings on this line."""
        return self.critical + self.major + self.minor

    @property
    def worst(self) -> str:
        """The worst severity present (for the bar colour)."""
        for severity in SEVERITIES:
            if getattr(self, severity):
                return severity
        return "minor"


@dataclass(frozen=True)
class FindingRow:
    """One finding with what a reviewer needs beside it."""

    code: str
    name: str
    severity: str
    hand_id: str
    table_id: str
    dealer_id: str | None
    time: datetime | None
    line: int | None
    action_index: int | None
    seat: int | None
    message: str
    evidence: dict[str, Any]
    source: str
    source_file: str | None
    #: The log lines around the offending line: (line number, text); review rows only.
    excerpt: tuple[tuple[int, str], ...] = ()


@dataclass(frozen=True)
class QuarantineRow:
    """One hand that could not be read."""

    file: str
    line: int | None
    hand_id: str | None
    error: str


@dataclass(frozen=True)
class RuleDoc:
    """A rule's text from the audit registry, shown beside its findings."""

    code: str
    name: str
    severity: str
    source: str
    text: str


@dataclass
class Report:
    """Everything one report shows."""

    title: str
    scope: str
    generated_at: datetime
    run_id: int | None
    run_status: str | None
    totals: Totals
    by_code: list[CountRow]
    by_table: list[CountRow]
    by_dealer: list[CountRow]
    findings: list[FindingRow]
    review: list[FindingRow]
    quarantine: list[QuarantineRow]
    quarantine_total: int
    daily: list[DayCounts]
    rules: dict[str, RuleDoc] = field(default_factory=dict)
    #: The store's latest integrity analysis (None: never run).
    integrity: IntegritySummary | None = None

    def summary(self) -> dict[str, Any]:
        """The machine-readable summary written to ``summary.json``."""
        return {
            "title": self.title,
            "scope": self.scope,
            "generated_at": self.generated_at.isoformat(),
            "run_id": self.run_id,
            "run_status": self.run_status,
            "totals": {
                **{k: v for k, v in asdict(self.totals).items() if k != "findings"},
                "findings": self.totals.findings_total,
                "findings_by_severity": self.totals.findings,
            },
            "findings_by_code": {r.key: r.total for r in self.by_code},
            "findings_by_table": {r.key: r.total for r in self.by_table},
            "findings_by_dealer": {r.key: r.total for r in self.by_dealer},
            "findings_per_day": [
                {"day": _iso(d.day), "critical": d.critical, "major": d.major, "minor": d.minor}
                for d in self.daily
            ],
            "review_first": [f"{f.hand_id}:{f.line}" if f.line else f.hand_id
                             for f in self.review],
            "quarantined": self.quarantine_total,
            "integrity": self.integrity.summary() if self.integrity else None,
        }


def _iso(day: date) -> str:
    return day.isoformat()
