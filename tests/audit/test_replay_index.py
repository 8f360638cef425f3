"""The replay's shared line index and its freedom from reference cycles.

``Replay.actions_of`` stands in for rules' scans of every line, so it must give
exactly the lines such a scan finds, in log order. A replay must be freed by
reference counting alone: ``openers check`` pauses the cyclic garbage collector per
batch, and cyclic replays would pile up until it resumed.
"""

from __future__ import annotations

import gc

import pytest

from audit.replay import Replay
from ingest.parser import parse_hand
from schemas.records import Verb
from tests.audit.harness import all_fixture_hands

HANDS = all_fixture_hands()
VERB_SETS = [(Verb.DISCARDS,), (Verb.DEALT, Verb.DEALS), (Verb.FOLDS, Verb.FALSE_OPENERS,
                                                          Verb.FOULED_HAND, Verb.SHOWS)]


@pytest.mark.parametrize("verbs", VERB_SETS, ids=str)
def test_actions_of_is_the_filtered_log(verbs: tuple[Verb, ...]) -> None:
    checked = 0
    for hand in HANDS:
        record = parse_hand(hand.text)
        want = [a for a in record.actions if a.verb in verbs]
        assert list(Replay(record).actions_of(*verbs)) == want, hand.text.splitlines()[0]
        checked += bool(want)
    assert checked  # the fixtures do exercise these verbs


def test_replays_leave_no_cyclic_garbage() -> None:
    records = [parse_hand(hand.text) for hand in HANDS[:50]]
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for record in records:
            replay = Replay(record)
            _ = [step.totals for step in replay.steps], replay.by_verb
            del replay
        assert gc.collect() == 0
    finally:
        if was_enabled:
            gc.enable()
