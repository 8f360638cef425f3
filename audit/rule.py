"""The rule framework: one class per rule, stated once over the fact tables, doc sections.

A hand rule subclasses :class:`Rule` and implements ``check(ctx)`` over a
:class:`~audit.facts.context.Batch` (the fact tables of a batch of hands, the profile,
the words of each hand): vectorised over the batch's columns where it can, one
candidate hand at a time where it must be procedural. A deal-sequence rule (J codes)
subclasses :class:`SequenceRule` and gets a :class:`~audit.facts.sequence.Run` (one
row per deal of a whole run, each with the row of the deal before it at its table).
``check`` yields ``ctx.finding(row, ...)`` and, where the log lacks the cards,
``ctx.unverifiable(row, ...)``. The runner sets ``ctx.rule`` before calling ``check``.

The same classes judge the facts of the compiled replay and those of the Python
replay (``--reference``): a rule is written once.

Every rule's docstring has the sections of :data:`DOC_SECTIONS`, each a heading
line ``Name:`` followed by indented text; ``openers rules CODE`` prints them.
"""

from __future__ import annotations

import inspect
import re
from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import ClassVar

from audit.facts.context import Batch, Result
from audit.facts.sequence import Run
from schemas.findings import Severity

DOC_SECTIONS: tuple[str, ...] = ("What it does", "Why it matters", "Example", "Source")
_HEADING = re.compile(r"^({}):\s*$".format("|".join(map(re.escape, DOC_SECTIONS))))


class _RuleBase(ABC):
    """What every rule declares. Subclasses set the class attributes."""

    #: Stable code, e.g. ``B101``.
    code: ClassVar[str]
    #: Kebab-case name that says what it flags, e.g. ``over-cap-raise``.
    name: ClassVar[str]
    severity: ClassVar[Severity]
    #: The seed citation as rules.md gives it, e.g. ``R-DH 1``.
    source: ClassVar[str]
    #: One line for ``openers rules``.
    summary: ClassVar[str]

    @classmethod
    def doc(cls) -> dict[str, str]:
        """The docstring's sections (``What it does`` ...), empty ones left out."""
        return doc_sections(inspect.getdoc(cls) or "")


class Rule(_RuleBase):
    """A rule judged on each hand of a batch."""

    @abstractmethod
    def check(self, ctx: Batch) -> Iterable[Result]:
        """Yield ``(hand row, finding or unverifiable)`` for every hand the rule flags."""


class SequenceRule(_RuleBase):
    """A rule judged on every deal of a run against the deal before it at its table."""

    @abstractmethod
    def check(self, ctx: Run) -> Iterable[Result]:
        """Yield ``(deal row, finding or unverifiable)`` for every deal the rule flags."""


AnyRule = Rule | SequenceRule


def doc_sections(doc: str) -> dict[str, str]:
    """Split a rule docstring into its :data:`DOC_SECTIONS` (dedented, stripped)."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in doc.splitlines():
        m = _HEADING.match(line)
        if m:
            current = sections.setdefault(m.group(1), [])
        elif current is not None:
            current.append(line)
    return {k: inspect.cleandoc("\n".join(v)) for k, v in sections.items() if "".join(v).strip()}
