"""Run the rules over the fact tables: a batch of hands, then every deal of a run.

:func:`run_rules` runs every enabled hand rule on a batch's facts at once (a rule that
raises is run again hand by hand, so its bug is reported on the hands it breaks on as an
internal error, also unverifiable, and every other hand is still checked);
:func:`run_sequence_rules` runs the J rules once over one row per deal of a run;
:func:`audit_records` does both for parsed records, with the compiled replay or
(``reference=True``) the Python one. Where rules.md says one finding is the special case
of another for the same line, seat or pot, :data:`SUPPRESSIONS` keeps only the special
one; this is done here, once, never inside a rule.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from audit.facts.context import Batch, Result
from audit.facts.deals import deals_of, pair
from audit.facts.labels import Labels, RecordLabels
from audit.facts.layout import from_records
from audit.facts.reference import reference_facts
from audit.facts.sequence import Run
from audit.facts.tables import take
from audit.house import Profile
from audit.registry import hand_rules, sequence_rules
from audit.rule import Rule, SequenceRule
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

    def add(self, results: Iterable[Finding | Unverifiable]) -> None:
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


def _collect(results: dict[int, AuditResult], found: list[tuple[Result, bool]]) -> None:
    """File each ``((row, finding or unverifiable), is an internal error)`` under its row."""
    for (row, result), error in found:
        out = results.get(row)
        if out is None:
            out = results[row] = AuditResult(result.hand_id, result.table_id)
        if isinstance(result, Finding):
            out.findings.append(result)
        else:
            out.unverifiable.append(result)
            if error:
                out.errors.append(result)


def _suppressed(results: dict[int, AuditResult]) -> dict[int, AuditResult]:
    for out in results.values():
        if len(out.findings) > 1:
            out.findings = suppress(out.findings)
    return results


class _Picked:
    """The labels of some hands of a batch, by their row in the picked facts."""

    def __init__(self, labels: Labels, hands: Sequence[int]) -> None:
        self.inner, self.hands = labels, hands

    def hand_id(self, hand: int) -> str:
        return self.inner.hand_id(self.hands[hand])

    def table_id(self, hand: int) -> str:
        return self.inner.table_id(self.hands[hand])

    def player_id(self, hand: int, seat: int) -> str:
        return self.inner.player_id(self.hands[hand], seat)

    def reading(self, hand: int, index: int) -> str | None:
        return self.inner.reading(self.hands[hand], index)

    def result_line(self, hand: int) -> int:
        return self.inner.result_line(self.hands[hand])


def _error(ctx: Batch, rule: Rule, hand: int, exc: Exception) -> Result:
    where = traceback.extract_tb(exc.__traceback__)[-1]
    return ctx.unverifiable(hand, f"internal error in {rule.code}: {type(exc).__name__}: "
                                  f"{exc} ({where.filename}:{where.lineno})")


def _hand_by_hand(ctx: Batch, rule: Rule) -> list[tuple[Result, bool]]:
    """The rule on each hand alone: (result, is an internal error)."""
    out: list[tuple[Result, bool]] = []
    for hand in range(len(ctx)):
        one = Batch(take(ctx.facts, [hand]), ctx.profile, _Picked(ctx.labels, [hand]))
        one.rule = rule
        try:
            out.extend(((hand, r), False) for _, r in rule.check(one))
        except Exception as exc:  # a rule bug must not stop the audit of everything else
            out.append((_error(ctx, rule, hand, exc), True))
    return out


def run_rules(ctx: Batch, rules: Sequence[Rule]) -> dict[int, AuditResult]:
    """Every rule on every hand of ``ctx``: results by hand row, rule order within a hand.

    A hand that was not replayed (its header names a seat twice) cannot be checked: it
    gets an error for every rule, never a silent pass.
    """
    replayed = ctx.hands.replayed
    if not replayed.all():
        kept = np.flatnonzero(replayed)
        inner = Batch(take(ctx.facts, kept.tolist()), ctx.profile,
                      _Picked(ctx.labels, kept.tolist()))
        picked = {int(kept[h]): r for h, r in run_rules(inner, rules).items()}
        for hand in np.flatnonzero(~replayed).tolist():
            broken = picked[hand] = AuditResult(ctx.labels.hand_id(hand),
                                              ctx.labels.table_id(hand))
            for rule in rules:
                ctx.rule = rule
                _, unverifiable = ctx.unverifiable(
                    hand, "internal error in the replay: the hand cannot be replayed "
                    "(a seat number is given twice)")
                broken.unverifiable.append(unverifiable)  # type: ignore[arg-type]
                broken.errors.append(unverifiable)  # type: ignore[arg-type]
        return picked
    results: dict[int, AuditResult] = {}
    try:
        for rule in rules:
            ctx.rule = rule
            try:
                found = [(r, False) for r in rule.check(ctx)]
            except Exception:
                found = _hand_by_hand(ctx, rule)
            _collect(results, found)
    finally:
        # What the rules shared (the views of candidate hands) points back at the batch:
        # a cycle, freed only by a later garbage collection, that would keep the batch's
        # arrays and the staging read it maps alive past it (a worker held dozens).
        ctx.memo.clear()
    return _suppressed(results)



class _RecordDeals:
    """Deal labels of records (one deal per record, in order)."""

    def __init__(self, records: Sequence[HandRecord]) -> None:
        self.records = records

    def hand_id(self, deal: int) -> str:
        return self.records[deal].hand_id

    def table_id(self, deal: int) -> str:
        return self.records[deal].table_id

    def player_id(self, deal: int, seat: int) -> str:
        return self.records[deal].player_at(seat) or ""


def audit_records(records: Sequence[HandRecord], profile: Profile, *, sequences: bool = True,
                  reference: bool = False) -> list[AuditResult]:
    """Audit parsed records: one result per record, in order (empty where it is clean).

    The hand rules run on each record; with ``sequences``, the J rules on each deal and
    the one before it at its table among ``records``. ``reference`` makes the facts with
    the Python replay instead of the compiled one (the same results).
    """
    records = list(records)
    if reference:
        facts = reference_facts(records, profile)
    else:
        from audit.facts.replay import replay_facts  # compiled code: loaded only when used

        facts = replay_facts(from_records(records), profile)
    ctx = Batch(facts, profile, RecordLabels(records))
    found = run_rules(ctx, hand_rules(profile))
    rules = sequence_rules(profile)
    if sequences and rules and records:
        deals = deals_of(ctx, np.arange(len(records)))
        previous = pair(deals, lambda d: records[d].hand_id)
        for deal, extra in run_sequence_rules(Run(deals, previous, profile,
                                                  _RecordDeals(records)), rules).items():
            mine = found.get(deal)
            if mine is None:
                found[deal] = extra
            else:
                merge([mine], [extra])
    return [found.get(h) or AuditResult(r.hand_id, r.table_id) for h, r in enumerate(records)]


def run_sequence_rules(ctx: Run, rules: Sequence[SequenceRule]) -> dict[int, AuditResult]:
    """Every J rule on every deal in sequence: results by deal row."""
    results: dict[int, AuditResult] = {}
    for rule in rules:
        ctx.rule = rule
        try:
            found = [(r, False) for r in rule.check(ctx)]
        except Exception as exc:  # a rule bug: every deal of the run is unverifiable for it
            where = traceback.extract_tb(exc.__traceback__)[-1]
            reason = (f"internal error in {rule.code}: {type(exc).__name__}: {exc} "
                      f"({where.filename}:{where.lineno})")
            found = [(ctx.unverifiable(d, reason), True)
                     for d in np.flatnonzero(ctx.in_sequence).tolist()]
        _collect(results, found)
    return _suppressed(results)
