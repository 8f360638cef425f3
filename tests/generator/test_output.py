"""What the generator writes: files per table per day, hands that parse, labels, money."""

from __future__ import annotations

import itertools
import re
from collections import Counter
from pathlib import Path

from audit.replay import Replay
from ingest.reader import HandReader, ParsedHand
from schemas.records import UNKNOWN_CARD, HandRecord, Verb
from tests.generator.conftest import Generate, log_files, read_labels


def _records(out: Path) -> list[HandRecord]:
    records = []
    for path in log_files(out):
        for item in HandReader(path):
            assert isinstance(item, ParsedHand), f"{path}: {item}"
            records.append(item.record)
    return records


def test_every_hand_parses_and_is_labelled(make_room: Generate) -> None:
    out = make_room(hands=1500, tables=4, seed=3, violations=0.1, unrecorded_share=0.2)
    records = _records(out)
    labels = read_labels(out)
    assert len(records) == len(labels) == 1500
    assert [r.hand_id for r in records] == [label["hand_id"] for label in labels]
    # the frozen records are valid pydantic models (the generator builds them unchecked)
    for record in records[:300]:
        assert HandRecord.model_validate(record.model_dump()) == record
    names = [p.name for p in log_files(out)]
    assert all(re.fullmatch(r"T0[1-4]_\d{4}-\d{2}-\d{2}\.log", n) for n in names)
    for record in records:
        path_day = record.time.date().isoformat()
        assert f"{record.table_id}_{path_day}.log" in names


def test_play_looks_like_a_cardroom(make_room: Generate) -> None:
    out = make_room(hands=3000, tables=4, seed=5)
    records = _records(out)
    seats = Counter(len(r.seats) for r in records)
    assert set(seats) <= set(range(4, 9)) and len(seats) >= 3
    verbs = Counter(a.verb for r in records for a in r.actions)
    for verb in (Verb.OPENS, Verb.CALLS, Verb.RAISES, Verb.FOLDS, Verb.DISCARDS,
                 Verb.STANDS_PAT, Verb.SHOWS, Verb.MUCKS, Verb.SHOWS_OPENERS, Verb.BURNS):
        assert verbs[verb] > 0, verb
    assert any(a.all_in for r in records for a in r.actions)
    assert any(a.side_pot for r in records for a in r.actions)
    passed = [r for r in records if r.carried_out is not None]
    assert 0.1 < len(passed) / len(records) < 0.45
    assert any(r.jackpot > 1 and r.carried > 0 for r in records)
    assert len({r.dealer_id for r in records}) > 4
    by_table: dict[str, list[HandRecord]] = {}
    for r in records:
        by_table.setdefault(r.table_id, []).append(r)
    for deals in by_table.values():
        gaps = [(b.time - a.time).total_seconds() for a, b in itertools.pairwise(deals)
                if a.time.date() == b.time.date()]
        assert min(gaps) >= 60 and max(gaps) <= 180


def test_chips_are_conserved(make_room: Generate) -> None:
    out = make_room(hands=3000, tables=4, seed=8)
    for r in _records(out):
        collects = [a for a in r.actions if a.verb is Verb.COLLECTS]
        if r.carried_out is not None:
            assert r.carried_out == r.pot and not collects
            continue
        assert sum(a.amount or 0 for a in collects) + r.rake == r.pot
        assert Replay(r).pot_total == r.pot  # the audit's own count of chips in


def test_unrecorded_cards_only_in_clean_hands(make_room: Generate) -> None:
    out = make_room(hands=800, tables=2, seed=4, violations=0.2, unrecorded_share=0.5)
    labels = {label["hand_id"]: label for label in read_labels(out)}
    hidden = 0
    for r in _records(out):
        has_unknown = any(UNKNOWN_CARD in (a.cards or ()) for a in r.actions)
        if has_unknown:
            hidden += 1
            assert labels[r.hand_id]["codes"] == [] and labels[r.hand_id]["unrecorded"]
    assert hidden > 50
