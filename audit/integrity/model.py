"""What the integrity tests produce: tested cells, and the alerts among them.

A **cell** is one hypothesis tested: one test (a code such as ``F102``) on one
subject (a dealer, a table, a dealer and a player, a player, or two players) with
its sample, what was observed against what fair play gives, an effect size with its
95% interval, and an exact or conservative p-value. An **alert** is a cell whose
Benjamini-Hochberg adjusted p-value (its q-value) is at or below the house's false
discovery rate, ranked, with the hands behind it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import numpy as np
import numpy.typing as npt


class Family(StrEnum):
    """What kind of cheating a test looks for."""

    DEALING = "dealing"
    COLLUSION = "collusion"


class Level(StrEnum):
    """Whom a cell is about."""

    DEALER = "dealer"
    TABLE = "table"
    DEALER_PLAYER = "dealer-player"
    PLAYER = "player"
    PAIR = "pair"  #: two players, either way round
    PLAYER_TO_PLAYER = "player-to-player"  #: the first player towards the second


@dataclass(frozen=True, slots=True)
class Subject:
    """The dealer, table and players a cell is about (the others None)."""

    dealer_id: str | None = None
    table_id: str | None = None
    player_id: str | None = None
    partner_id: str | None = None

    def key(self) -> str:
        """A stable text key, e.g. ``dealer=D-4001;player=P-010003``."""
        parts = [f"{name}={value}" for name, value in (
            ("dealer", self.dealer_id), ("table", self.table_id), ("player", self.player_id),
            ("partner", self.partner_id)) if value is not None]
        return ";".join(parts)

    def text(self) -> str:
        """For people: ``dealer D-4001, player P-010003``."""
        parts = []
        if self.dealer_id is not None:
            parts.append(f"dealer {self.dealer_id}")
        if self.table_id is not None:
            parts.append(f"table {self.table_id}")
        if self.player_id is not None and self.partner_id is not None:
            parts.append(f"players {self.player_id} and {self.partner_id}")
        elif self.player_id is not None:
            parts.append(f"player {self.player_id}")
        return ", ".join(parts)


@dataclass
class Evidence:
    """The hands behind a cell: global hand rows (most telling first) and a note for each."""

    rows: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    notes: list[str] = field(default_factory=list)
    #: How many such hands there were in all (the list may stop at a cap); -1: as listed.
    total: int = -1

    @property
    def count(self) -> int:
        """How many hands are behind the cell."""
        return self.total if self.total >= 0 else len(self.rows)


@dataclass
class Cell:
    """One hypothesis tested (see the module docstring)."""

    code: str
    level: Level
    subject: Subject
    #: Observations the test used (hands, draws, decisions, visits...).
    n: int
    #: What was counted or measured, in words ("hands in the top 5% of the law").
    statistic: str
    observed: float
    expected: float
    #: The effect size and what it is ("share in the top 5%", "odds ratio").
    effect: float
    effect_label: str
    ci_low: float
    ci_high: float
    p_value: float
    message: str
    #: The hands behind the cell, built only for the cells that become alerts.
    evidence: Callable[[], Evidence] = field(default=Evidence)
    #: Test-specific figures (strata, counts per category, ...), JSON-serialisable.
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Alert:
    """A cell that passed the false-discovery control, with the hands behind it."""

    alert_key: str
    rank: int
    code: str
    name: str
    family: Family
    level: Level
    subject: Subject
    n: int
    statistic: str
    observed: float
    expected: float
    effect: float
    effect_label: str
    ci_low: float
    ci_high: float
    p_value: float
    q_value: float
    message: str
    hands: tuple[str, ...]
    hand_notes: tuple[str, ...]
    hands_total: int
    first_time: str | None
    last_time: str | None
    details: dict[str, Any]

    def evidence(self) -> dict[str, Any]:
        """The JSON evidence stored with the alert."""
        return {
            "statistic": self.statistic,
            "observed": self.observed,
            "expected": self.expected,
            "effect": {"label": self.effect_label, "value": self.effect,
                       "ci95": [self.ci_low, self.ci_high]},
            "p_value": self.p_value,
            "q_value": self.q_value,
            "sample": self.n,
            "hands_total": self.hands_total,
            "hands": [{"hand_id": h, "note": note}
                      for h, note in zip(self.hands, self.hand_notes, strict=True)],
            "details": self.details,
        }


def alert_key(code: str, subject: Subject) -> str:
    """The stable key of an alert: the same test on the same subject keeps it across runs.

    It cannot be a hand id (hand ids have no ``:``), so a review filed under it never
    mixes with a finding's.
    """
    return f"integrity:{code}:{subject.key()}"
