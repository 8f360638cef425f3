"""The deal-sequence (J) rules over the deal tables: every deal of a run in one pass.

A J rule (:class:`audit.rule.SequenceRule`) checks every deal of a run at once, against
it at its table: ``ctx.previous[row]`` is that deal's row (-1 on a table's first deal),
so a rule reads the earlier deal's columns by indexing them with ``ctx.previous``
(the ``shift`` over a table in time order). Results go on the later deal.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

import numpy as np

from audit.facts.context import IntArray, Result, RuleInfo, about
from audit.facts.deals import Deals, Frame
from audit.house import Profile
from schemas.findings import Finding, Unverifiable


class DealLabels(Protocol):
    """Words of the deals of a run, by deal row."""

    def hand_id(self, deal: int) -> str:
        """The deal's ``Hand`` id."""

    def table_id(self, deal: int) -> str:
        """Its ``Table`` id."""

    def player_id(self, deal: int, seat: int) -> str:
        """The player at seat number ``seat`` of the deal."""


class FrameColumns:
    """A deal table's columns by attribute (``ctx.deals.jackpot``), as they are."""

    def __init__(self, frame: Frame) -> None:
        self.__dict__.update(frame)
        self._names = tuple(frame)
        self._columns = [frame[name] for name in self._names]
        self._row: Any = namedtuple("Row", self._names)  # type: ignore[misc]

    def __getattr__(self, name: str) -> np.ndarray:
        raise AttributeError(name)  # every column is set in __init__

    def __len__(self) -> int:
        return len(self.__dict__[self._names[0]]) if self._names else 0

    def row(self, row: int) -> Any:
        """Row ``row`` with plain Python values, fields by name."""
        return self._row._make([column.item(row) for column in self._columns])

    def rows(self, first: int, stop: int) -> list[Any]:
        """Rows ``first``..``stop`` with plain Python values."""
        columns = [column[first:stop].tolist() for column in self._columns]
        return [self._row._make(values) for values in zip(*columns, strict=True)]


class Run:
    """The deals of a run as the J rules see them (see the module docstring)."""

    def __init__(self, deals: Deals, previous: IntArray, profile: Profile,
                 labels: DealLabels) -> None:
        self.tables = deals
        self.deals = FrameColumns(deals.deals)
        self.seats = FrameColumns(deals.seats)
        #: The row of the deal before each deal at its table; -1 on a table's first
        #: deal, -2 for a later copy of a hand given twice (not in the sequence).
        self.previous = previous
        self.profile = profile
        self.labels = labels
        self.rule: RuleInfo

    def __len__(self) -> int:
        return len(self.tables)

    @property
    def in_sequence(self) -> np.ndarray:
        """The deals that take part in their table's sequence."""
        return self.previous >= -1

    def deal(self, row: int) -> Any:
        """Deal row ``row`` with plain Python values (``.jackpot``, ``.button`` ...)."""
        return self.deals.row(row)

    def seats_of(self, row: int) -> list[Any]:
        """The seats of deal ``row``, in header order, with plain Python values."""
        first, count = int(self.deals.seat_start[row]), int(self.deals.seat_count[row])
        return self.seats.rows(first, first + count)

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
