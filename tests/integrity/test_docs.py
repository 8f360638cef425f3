"""Every integrity test is documented in fixed sections, and docs/integrity.md is current."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from audit.integrity.docs import integrity_markdown
from audit.integrity.registry import TESTS, codes, select
from audit.integrity.test import DOC_SECTIONS


@pytest.mark.parametrize("code", codes())
def test_each_test_has_every_section(code: str) -> None:
    cls = TESTS[code]
    assert cls.code == code
    assert set(cls.doc()) == set(DOC_SECTIONS), code
    assert cls.summary.endswith(".") and cls.name == cls.name.lower()


def test_codes_are_unique_and_named_by_family() -> None:
    assert len({TESTS[c].name for c in codes()}) == len(codes())
    for c in codes():
        assert (c[0] == "F") == (TESTS[c].family.value == "dealing")


def test_selection_by_prefix() -> None:
    assert select(["c20"]) == tuple(c for c in codes() if c.startswith("C20"))
    with pytest.raises(ValueError):
        select(["Q"])


def test_the_guide_is_current() -> None:
    """Regenerate with `python -m audit.integrity.docs > docs/integrity.md`."""
    page = Path(__file__).resolve().parents[2] / "docs" / "integrity.md"
    assert page.read_text(encoding="utf-8") == integrity_markdown()


#: The constants that set a cell's minimum sample, where a test's module (or its base's)
#: defines them.
MINIMUM_NAMES = ("MIN_SAMPLE", "MIN_DEALS", "MIN_EXPOSED", "MIN_OTHER", "MIN_ATTAINABLE")


@pytest.mark.parametrize("code", codes())
def test_the_minimum_sample_written_is_the_one_applied(code: str) -> None:
    """The docstring's number is prose; the code's constant is what runs: they must agree."""
    cls = TESTS[code]
    text = cls.doc()["Minimum sample"]
    modules = {sys.modules[k.__module__] for k in cls.__mro__
               if k.__module__.startswith("audit.integrity.checks")}
    values = {getattr(m, name) for m in modules for name in MINIMUM_NAMES if hasattr(m, name)}
    for value in values:
        spellings = {f"{value:g}", f"{value:.0e}".replace("e-0", "e-")}
        assert any(s in text for s in spellings), (code, value, text)
