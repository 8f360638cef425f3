"""The engine over facts: a rule that crashes is isolated to the hands it crashes on, and a
hand that cannot be replayed is reported for every rule, never passed silently."""

from __future__ import annotations

from collections.abc import Iterator

from audit.engine import run_rules
from audit.facts.context import Batch, Result
from audit.facts.labels import RecordLabels
from audit.facts.layout import from_records
from audit.facts.replay import replay_facts
from audit.profiles import load_profile
from audit.rule import Rule
from schemas.findings import Severity
from tests.audit.corpus import corpus


class _FragileRule(Rule):
    """Flags every hand, but raises on hands whose first line is odd."""

    code = "B199"
    name = "fragile"
    severity = Severity.MINOR
    source = "-"
    summary = "test rule"

    def check(self, ctx: Batch) -> Iterator[Result]:
        if len(ctx) > 1 and (ctx.hands.first_line % 2 == 1).any():
            raise RuntimeError("a batch with an odd hand")
        for hand in range(len(ctx)):
            if ctx.hands.first_line[hand] % 2 == 1:
                raise RuntimeError("an odd hand")
            yield ctx.finding(hand, "flagged")


def test_a_crashing_rule_is_isolated_hand_by_hand() -> None:
    records = list(corpus("robert", hands=60, seed=31, violations=0.0, unrecorded=0.0).records)
    profile = load_profile("robert")
    ctx = Batch(replay_facts(from_records(records), profile), profile, RecordLabels(records))
    results = run_rules(ctx, [_FragileRule()])
    odd = [h for h, r in enumerate(records) if r.first_line % 2 == 1]
    assert odd and len(odd) < len(records)
    for h in range(len(records)):
        out = results[h]
        if h in odd:
            assert not out.findings and len(out.errors) == 1
            assert "internal error in B199: RuntimeError: an odd hand" in out.errors[0].reason
        else:
            assert [f.message for f in out.findings] == ["flagged"] and not out.errors


def test_a_hand_that_cannot_be_replayed_is_reported_for_every_rule() -> None:
    records = list(corpus("robert", hands=60, seed=31, violations=0.0, unrecorded=0.0).records)
    twice = records[0].model_copy(update={"seats": (*records[0].seats, records[0].seats[0])})
    batch = [twice, *records[1:]]
    profile = load_profile("robert")
    facts = replay_facts(from_records(batch), profile)
    assert facts.hands["replayed"].tolist() == [False] + [True] * (len(batch) - 1)
    ctx = Batch(facts, profile, RecordLabels(batch))
    results = run_rules(ctx, [_FragileRule()])
    assert len(results[0].errors) == 1
    assert "cannot be replayed" in results[0].errors[0].reason
    assert all(results[h].findings or results[h].errors for h in range(1, len(batch)))
