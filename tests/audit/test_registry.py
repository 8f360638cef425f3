"""The registry, the rule docs and the fixtures agree: every code is documented and tested."""

from __future__ import annotations

import re

import pytest

from audit.registry import RULES, codes
from audit.rule import DOC_SECTIONS, Rule, SequenceRule
from tests.audit.harness import FIXTURES, read_fixture


@pytest.mark.parametrize("code", codes())
def test_rule_declares_itself(code: str) -> None:
    cls = RULES[code]
    assert cls.code == code
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", cls.name), cls.name
    assert cls.source and cls.summary
    assert issubclass(cls, SequenceRule if code.startswith("J") else Rule)
    module = cls.__module__.rsplit(".", 1)[-1]
    assert module == f"{code.lower()}_{cls.name.replace('-', '_')}", module


@pytest.mark.parametrize("code", codes())
def test_rule_docstring_has_every_section(code: str) -> None:
    doc = RULES[code].doc()
    missing = [s for s in DOC_SECTIONS if s not in doc]
    assert not missing, f"{code} docstring lacks {missing}"


@pytest.mark.parametrize("code", codes())
def test_rule_has_violating_and_ok_fixtures(code: str) -> None:
    path = FIXTURES / f"{code}.log"
    assert path.is_file(), f"no fixture {path.name}"
    hands = read_fixture(path)
    assert any(h.violating for h in hands), f"{path.name} has no violating hand"
    assert any(h.none for h in hands), f"{path.name} has no near miss (expect: none)"


def test_every_fixture_is_for_a_registered_code() -> None:
    stems = {p.stem for p in FIXTURES.glob("*.log")} - {"clean"}
    assert stems <= set(codes()), stems - set(codes())
