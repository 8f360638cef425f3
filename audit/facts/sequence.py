"""The deal-sequence (J) rules over the deal tables: every deal of a run in one pass.

A :class:`SequenceRule` checks every deal of a run at once, against the deal before
it at its table: ``ctx.previous[row]`` is that deal's row (-1 on a table's first deal),
so a rule reads the earlier deal's columns by indexing them with ``ctx.previous``
(the ``shift`` over a table in time order). Results go on the later deal.
"""

from __future__ import annotations

import traceback
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, Protocol

import numpy as np

from audit.engine import AuditResult, suppress
from audit.facts.context import Columns, IntArray, Result, RuleInfo, about, row_type
from audit.facts.deals import Deals
from audit.profiles import Profile
from schemas.findings import Finding, Severity, Unverifiable


class DealLabels(Protocol):
    """Words of the deals of a run, by deal row."""

    def hand_id(self, deal: int) -> str:
        """The deal's ``Hand`` id."""

    def table_id(self, deal: int) -> str:
        """Its ``Table`` id."""

    def player_id(self, deal: int, seat: int) -> str:
        """The player at seat number ``seat`` of the deal."""


class Run:
    """The deals of a run as the J rules see them (see the module docstring)."""

    def __init__(self, deals: Deals, previous: IntArray, profile: Profile,
                 labels: DealLabels) -> None:
        self.tables = deals
        self.deals = Columns(deals.deals)
        self.seats = Columns(deals.seats)
        #: The row of the deal before each deal at its table; -1 on a table's first
        #: deal, -2 for a later copy of a hand given twice (not in the sequence).
        self.previous = previous
        self.profile = profile
        self.labels = labels
        self.rule: RuleInfo
        self._deal_row = row_type(deals.deals)
        self._seat_row = row_type(deals.seats)

    def __len__(self) -> int:
        return len(self.tables)

    @property
    def in_sequence(self) -> np.ndarray:
        """The deals that take part in their table's sequence."""
        return self.previous >= -1

    def deal(self, row: int) -> Any:
        """Deal row ``row`` with plain Python values (``.jackpot``, ``.button`` ...)."""
        return self._deal_row._make(self.tables.deals[row].item())

    def seats_of(self, row: int) -> list[Any]:
        """The seats of deal ``row``, in header order, with plain Python values."""
        d = self.tables.deals[row]
        first, count = int(d["seat_start"]), int(d["seat_count"])
        return [self._seat_row._make(r.item()) for r in self.tables.seats[first:first + count]]

    def finding(self, deal: int, message: str, *, line: int | None = None,
                index: int | None = None, seat: int | None = None,
                lines: Iterable[int | None] = (),
                evidence: Mapping[str, Any] | None = None) -> Result:
        """A finding of the current rule on ``deal``: at its line ``index`` (``line``);
        ``lines`` the other lines it is about (as :meth:`audit.facts.context.Batch.finding`)."""
        rule = self.rule
        return deal, Finding.model_construct(
            code=rule.code, name=rule.name,
            severity=self.profile.severity_of(rule.code, rule.severity),
            hand_id=self.labels.hand_id(deal), table_id=self.labels.table_id(deal),
            line=line, lines=about(line, None, lines), action_index=index, seat=seat,
            message=message,
            evidence=dict(evidence) if evidence else {}, source=rule.source,
        )

    def unverifiable(self, deal: int, reason: str, *, seat: int | None = None) -> Result:
        """The current rule could not be checked on ``deal``."""
        return deal, Unverifiable.model_construct(
            code=self.rule.code, hand_id=self.labels.hand_id(deal),
            table_id=self.labels.table_id(deal), seat=seat, reason=reason)


class SequenceRule(ABC):
    """A rule judged on every deal of a run against the deal before it at its table."""

    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity]
    source: ClassVar[str]
    summary: ClassVar[str]

    @abstractmethod
    def check(self, ctx: Run) -> Iterable[Result]:
        """Yield ``(deal row, finding or unverifiable)`` for every deal the rule flags."""


def run_sequence_rules(ctx: Run, rules: Sequence[SequenceRule]) -> dict[int, AuditResult]:
    """Every J rule on every deal in sequence: results by deal row."""
    results: dict[int, AuditResult] = {}
    for rule in rules:
        ctx.rule = rule
        try:
            found = [(r, False) for r in rule.check(ctx)]
        except Exception as exc:  # a rule bug: every deal of the run is unverifiable for it
            where = traceback.extract_tb(exc.__traceback__)[-1]
            reason = (f"internal error in {rule.code}: {type(exc).__name__}: {exc} "
                      f"({where.filename}:{where.lineno})")
            found = [(ctx.unverifiable(d, reason), True)
                     for d in np.flatnonzero(ctx.in_sequence).tolist()]
        for (deal, result), error in found:
            out = results.get(deal)
            if out is None:
                out = results[deal] = AuditResult(result.hand_id, result.table_id)
            if isinstance(result, Finding):
                out.findings.append(result)
            else:
                out.unverifiable.append(result)
                if error:
                    out.errors.append(result)
    for out in results.values():
        if len(out.findings) > 1:
            out.findings = suppress(out.findings)
    return results
