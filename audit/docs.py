"""The rule reference (``docs/rules.md``), generated from the rules' docstrings.

Like ruff's rule pages, the text lives once, in each rule's docstring; ``openers rules
CODE`` and this page are two renderings of it. Regenerate the page with
``python -m audit.docs > docs/rules.md`` (a test fails when it is stale).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from audit.registry import RULES, codes
from audit.rule import DOC_SECTIONS

FAMILIES = {
    "B": "Betting",
    "O": "Openers",
    "D": "Deal and draw",
    "P": "Pot and showdown",
    "J": "Deal sequences at a table",
}


def rules_markdown() -> str:
    """The whole reference as Markdown: an index table, then one section per rule."""
    lines = [
        "# Rule reference",
        "",
        "Generated from the rules' docstrings by `python -m audit.docs`; do not edit by hand.",
        "The catalogue itself is `../shared/spec/rules.md`.",
        "",
        "| code | name | severity | source |",
        "| --- | --- | --- | --- |",
    ]
    lines += [
        f"| [{code}](#{code.lower()}) | {RULES[code].name} | {RULES[code].severity.value} "
        f"| {RULES[code].source} |"
        for code in codes()
    ]
    family = ""
    for code in codes():
        cls = RULES[code]
        if code[0] != family:
            family = code[0]
            lines += ["", f"## {FAMILIES[family]} ({family})"]
        lines += ["", f"### {code}", "", f"**{cls.name}** ({cls.severity.value}): {cls.summary}"]
        lines += section_lines(cls.doc(), DOC_SECTIONS)
    return "\n".join(lines) + "\n"


def section_lines(doc: Mapping[str, str], sections: Sequence[str]) -> list[str]:
    """A docstring's sections as Markdown lines, in ``sections``' order (the rule pages' and
    the integrity guide's one rendering)."""
    lines: list[str] = []
    for section in sections:
        if section in doc:
            lines += ["", f"*{section}*", "", doc[section].strip()]
    return lines


if __name__ == "__main__":
    print(rules_markdown(), end="")
