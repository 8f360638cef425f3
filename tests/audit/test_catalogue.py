"""The registry implements exactly the catalogue of ``../shared/spec/rules.md``.

The spec is the source of truth for codes, severities and sources; it lives beside the
project (shared/), so these tests skip with the reason when it is not there.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from audit.registry import RULES

SPEC = Path(__file__).resolve().parents[2].parent / "shared" / "spec" / "rules.md"
ROW = re.compile(r"^\| ([BODPJ][0-9]{3}) \| (critical|major|minor) \| .* \| ([^|]+) \|$")


def catalogue() -> dict[str, tuple[str, str]]:
    """Code -> (severity, source) from the spec's tables."""
    if not SPEC.is_file():
        pytest.skip(f"the rule catalogue {SPEC} is not beside the project")
    rows = {}
    for line in SPEC.read_text(encoding="utf-8").splitlines():
        match = ROW.match(line.strip())
        if match:
            rows[match[1]] = (match[2], match[3].strip())
    return rows


def test_every_catalogue_code_is_registered_and_nothing_else() -> None:
    spec = catalogue()
    assert len(spec) >= 37
    assert sorted(spec) == sorted(RULES)


def test_default_severities_follow_the_catalogue() -> None:
    wrong = {
        code: (RULES[code].severity.value, severity)
        for code, (severity, _source) in catalogue().items()
        if RULES[code].severity.value != severity
    }
    assert not wrong, f"registry vs catalogue severities: {wrong}"


def test_every_rule_cites_the_catalogue_source() -> None:
    """Each rule's source names the catalogue's citations (its first one at least)."""
    missing = {}
    for code, (_severity, source) in catalogue().items():
        first = re.split(r",| \(", source)[0].strip()
        if first in {"—", "-"} or first.startswith("—"):
            continue
        if first.replace("–", "-") not in RULES[code].source.replace("–", "-"):
            missing[code] = (RULES[code].source, source)
    assert not missing, f"rule source vs catalogue: {missing}"


def test_rule_reference_page_is_generated_from_the_docstrings() -> None:
    """docs/rules.md is current: regenerate with `python -m audit.docs > docs/rules.md`."""
    from audit.docs import rules_markdown

    page = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
    assert page.read_text(encoding="utf-8") == rules_markdown()
