"""Every integrity test is documented in fixed sections, and docs/integrity.md is current."""

from __future__ import annotations

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
