"""The compiled replay and the reference replay give the same fact tables, exactly.

Every column of every table (hands, actions, seats, pots) and the card array must be
equal between :func:`audit.facts.replay.replay_facts` (compiled, from the flat
arrays) and :func:`audit.facts.reference.reference_facts` (the Python replay, from
records): on generated rooms of the four house profiles with violations planted and
cards unrecorded, on thousands of damaged hands (record and text mutants, ``??``
written anywhere), on every rule fixture, and from the scanner's arrays as well as
from ``from_records``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np
import pytest

from audit.facts.layout import from_records
from audit.facts.reference import reference_facts
from audit.facts.replay import replay_facts
from audit.facts.tables import Facts
from audit.profiles import Profile, load_profile
from ingest.parser import parse_hand
from ingest.reader import QuarantineItem, read_path
from ingest.scan.layout import (
    E_CARDS_COUNT,
    E_CARDS_START,
    E_DRAWN_COUNT,
    E_DRAWN_START,
    H_EVENT_COUNT,
    H_EVENT_START,
    H_SEAT_COUNT,
    H_SEAT_START,
    H_STATUS,
    HandArrays,
)
from ingest.scan.scanner import scan
from ingest.writer import write_hand
from schemas.records import HandRecord
from tests.audit.corpus import corpus
from tests.audit.harness import all_fixture_hands
from tests.audit.mutants import HIDING_PLACES, hide, mutate, record_mutants

PROFILES = ("robert", "house23", "foster", "laws")


def differences(expected: Facts, got: Facts) -> list[str]:
    """Where two sets of tables differ: ``table.column`` with the first hand affected."""
    out = []
    for name in ("hands", "actions", "seats", "pots"):
        a, b = getattr(expected, name), getattr(got, name)
        if a.shape != b.shape:
            out.append(f"{name}: {a.shape} rows, got {b.shape}")
            continue
        for column in a.dtype.names:
            rows = np.flatnonzero(a[column] != b[column])
            if len(rows):
                i = int(rows[0])
                hand = int(a["hand"][i]) if name != "hands" else i
                out.append(f"{name}.{column}: {len(rows)} rows, first hand {hand} "
                           f"(expected {a[column][i]}, got {b[column][i]})")
    if not np.array_equal(expected.cards, got.cards):
        out.append(f"cards: {len(expected.cards)} codes, got {len(got.cards)}")
    return out


def assert_same(records: Sequence[HandRecord], profile: Profile) -> None:
    expected = reference_facts(records, profile)
    got = replay_facts(from_records(records), profile)
    found = differences(expected, got)
    if found:
        first = int(found[0].split("first hand ")[1].split(" ")[0]) if "first hand" in found[0] \
            else 0
        raise AssertionError("\n".join(found) + "\n\n" + write_hand(records[first]))


@pytest.mark.parametrize("name", PROFILES)
def test_generated_rooms(name: str) -> None:
    room = corpus(name, hands=1500, seed=3, violations=0.3, unrecorded=0.1)
    assert_same(room.records, load_profile(name))


@pytest.mark.parametrize("name", PROFILES)
def test_scanned_arrays_give_the_same_facts(name: str) -> None:
    room = corpus(name, hands=800, seed=5, violations=0.2, unrecorded=0.1)
    profile = load_profile(name)
    compared = 0
    for path in room.files:
        records = [got.record for got in read_path(path) if not isinstance(got, QuarantineItem)]
        scanned = scan(np.frombuffer(path.read_bytes(), dtype=np.uint8)).arrays
        assert len(scanned) == len(records)  # generated chunks are all readable hands
        read = scanned.hands[:, H_STATUS] == 0
        got = replay_facts(scanned, profile)
        assert got.hands["replayed"].tolist() == read.tolist()
        # The scanner's rows of the hands it read, as a batch of their own.
        kept = [r for r, ok in zip(records, read, strict=True) if ok]
        expected = reference_facts(kept, profile)
        alone = replay_facts(_rows(scanned, np.flatnonzero(read)), profile)
        assert not differences(expected, alone)
        compared += len(kept)
    assert compared > 0.5 * len(room.records)


def _rows(arrays: HandArrays, rows: np.ndarray) -> HandArrays:
    """The hands ``rows`` of ``arrays`` as a batch of their own (offsets renumbered)."""
    hands, seats, events, cards = [], [], [], []
    seat_at = event_at = card_at = 0
    for h in rows.tolist():
        row = arrays.hands[h].copy()
        s0, sc = row[H_SEAT_START], row[H_SEAT_COUNT]
        e0, ec = row[H_EVENT_START], row[H_EVENT_COUNT]
        ev = arrays.events[e0:e0 + ec].copy()
        low = int(ev[:, E_CARDS_START].min()) if ec else 0
        high = int(max((ev[:, E_DRAWN_START] + np.maximum(ev[:, E_DRAWN_COUNT], 0)).max(),
                       (ev[:, E_CARDS_START] + np.maximum(ev[:, E_CARDS_COUNT], 0)).max())
                   ) if ec else 0
        ev[:, E_CARDS_START] += card_at - low
        ev[:, E_DRAWN_START] += card_at - low
        row[H_SEAT_START], row[H_EVENT_START] = seat_at, event_at
        hands.append(row)
        seats.append(arrays.seats[s0:s0 + sc])
        events.append(ev)
        cards.append(arrays.cards[low:high])
        seat_at, event_at, card_at = seat_at + sc, event_at + ec, card_at + high - low
    return HandArrays(np.array(hands).reshape(-1, arrays.hands.shape[1]),
                      np.concatenate(seats), np.concatenate(events), np.concatenate(cards))


@pytest.mark.parametrize("name", PROFILES)
def test_record_mutants(name: str) -> None:
    room = corpus(name, hands=600, seed=7, violations=0.1, unrecorded=0.05)
    rng = random.Random(f"facts-records-{name}")
    mutants = record_mutants(rng, room.records, per_hand=3)
    assert len(mutants) > 1000
    assert_same(mutants, load_profile(name))


@pytest.mark.parametrize("name", PROFILES)
def test_text_mutants_and_unknown_cards(name: str) -> None:
    room = corpus(name, hands=600, seed=9, violations=0.1, unrecorded=0.05)
    rng = random.Random(f"facts-text-{name}")
    mutants: list[HandRecord] = []
    for record in room.records:
        text = write_hand(record)
        for changed in (mutate(text, rng), mutate(mutate(text, rng), rng),
                        hide(text, rng.choice(sorted(HIDING_PLACES)), rng)):
            try:
                mutants.append(parse_hand(changed))
            except Exception:  # a mutant the reader rejects is no hand
                continue
    assert len(mutants) > 1200
    assert_same(mutants, load_profile(name))


def test_rule_fixtures() -> None:
    by_profile: dict[str, list[HandRecord]] = {}
    for hand in all_fixture_hands():
        by_profile.setdefault(hand.profile, []).append(
            parse_hand(hand.text, first_line=hand.first_line))
    assert sum(map(len, by_profile.values())) > 200
    for name, records in by_profile.items():
        assert_same(records, load_profile(name))


def test_a_seat_given_twice_is_not_replayed() -> None:
    room = corpus("robert", hands=50, seed=11, violations=0.0, unrecorded=0.0)
    record = room.records[0]
    twice = record.model_copy(update={"seats": (*record.seats, record.seats[0])})
    facts = replay_facts(from_records([twice, record]), load_profile("robert"))
    assert facts.hands["replayed"].tolist() == [False, True]
    assert_same([twice, record], load_profile("robert"))


def test_the_compared_columns_vary() -> None:
    """Equality means something only where the columns take many values: every column
    of the mutants' and the fixtures' tables does, but the scanner's status and the
    replayed flag (always 0 and true from records)."""
    room = corpus("robert", hands=600, seed=7, violations=0.1, unrecorded=0.05)
    records = record_mutants(random.Random("facts-records-robert"), room.records, per_hand=1)
    records += [parse_hand(hand.text, first_line=hand.first_line)
                for hand in all_fixture_hands()]
    facts = reference_facts(records, load_profile("robert"))
    constant = [f"{name}.{column}" for name in ("hands", "actions", "seats", "pots")
                for column in getattr(facts, name).dtype.names
                if len(np.unique(getattr(facts, name)[column])) < 2]
    assert constant == ["hands.status", "hands.replayed"]
