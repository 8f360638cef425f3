"""Rule texts for the report, taken from the audit registry's docstrings.

A reviewer reading a finding needs the rule beside it; the rule classes document
themselves (``What it does`` / ``Why it matters`` / ``Source``), so the report
shows exactly what ``openers rules CODE`` prints, never a second copy.
"""

from __future__ import annotations

from functools import cache

from audit.registry import RULES
from openers.report.model import RuleDoc

#: Docstring sections shown in the report, in this order.
SHOWN_SECTIONS: tuple[str, ...] = ("What it does", "Why it matters", "Source")


@cache
def rule_docs() -> dict[str, RuleDoc]:
    """Every registered rule's code, name, default severity, source and text."""
    docs: dict[str, RuleDoc] = {}
    for code, cls in RULES.items():
        sections = cls.doc()
        text = "\n\n".join(
            f"{title}: {_unwrap(sections[title])}" for title in SHOWN_SECTIONS
            if title in sections
        )
        docs[code] = RuleDoc(
            code=code,
            name=cls.name,
            severity=cls.severity.value,
            source=cls.source,
            text=text or cls.summary,
        )
    return docs


def _unwrap(text: str) -> str:
    """Join the docstring's hard-wrapped lines; keep its paragraph breaks."""
    paragraphs = [" ".join(p.split()) for p in text.split("\n\n")]
    return "\n\n".join(p for p in paragraphs if p)
