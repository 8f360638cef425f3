"""Parse the text of one hand into a :class:`~schemas.records.HandRecord`.

``parse_hand`` reads a header, then the sections in their required order, then
RESULT. It checks the grammar and every constraint of the record as it reads,
and raises :class:`HandParseError` at the first problem with the absolute line
number, the offending token and what was expected.
"""

from __future__ import annotations

from typing import Any

from ingest.actions import parse_action
from ingest.construct import trusted
from ingest.errors import ErrorKind, HandParseError
from ingest.header import HeaderParser
from ingest.tokens import parse_amount
from schemas.records import SECTION_ORDER, Action, HandRecord, Section

__all__ = ["HandParseError", "parse_hand"]

_SECTIONS = {f"*** {s.value} ***": (i, s) for i, s in enumerate(SECTION_ORDER)}
_ORDER_TEXT = ", ".join(s.value for s in SECTION_ORDER)


def _section_line(text: str, line: int, current: int) -> tuple[int, Section]:
    """Read a ``*** NAME ***`` line; it must come after the current section."""
    found = _SECTIONS.get(text)
    if found is None:
        raise HandParseError(
            "unknown section", line=line, token=text,
            expected=f"one of {_ORDER_TEXT} as '*** NAME ***'", kind=ErrorKind.UNKNOWN_SECTION,
        )
    position, section = found
    if position <= current:
        raise HandParseError(
            f"section {section.value} out of order", line=line, token=text,
            expected=f"sections in the order {_ORDER_TEXT}, each at most once",
            kind=ErrorKind.SECTION_ORDER,
        )
    return position, section


class _Result:
    """The RESULT lines that are not actions: Pot, Rake, Passed out."""

    def __init__(self) -> None:
        self.fields: dict[str, Any] = {}

    def add(self, text: str, line: int) -> bool:
        """Consume ``text`` if it is a Pot/Rake/Passed out line; False otherwise."""
        if text.startswith("Pot: "):
            self._set("pot", text[5:], line, text)
            self.fields["result_line"] = line
        elif text.startswith("Rake: "):
            self._set("rake", text[6:], line, text)
        elif text.startswith("Passed out: carried "):
            self._set("carried_out", text[20:], line, text)
        else:
            return False
        return True

    def _set(self, name: str, value: str, line: int, text: str) -> None:
        if name in self.fields:
            raise HandParseError(
                "RESULT line given twice", line=line, token=text,
                expected="one Pot, Rake and Passed out line", kind=ErrorKind.DUPLICATE_HEADER,
            )
        self.fields[name] = parse_amount(value, line)


def parse_hand(text: str, *, first_line: int = 1) -> HandRecord:
    """Parse one hand; ``first_line`` is the file line number of ``text``'s first line.

    Blank lines and ``#`` comment lines inside ``text`` are skipped (they still
    count for line numbers). Raises :class:`HandParseError` on the first problem.
    """
    header = HeaderParser()
    result = _Result()
    actions: list[Action] = []
    position = -1
    section: Section | None = None
    line = first_line - 1
    start = 0
    for raw in text.split("\n"):
        line += 1
        stripped = raw.rstrip()
        if not stripped or stripped.lstrip().startswith("#"):
            continue
        if not start:
            start = line
        if stripped.startswith("***"):
            if section is None:
                header_fields = header.finish(line)
            position, section = _section_line(stripped, line, position)
        elif section is None:
            header.add(stripped, line)
        elif section is Section.RESULT and result.add(stripped, line):
            continue
        else:
            actions.append(parse_action(stripped, line, section, len(actions)))
    if not start:
        raise HandParseError("empty hand", line=first_line, expected="a hand",
                             kind=ErrorKind.TRUNCATED)
    if section is not Section.RESULT:
        if section is None:
            header.finish(line)
        raise HandParseError(
            "hand ends before *** RESULT ***", line=line, expected="*** RESULT *** with Pot",
            kind=ErrorKind.MISSING_RESULT,
        )
    if "pot" not in result.fields:
        raise HandParseError(
            "RESULT has no Pot line", line=line, expected="'Pot: X' in RESULT",
            kind=ErrorKind.MISSING_RESULT,
        )
    fields = header_fields
    fields.update(result.fields)
    fields["actions"] = tuple(actions)
    fields["first_line"] = start
    return trusted(HandRecord, fields)
