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
class Case:
    """Where an officer's case on a finding stands (``open`` when nobody decided)."""

    status: str = "open"
    reason: str | None = None
    assignee: str | None = None
    due_date: str | None = None
    reviewer: str | None = None
    decided_at: str | None = None
    note: str | None = None


@dataclass(frozen=True)
class FindingRow:
    """One finding with what a reviewer needs beside it."""

    code: str
    name: str
    severity: str
    hand_id: str
    table_id: str
    dealer_id: str | None
    #: The hand's time as the room's clock showed it, with its offset (one format everywhere).
    time_text: str
    line: int | None
    action_index: int | None
    seat: int | None
    player_id: str | None
    message: str
    evidence: dict[str, Any]
    source: str
    source_file: str | None
    link: str = ""
    case: Case = field(default_factory=Case)
    #: The log lines around the finding: (line number, text); lines to highlight below.
    excerpt: tuple[tuple[int, str], ...] = ()
    #: The offender's line(s) and the anchor lines its evidence names (e.g. the opening bet).
    highlight: frozenset[int] = frozenset()

    @property
    def where(self) -> str:
        """``hand:line`` (or the hand alone for a finding on the deal sequence)."""
        return f"{self.hand_id}:{self.line}" if self.line else self.hand_id


@dataclass(frozen=True)
class DecisionGroup:
    """Critical and major findings nobody has decided, at one table under one dealer."""

    table_id: str
    dealer_id: str | None
    findings: tuple[FindingRow, ...]

    @property
    def critical(self) -> int:
        """How many of them are critical."""
        return sum(1 for f in self.findings if f.severity == "critical")


@dataclass(frozen=True)
class Comparison:
    """Findings by severity in another period, to compare this one with."""

    label: str
    critical: float
    major: float
    minor: float


@dataclass(frozen=True)
class Changes:
    """What is different from before: counts, and what was not seen in the last 30 days."""

    against: tuple[Comparison, ...] = ()
    new_codes: tuple[str, ...] = ()
    new_dealers: tuple[str, ...] = ()
    new_players: tuple[str, ...] = ()


@dataclass(frozen=True)
class DataQualityRow:
    """Missing data found by a nightly run (no new hand, a silent table, a thin night)."""

    run_id: int
    code: str
    severity: str
    table_id: str | None
    observed: int | None
    expected: int | None
    message: str


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
    quarantine: list[QuarantineRow]
    quarantine_total: int
    daily: list[DayCounts]
    rules: dict[str, RuleDoc] = field(default_factory=dict)
    first_day: date | None = None
    last_day: date | None = None
    rooms: tuple[str, ...] = ()
    profile: str | None = None
    currency: str = "$"
    needs_decision: list[DecisionGroup] = field(default_factory=list)
    changes: Changes = field(default_factory=Changes)
    data_quality: list[DataQualityRow] = field(default_factory=list)
    #: The store's latest integrity analysis (None: never run).
    integrity: IntegritySummary | None = None

    @property
    def status_word(self) -> str:
        """One word for the header: the worst thing in the report, never "ok" beside a
        critical finding (the job's own word is ``run_status``)."""
        if self.run_status in ("failed", "interrupted"):
            return "FAILED"
        for severity in SEVERITIES:
            if self.totals.findings.get(severity) or any(
                q.severity == severity for q in self.data_quality
            ):
                return severity.upper()
        return "CLEAN"

    @property
    def missing_data(self) -> bool:
        """Whether the run found data missing (the header says so beside the status)."""
        return bool(self.data_quality)

    @property
    def dates_of_play(self) -> str:
        """``2026-11-28`` or ``2026-11-27 to 2026-11-28`` (local days); ``no hands``."""
        if self.first_day is None or self.last_day is None:
            return "no hands"
        if self.first_day == self.last_day:
            return self.first_day.isoformat()
        return f"{self.first_day.isoformat()} to {self.last_day.isoformat()}"

    @property
    def undecided(self) -> int:
        """Critical and major findings nobody has decided."""
        return sum(len(g.findings) for g in self.needs_decision)

    def summary(self) -> dict[str, Any]:
        """The machine-readable summary written to ``summary.json``."""
        return {
            "title": self.title,
            "scope": self.scope,
            "status": self.status_word,
            "dates_of_play": [_iso(self.first_day), _iso(self.last_day)],
            "rooms": list(self.rooms),
            "profile": self.profile,
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
            "needs_decision": [f.where for g in self.needs_decision for f in g.findings],
            "data_quality": [asdict(q) for q in self.data_quality],
            "changes": asdict(self.changes),
            "cases": {
                status: sum(1 for f in self.findings if f.case.status == status)
                for status in sorted({f.case.status for f in self.findings})
            },
            "quarantined": self.quarantine_total,
            "integrity": self.integrity.summary() if self.integrity else None,
        }


def _iso(day: date | None) -> str | None:
    return day.isoformat() if day else None
