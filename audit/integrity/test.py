"""The integrity test framework: one class per test, fed batch by batch, then asked for cells.

Like the rule framework (:mod:`audit.rule`), a test is a class with a stable code,
a kebab-case name and a docstring in fixed sections (:data:`DOC_SECTIONS`), from
which ``docs/integrity.md`` is generated. A run makes a fresh instance of each
test, calls :meth:`IntegrityTest.feed` with every batch (a :class:`BatchView`),
then :meth:`IntegrityTest.cells` once: every cell the test could judge, with its
p-value. The engine applies the false discovery control across all tests together.
"""

from __future__ import annotations

import inspect
import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from audit.integrity.features import BatchView, Lookup
from audit.integrity.model import Cell, Family, Level

DOC_SECTIONS: tuple[str, ...] = (
    "What it does", "Assumes", "Not valid when", "Minimum sample", "Evidence",
)
_HEADING = re.compile(r"^({}):[ \t]*$".format("|".join(map(re.escape, DOC_SECTIONS))), re.MULTILINE)


@dataclass(frozen=True)
class Settings:
    """The knobs of a run (house settings and the share that defines a tail)."""

    #: Benjamini-Hochberg false discovery rate across every cell of the run.
    fdr: float = 0.05
    #: Benjamini-Yekutieli instead (valid under any dependence between tests; less power).
    dependent: bool = False
    #: The upper tail of a PIT that counts as "a very good hand" (a probability).
    tail_share: float = 0.05


class IntegrityTest(ABC):
    """A test of fair dealing or fair play; subclasses set the class attributes."""

    #: Stable code: ``F1xx`` fair dealing, ``C2xx`` collusion.
    code: ClassVar[str]
    #: Kebab-case name that says what it flags.
    name: ClassVar[str]
    family: ClassVar[Family]
    #: Whom the cells are about.
    levels: ClassVar[tuple[Level, ...]]
    #: One line for ``openers integrity --list`` and the docs' index.
    summary: ClassVar[str]

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    @abstractmethod
    def feed(self, view: BatchView) -> None:
        """Take in one batch of hands."""

    @abstractmethod
    def cells(self, lookup: Lookup) -> Iterable[Cell]:
        """Every cell with enough data to be judged, with its p-value."""

    def share(self, earlier: Sequence[IntegrityTest]) -> None:
        """Take over what an ``earlier`` test of the run (in this process) accumulates
        anyway, when this test would accumulate the same from the same batches (nothing
        by default). :func:`audit.integrity.registry.instances` calls it."""
        del earlier  # most tests keep nothing another keeps

    @classmethod
    def doc(cls) -> dict[str, str]:
        """The docstring's sections, empty ones left out."""
        return doc_sections(inspect.getdoc(cls) or "")


def doc_sections(doc: str) -> dict[str, str]:
    """The docstring's :data:`DOC_SECTIONS` by name (dedented, stripped, empty ones left out)."""
    pieces = _HEADING.split(inspect.cleandoc(doc))
    # split() keeps the headings: [preamble, name, body, name, body, ...]
    found = {name: inspect.cleandoc(body) for name, body in zip(pieces[1::2], pieces[2::2],
                                                                strict=True)}
    return {name: body for name, body in found.items() if body}
