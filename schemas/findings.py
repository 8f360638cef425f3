"""The audit's output records: findings and unverifiable checks.

A finding is one rule broken at one place in one hand (or one deal sequence at
one table), as ``../shared/spec/rules.md`` defines it. These records are what
``openers check --format jsonl`` prints and what the ``findings`` table stores.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Severity(StrEnum):
    """How bad a finding is (rules.md): critical > major > minor."""

    CRITICAL = "critical"
    MAJOR = "major"
    MINOR = "minor"

    @property
    def rank(self) -> int:
        """2 for critical, 1 for major, 0 for minor: compare severities with it."""
        return {"critical": 2, "major": 1, "minor": 0}[self.value]


class FailOn(StrEnum):
    """The least severity of a finding that makes a command exit 1 (``--fail-on``)."""

    CRITICAL = "critical"
    MAJOR = "major"
    MINOR = "minor"
    NEVER = "never"

    def reached_by(self, severity: str) -> bool:
        """Whether a finding of ``severity`` is at or above this threshold."""
        return self is not FailOn.NEVER and Severity(severity).rank >= Severity(self.value).rank


class Finding(BaseModel):
    """One rule broken at one line of one hand (or one deal of a table's sequence)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    code: str = Field(pattern=r"^[BODPJ][0-9]{3}$", description="Rule code, e.g. `B101`.")
    name: str = Field(description="The rule's name, e.g. `over-cap-raise`.")
    severity: Severity = Field(description="Severity after the house profile's overrides.")
    hand_id: str = Field(description="The hand the finding is in (for J codes: the later deal).")
    table_id: str = Field(description="The hand's table.")
    line: int | None = Field(
        default=None, description="Line number in the source file of the offending line."
    )
    lines: list[int] = Field(
        default_factory=list,
        description=(
            "Every line the finding is about, ascending: the offender's own line(s) and the "
            "line where the fault became certain (``line`` is among them)."
        ),
    )
    action_index: int | None = Field(
        default=None, description="Index of the offending action within the hand."
    )
    seat: int | None = Field(default=None, description="The seat the finding names, if any.")
    message: str = Field(description="One line naming the seat, the amounts or the cards.")
    evidence: dict[str, Any] = Field(
        default_factory=dict, description="The cards or figures that prove it (JSON-able)."
    )
    source: str = Field(description="The rulebook citation, e.g. `R-DH 1`.")


class Unverifiable(BaseModel):
    """A rule that could not be checked on a hand because the log lacks the cards (``??``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    code: str = Field(pattern=r"^[BODPJ][0-9]{3}$")
    hand_id: str
    table_id: str
    seat: int | None = None
    reason: str = Field(description="What evidence is missing, e.g. `seat 3 dealt cards ??`.")



def finding_key(hand_id: str, code: str, action_index: int | None, seat: int | None) -> str:
    """A finding's identity, independent of the file's line numbers: ``hand|code|index|seat``.

    Two findings of one code in one hand are the same finding when they name the same
    action (its index in the hand) and the same seat (``-`` for none). This is the only
    definition of the key: the audit stores it with every finding
    (``audit_findings.finding_key``) and the integrity analysis with every alert
    (``integrity_alerts.finding_key``, the alert key in the place of the hand), and
    everyone else reads those columns. A baseline (``openers check --baseline``) matches
    on it, so a log exported again with other line numbers, or its hands in another
    order, still matches, and so does a message reworded or evidence renamed; reviews
    are filed under it, and a nightly run claims the findings it was first to see by it.
    """
    index = "-" if action_index is None else str(int(action_index))
    seat_text = "-" if seat is None else str(int(seat))
    return f"{hand_id}|{code}|{index}|{seat_text}"
