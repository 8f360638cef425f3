"""Run the rules: one hand at a time, then the deal sequence of each table.

``audit_hand`` replays a hand once and runs every enabled hand rule on it;
``audit_sequences`` pairs each table's consecutive deals (by ``Time``) for the J
rules (a table's first deal with None); ``audit_hands`` does both. Where rules.md
says one finding is the special case of another for the same line, seat or pot,
:data:`SUPPRESSIONS` keeps only the special one; this is done here, once, never
inside a rule.
"""

from __future__ import annotations

import traceback
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from audit.profiles import Profile
from audit.registry import hand_rules, sequence_rules
from audit.replay import Replay
from audit.rule import HandContext, Result, Rule, SequenceContext, SequenceRule
from schemas.findings import Finding, Unverifiable
from schemas.records import HandRecord


@dataclass(slots=True)
class AuditResult:
    """What the audit found in one hand (J findings are on the later deal).

    ``errors`` are the rules that crashed on the hand (or the replay that did): they
    are also in ``unverifiable`` (the store counts them there), and kept apart so a
    caller can say the audit is incomplete instead of passing the hand as clean.
    ``file`` and ``first_line`` say where the hand was read (set by ``openers check``;
    empty and 0 for a stored hand).
    """

    hand_id: str
    table_id: str
    findings: list[Finding] = field(default_factory=list)
    unverifiable: list[Unverifiable] = field(default_factory=list)
    errors: list[Unverifiable] = field(default_factory=list)
    file: str = ""
    first_line: int = 0

    def add(self, results: Iterable[Result]) -> None:
        """File findings and unverifiable checks."""
        for r in results:
            if isinstance(r, Finding):
                self.findings.append(r)
            else:
                self.unverifiable.append(r)


def _same_line(f: Finding) -> Any:
    return f.line


def _same_seat(f: Finding) -> Any:
    return f.seat


def _same_pot(f: Finding) -> Any:
    return f.evidence.get("pot", 0)


def _same_hand(f: Finding) -> Any:
    return f.hand_id


#: (special, general, what must match): the general finding is dropped (rules.md).
SUPPRESSIONS: tuple[tuple[str, str, Callable[[Finding], Any]], ...] = (
    ("B107", "B105", _same_line),  # a short call of an all-in opener, not a wrong call
    ("B107", "B106", _same_seat),  # ... nor a seat short at the draw
    ("O208", "O202", _same_seat),
    ("P403", "P401", _same_pot),
    ("O204", "O205", _same_hand),  # an ineligible declaration covers the pot it let play
)


def suppress(findings: list[Finding]) -> list[Finding]:
    """Drop the general findings that a special finding of the same hand covers."""
    present = {f.code for f in findings}
    for special, general, key in SUPPRESSIONS:
        if special in present and general in present:
            covered = {key(f) for f in findings if f.code == special}
            findings = [f for f in findings if f.code != general or key(f) not in covered]
    return findings


def _run(rule: Rule | SequenceRule, ctx: Any, out: AuditResult) -> None:
    ctx.rule = rule
    try:
        out.add(rule.check(ctx))
    except Exception as exc:  # a rule bug must not stop the audit of everything else
        where = traceback.extract_tb(exc.__traceback__)[-1]
        error = ctx.unverifiable(
            f"internal error in {rule.code}: {type(exc).__name__}: {exc} "
            f"({where.filename}:{where.lineno})"
        )
        out.unverifiable.append(error)
        out.errors.append(error)


def audit_hand(
    record: HandRecord,
    profile: Profile,
    rules: Sequence[Rule] | None = None,
    replays: dict[str, Replay] | None = None,
) -> AuditResult:
    """Replay one hand and run the hand rules (default: all the profile enables).

    ``replays``, when given, receives the hand's replay by hand id, for
    :func:`audit_sequences` to reuse.
    """
    out = AuditResult(record.hand_id, record.table_id)
    rules = hand_rules(profile) if rules is None else rules
    try:
        replay = Replay(record)
        if replays is not None:
            replays.setdefault(record.hand_id, replay)
        ctx = HandContext(record, profile, replay)
    except Exception as exc:  # a replay bug must not stop the audit of other hands
        reason = f"internal error in the replay: {type(exc).__name__}: {exc}"
        out.unverifiable.extend(
            Unverifiable(code=r.code, hand_id=record.hand_id, table_id=record.table_id,
                         reason=reason) for r in rules)
        out.errors.extend(out.unverifiable)
        return out
    for rule in rules:
        _run(rule, ctx, out)
    if len(out.findings) > 1:
        out.findings = suppress(out.findings)
    return out


def sequence_pairs(
    records: Iterable[HandRecord],
) -> list[tuple[HandRecord | None, HandRecord]]:
    """Each deal with the one before it at its table (None for the table's first deal).

    Deals are ordered by ``Time`` then id. Every deal appears once as ``current``, so
    the single-deal parts of the J rules judge a table's first deal too. Callers that
    audit part of a table (a batch, new deals of a stored table) pass the deal just
    before that part as well, so only a really-first deal gets None (their result
    for that context deal is dropped).
    """
    by_table: dict[str, list[HandRecord]] = defaultdict(list)
    for r in records:
        by_table[r.table_id].append(r)
    pairs: list[tuple[HandRecord | None, HandRecord]] = []
    for deals in by_table.values():
        deals.sort(key=lambda r: (r.time, r.hand_id))
        before: list[HandRecord | None] = [None, *deals]
        pairs.extend(zip(before, deals, strict=False))
    return pairs


def audit_sequences(
    records: Iterable[HandRecord],
    profile: Profile,
    rules: Sequence[SequenceRule] | None = None,
    replays: Mapping[str, Replay] | None = None,
) -> list[AuditResult]:
    """Run the J rules on every deal and the one before it; one result per deal with any.

    ``replays`` are replays already built for these deals (by :func:`audit_hand`).
    """
    rules = sequence_rules(profile) if rules is None else rules
    if not rules:
        return []
    results = []
    for previous, current in sequence_pairs(records):
        ctx = SequenceContext(previous, current, profile, replays)
        out = AuditResult(current.hand_id, current.table_id)
        for rule in rules:
            _run(rule, ctx, out)
        if out.findings or out.unverifiable or out.errors:
            results.append(out)
    return results


def audit_hands(records: Iterable[HandRecord], profile: Profile) -> list[AuditResult]:
    """Audit hands: per-hand rules, then the deal sequences; one result per hand, in order."""
    records = list(records)
    rules = hand_rules(profile)
    replays: dict[str, Replay] = {}
    results = [audit_hand(r, profile, rules, replays) for r in records]
    merge(results, audit_sequences(records, profile, replays=replays))
    return results


def merge(results: list[AuditResult], sequence_results: Iterable[AuditResult]) -> None:
    """Add sequence findings to the per-hand results of the same hand ids."""
    by_id = {r.hand_id: r for r in results}
    for extra in sequence_results:
        target = by_id.get(extra.hand_id)
        if target is None:
            results.append(extra)
            by_id[extra.hand_id] = extra
        else:
            target.findings.extend(extra.findings)
            target.unverifiable.extend(extra.unverifiable)
            target.errors.extend(extra.errors)
            target.findings = suppress(target.findings)
