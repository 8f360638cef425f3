"""Every five-card hand, with and without the joker, against the brute-force reference.

Hands fall into classes: the same ranks, and whether the natural cards all share one
suit. The reference is evaluated once per class (suit symmetry: no other fact about the
suits changes a hand's value; ``test_reference_is_constant_on_classes`` samples that).
Then:

* ``test_class_order_matches_reference``: over all ~10,000 classes, ``evaluate`` and the
  reference induce the same order (equal exactly when equal, and sorted alike), and
  ``category`` (and the start of ``describe``) names the reference's category;
* the chunked tests: every one of the 2,598,960 natural hands and 270,725 joker hands
  gets exactly its class's strength. Chunks let pytest-xdist spread them over workers.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from functools import cache
from itertools import combinations, combinations_with_replacement, islice
from math import comb

import pytest

from audit.evaluator import category, describe_strength, evaluate
from tests.audit.test_evaluator_reference import JOKER, NAMES, NATURALS, reference_value

ClassKey = tuple[object, ...]
NATURAL_HANDS = comb(52, 5)
JOKER_HANDS = comb(52, 4)
CHUNKS = 8


def _representative(rank_indexes: tuple[int, ...], suited: bool) -> list[str]:
    """A hand of the class: the k-th card of a rank gets suit k, unless all one suit."""
    if suited:
        return [NATURALS[4 * rank + 3] for rank in rank_indexes]
    seen: Counter[int] = Counter()
    indexes = []
    for rank in rank_indexes:
        indexes.append(4 * rank + seen[rank])
        seen[rank] += 1
    if len({index % 4 for index in indexes}) == 1:
        indexes[-1] += 1  # all ranks differ here, so suit 1 is free for the last one
    return [NATURALS[index] for index in indexes]


def _key(indexes: tuple[int, ...]) -> ClassKey:
    """Class of natural cards given as ascending deck indexes (plus the joker if 4 cards)."""
    return (*(index >> 2 for index in indexes), len({index & 3 for index in indexes}) == 1)


def class_hands() -> Iterator[tuple[ClassKey, list[str]]]:
    """One hand of every class, with and without the joker, and its key."""
    for size, extra in ((5, []), (4, [JOKER])):
        for ranks in combinations_with_replacement(range(13), size):
            if max(Counter(ranks).values()) > 4:
                continue
            for suited in (False, True) if len(set(ranks)) == size else (False,):
                yield (*ranks, suited), [*_representative(ranks, suited), *extra]


@cache
def class_table() -> dict[ClassKey, tuple[int, tuple[int, ...]]]:
    """Class key → (our strength, reference value) for every class with and without joker."""
    return {key: (evaluate(hand), reference_value(hand)) for key, hand in class_hands()}


def test_class_order_matches_reference():
    table = class_table()
    assert len(table) == 6175 + 1287 + 1820 + 715
    ours = sorted(set(table.values()))
    strengths = [strength for strength, _ in ours]
    references = [reference for _, reference in ours]
    # One reference value per strength, one strength per reference value, same order.
    assert len(set(strengths)) == len(ours)
    assert len(set(references)) == len(ours)
    assert references == sorted(references)
    for strength, reference in ours:
        assert category(strength).value == NAMES[reference[0]]
        assert describe_strength(strength).startswith(NAMES[reference[0]])


def test_reference_is_constant_on_classes():
    table = class_table()
    rng = random.Random(20261130)
    for _ in range(400):
        size = rng.choice((4, 5))
        indexes = tuple(sorted(rng.sample(range(52), size)))
        hand = [NATURALS[index] for index in indexes] + ([JOKER] if size == 4 else [])
        assert reference_value(hand) == table[_key(indexes)][1], hand


def _mismatches(size: int, start: int, stop: int) -> list[tuple[list[str], int, int]]:
    expected = {key: strength for key, (strength, _) in class_table().items()}
    extra = (JOKER,) if size == 4 else ()
    bad = []
    for indexes in islice(combinations(range(52), size), start, stop):
        hand = (*(NATURALS[index] for index in indexes), *extra)
        want = expected[_key(indexes)]
        got = evaluate(hand)
        if got != want:
            bad.append((list(hand), got, want))
    return bad


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_every_natural_hand(chunk):
    start, stop = NATURAL_HANDS * chunk // CHUNKS, NATURAL_HANDS * (chunk + 1) // CHUNKS
    assert _mismatches(5, start, stop)[:5] == []


def test_every_joker_hand():
    assert _mismatches(4, 0, JOKER_HANDS)[:5] == []
