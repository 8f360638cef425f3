"""Read rule fixtures: ``tests/audit/fixtures/<CODE>.log``, hands with expectations.

A fixture is a hand log in the text format. Comment lines just before a hand (or
at its top) say what the audit must report on it:

- ``# expect: B101`` one finding of B101 (repeat the line for each finding);
  ``# expect: B101 line=23`` pins the line it must cite;
- ``# expect: unverifiable O201`` the hand is unverifiable for that code;
- ``# expect: none`` a near miss: no finding of any code;
- ``# allow: B103`` other codes that may also fire on this hand;
- ``# profile: foster`` the profile to audit with (a built-in name; default robert);
- ``# exception: unless`` on a near miss: the exception word of the rule's source quote
  that the hand exercises (``test_sources`` wants one for each).

What each hand reports (code, line, lines, seat, message, evidence) is pinned in
``<CODE>.snap`` beside the fixture (``test_snapshots``).

A hand with ``expect: CODE`` lines must yield exactly those findings of the
fixture's own code (and at least those of other codes it lists); a ``none`` hand
must yield no finding at all beyond its ``allow`` codes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from audit.engine import AuditResult, audit_records
from audit.profiles import load_profile
from ingest.parser import parse_hand

FIXTURES = Path(__file__).parent / "fixtures"
_DIRECTIVE = re.compile(r"^#\s*(expect|allow|profile|exception)\s*:\s*(.+?)\s*$")
_EXPECT = re.compile(r"^(unverifiable\s+)?([BODPJ]\d{3})(?:\s+line=(\d+))?$")


@dataclass
class Expected:
    """One ``# expect:`` entry."""

    code: str
    line: int | None = None
    unverifiable: bool = False


@dataclass
class FixtureHand:
    """One hand of a fixture file and what it must produce."""

    file: Path
    text: str
    first_line: int
    expected: list[Expected] = field(default_factory=list)
    none: bool = False
    allow: set[str] = field(default_factory=set)
    profile: str = "robert"
    exceptions: set[str] = field(default_factory=set)

    @property
    def fixture_code(self) -> str:
        """The code the fixture file is about (its stem)."""
        return self.file.stem

    @property
    def violating(self) -> bool:
        """The hand expects a finding of the fixture's own code."""
        return any(e.code == self.fixture_code and not e.unverifiable for e in self.expected)

    def label(self) -> str:
        """``B101.log:12`` for test ids."""
        return f"{self.file.name}:{self.first_line}"


def _blocks(text: str) -> Iterator[tuple[int, list[str]]]:
    """Blank-line separated blocks with the 1-based line number of their first line."""
    block: list[str] = []
    start = 0
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            if not block:
                start = number
            block.append(line)
        elif block:
            yield start, block
            block = []
    if block:
        yield start, block


def read_fixture(path: Path) -> list[FixtureHand]:
    """Every hand of one fixture file with its expectations."""
    hands: list[FixtureHand] = []
    pending: list[str] = []
    for start, lines in _blocks(path.read_text(encoding="utf-8")):
        head = 0
        while head < len(lines) and lines[head].lstrip().startswith("#"):
            head += 1
        pending.extend(lines[:head])
        if head == len(lines):
            continue
        hand = FixtureHand(path, "\n".join(lines[head:]), start + head)
        for comment in pending:
            _directive(hand, comment.strip())
        if not hand.expected and not hand.none:
            raise ValueError(f"{hand.label()}: hand has no '# expect:' line")
        hands.append(hand)
        pending = []
    return hands


def _directive(hand: FixtureHand, comment: str) -> None:
    m = _DIRECTIVE.match(comment)
    if m is None:
        return
    kind, value = m.groups()
    if kind == "profile":
        hand.profile = value
    elif kind == "exception":
        hand.exceptions.add(value.strip().strip('"').lower())
    elif kind == "allow":
        hand.allow.update(v.strip() for v in value.split(","))
    elif value == "none":
        hand.none = True
    else:
        e = _EXPECT.match(value)
        if e is None:
            raise ValueError(f"{hand.label()}: bad expectation {value!r}")
        hand.expected.append(Expected(e.group(2), int(e.group(3)) if e.group(3) else None,
                                      bool(e.group(1))))


def all_fixture_hands() -> list[FixtureHand]:
    """Every hand of every fixture file, in file order."""
    return [h for path in sorted(FIXTURES.glob("*.log")) for h in read_fixture(path)]


def fixture_results(hands: list[FixtureHand], *, reference: bool = False) -> list[AuditResult]:
    """What the audit reports on each hand, aligned with ``hands`` (``reference``: with the
    facts of the Python replay instead of the compiled one).

    Hands of a J fixture are audited as the deal sequences of their tables: the hands
    of one file and one profile together, as ``openers check`` reads a file. Every
    other hand is audited alone, by the hand rules.
    """
    records = [parse_hand(h.text, first_line=h.first_line) for h in hands]
    out: list[AuditResult | None] = [None] * len(hands)
    groups: dict[tuple[Path, str, bool], list[int]] = {}
    for k, hand in enumerate(hands):
        sequence = hand.fixture_code.startswith("J")
        groups.setdefault((hand.file if sequence else FIXTURES, hand.profile, sequence),
                          []).append(k)
    for (_, profile, sequence), members in groups.items():
        found = audit_records([records[k] for k in members], load_profile(profile),
                              sequences=sequence, reference=reference)
        for k, result in zip(members, found, strict=True):
            out[k] = result
    return [r for r in out if r is not None]
