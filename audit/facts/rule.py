"""Rules over the fact tables: a hand rule checks a whole batch of hands at once.

A :class:`Rule` states its rule once, over the columns of a :class:`~audit.facts.context.Batch`
(vectorised where it can, one candidate hand at a time where it must be procedural),
and yields ``ctx.finding(hand, ...)`` or ``ctx.unverifiable(hand, ...)``. The results of one
hand come out in the order the hand's lines give them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import ClassVar

from audit.facts.context import Batch, Result
from schemas.findings import Severity


class Rule(ABC):
    """A rule judged on each hand of a batch."""

    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity]
    source: ClassVar[str]
    summary: ClassVar[str]

    @abstractmethod
    def check(self, ctx: Batch) -> Iterable[Result]:
        """Yield ``(hand row, finding or unverifiable)`` for every hand the rule flags."""
