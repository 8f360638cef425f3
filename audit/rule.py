"""The rule framework: one class per rule, a context to check against, doc sections.

A hand rule subclasses :class:`Rule` and implements ``check(ctx)`` over a
:class:`HandContext` (the record, its :class:`~audit.replay.Replay`, the profile);
a deal-sequence rule (J codes) subclasses :class:`SequenceRule` and gets a
:class:`SequenceContext` (two consecutive deals of one table). ``check`` yields
findings built with ``ctx.finding(...)`` and, where the log lacks the cards,
``ctx.unverifiable(...)``. The engine sets ``ctx.rule`` before calling ``check``.

Every rule's docstring has the sections of :data:`DOC_SECTIONS`, each a heading
line ``Name:`` followed by indented text; ``openers rules CODE`` prints them.
"""

from __future__ import annotations

import inspect
import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar

from audit.profiles import Profile
from audit.replay import Replay
from ingest.tokens import format_amount as money
from schemas.findings import Finding, Severity, Unverifiable
from schemas.records import Action, HandRecord, Openers, Verb

DOC_SECTIONS: tuple[str, ...] = ("What it does", "Why it matters", "Example", "Source")
_HEADING = re.compile(r"^({}):\s*$".format("|".join(map(re.escape, DOC_SECTIONS))))

Result = Finding | Unverifiable


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


class _Context:
    """Shared finding builders; ``rule`` is the rule being checked (set by the engine)."""

    rule: type[_RuleBase] | _RuleBase
    profile: Profile
    _hand: HandRecord

    def finding(
        self,
        message: str,
        *,
        action: Action | None = None,
        seat: int | None = None,
        line: int | None = None,
        lines: Iterable[int | None] = (),
        evidence: Mapping[str, Any] | None = None,
    ) -> Finding:
        """A finding of the current rule on this hand.

        ``action`` gives the line and action index (and the seat, unless ``seat`` is
        given); ``line`` overrides the line (e.g. the RESULT line for an omission).
        ``lines`` are the other lines the finding is about (the offender's own lines
        where ``line`` is where the fault became certain); the finding lists them with
        ``line`` and the action's line, ascending, without repeats. Amounts in
        ``evidence`` are integer cents in keys named ``*_cents`` (one convention for
        every rule; the message shows them as the format writes them).
        """
        rule = self.rule
        hand = self._hand
        if seat is None and action is not None:
            seat = action.seat
        if line is None and action is not None:
            line = action.line
        about = {n for n in (line, action.line if action is not None else None, *lines) if n}
        return Finding.model_construct(
            code=rule.code,
            name=rule.name,
            severity=self.profile.severity_of(rule.code, rule.severity),
            hand_id=hand.hand_id,
            table_id=hand.table_id,
            line=line,
            lines=sorted(about),
            action_index=action.index if action is not None else None,
            seat=seat,
            message=message,
            evidence=dict(evidence) if evidence else {},
            source=rule.source,
        )

    def unverifiable(self, reason: str, *, seat: int | None = None) -> Unverifiable:
        """The current rule could not be checked on this hand: ``reason`` says what is missing."""
        hand = self._hand
        return Unverifiable.model_construct(
            code=self.rule.code, hand_id=hand.hand_id, table_id=hand.table_id, seat=seat,
            reason=reason,
        )


class HandContext(_Context):
    """What a hand rule checks: ``record``, ``replay``, ``profile`` and helpers."""

    __slots__ = ("_hand", "profile", "record", "replay", "rule")

    def __init__(self, record: HandRecord, profile: Profile, replay: Replay | None = None) -> None:
        self.record = record
        self._hand = record
        self.profile = profile
        self.replay = replay if replay is not None else Replay(record)

    def actions_of(self, *verbs: Verb) -> Sequence[Action]:
        """The hand's lines with any of ``verbs``, in log order (a shared index; read-only)."""
        return self.replay.actions_of(*verbs)

    @property
    def openers_required(self) -> Openers:
        """The deal's minimum openers: the ``Openers`` header, else the house progression."""
        rec = self.record
        return rec.openers or self.profile.openers_for(rec.jackpot, rec.game)


class SequenceContext(_Context):
    """Two consecutive deals of one table (by ``Time``) for a J rule; findings go on ``current``.

    ``previous`` is None on a table's first deal (no earlier deal in the input or the
    store): a rule that needs the earlier deal skips it, single-deal checks still run.
    """

    __slots__ = ("_current_replay", "_hand", "_previous_replay", "current", "previous", "profile",
                 "rule")

    def __init__(self, previous: HandRecord | None, current: HandRecord,
                 profile: Profile, replays: Mapping[str, Replay] | None = None) -> None:
        self.previous = previous
        self.current = current
        self._hand = current
        self.profile = profile
        # The per-hand pass has replayed these deals already; replaying again costs more
        # than every J rule together.
        known = replays or {}
        self._previous_replay = known.get(previous.hand_id) if previous is not None else None
        self._current_replay = known.get(current.hand_id)

    @property
    def previous_replay(self) -> Replay | None:
        """The replay of the earlier deal (built on first use); None on a first deal."""
        if self._previous_replay is None and self.previous is not None:
            self._previous_replay = Replay(self.previous)
        return self._previous_replay

    @property
    def current_replay(self) -> Replay:
        """The replay of the later deal (built on first use)."""
        if self._current_replay is None:
            self._current_replay = Replay(self.current)
        return self._current_replay


class Rule(_RuleBase):
    """A rule judged on one hand."""

    @abstractmethod
    def check(self, ctx: HandContext) -> Iterable[Result]:
        """Yield a :class:`Finding` per offending line, or :class:`Unverifiable`."""


class SequenceRule(_RuleBase):
    """A rule judged on two consecutive deals of one table (J codes)."""

    @abstractmethod
    def check(self, ctx: SequenceContext) -> Iterable[Result]:
        """Yield findings about ``ctx.current`` given ``ctx.previous`` (None on a first deal)."""


AnyRule = Rule | SequenceRule

__all__ = [
    "DOC_SECTIONS", "AnyRule", "HandContext", "Result", "Rule", "SequenceContext", "SequenceRule",
    "doc_sections", "money",
]


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
