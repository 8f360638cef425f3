"""Run the hand rules over a batch's fact tables; one result per hand with anything.

Each rule checks the whole batch at once. A rule that raises is run again hand by
hand, so its bug is reported on the hands it breaks on (as an internal error, also
unverifiable) and every other hand is still checked. Where rules.md makes one
finding the special case of another, :func:`audit.engine.suppress` keeps the special one.
"""

from __future__ import annotations

import traceback
from collections.abc import Sequence

import numpy as np

from audit.engine import AuditResult, merge, suppress
from audit.facts.context import Batch, Result
from audit.facts.deals import deals_of, pair
from audit.facts.labels import Labels, RecordLabels
from audit.facts.layout import from_records
from audit.facts.reference import reference_facts
from audit.facts.registry import hand_rules, sequence_rules
from audit.facts.rule import Rule
from audit.facts.sequence import Run, run_sequence_rules
from audit.facts.tables import take
from audit.profiles import Profile
from schemas.findings import Finding
from schemas.records import HandRecord


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
    for rule in rules:
        ctx.rule = rule
        try:
            found = [(r, False) for r in rule.check(ctx)]
        except Exception:
            found = _hand_by_hand(ctx, rule)
        for (hand, result), error in found:
            out = results.get(hand)
            if out is None:
                out = results[hand] = AuditResult(result.hand_id, result.table_id)
            if isinstance(result, Finding):
                out.findings.append(result)
            else:
                out.unverifiable.append(result)
                if error:
                    out.errors.append(result)
    for out in results.values():
        if len(out.findings) > 1:
            out.findings = suppress(out.findings)
    return results



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
