"""The compiled evaluator and openers tests equal the reference, hand for hand.

Strengths are compared over every five-card hand (with and without the joker); the
openers tests over a seeded random sample of card lists (jokers, unknown cards,
repeats, 0..6 cards) for every minimum and both bobtail settings, plus the cases the
rules single out. A reference ``ValueError`` must come back as -1, nothing else may.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from itertools import combinations
from math import comb

import numpy as np
import pytest
from numba import njit

from audit import opening
from audit.evaluator import HandCategory, evaluate
from audit.facts import evaluate as fe
from audit.facts.layout import CARD, JOKER_CODE, OPENERS_CODE, UNKNOWN_CODE
from schemas.records import CARD_CODES, Openers

MINIMA: tuple[Openers, ...] = tuple(Openers)
NATURALS = 52


def codes(cards: str) -> np.ndarray:
    return np.array([CARD[c] for c in cards.split()], dtype=np.int8)


def names(array: Iterable[int] | np.ndarray) -> list[str]:
    return [CARD_CODES[int(c)] for c in array]


def reference(function: Callable[..., bool], *args: object, bobtail: bool) -> int:
    """The reference's answer as the compiled code gives it: 1 / 0, -1 for ValueError."""
    try:
        return int(function(*args, bobtail=bobtail))
    except ValueError:
        return -1


def all_hands(deck: int) -> np.ndarray:
    count = comb(deck, 5)
    return np.fromiter(combinations(range(deck), 5), dtype=np.dtype((np.int8, 5)), count=count)


def test_layout_codes_match() -> None:
    assert (fe.JOKER, fe.UNKNOWN) == (JOKER_CODE, UNKNOWN_CODE)
    assert fe.CATEGORY_SHIFT == 20
    # The import guard against stale numba caches: tables built now are those recorded.
    assert fe.tables_crc32() == fe.REFERENCE_TABLES_CRC32


def test_every_natural_hand_equals_the_reference() -> None:
    deck = [CARD_CODES[c] for c in range(NATURALS)]
    expected = np.fromiter(map(evaluate, combinations(deck, 5)), dtype=np.int64,
                           count=comb(NATURALS, 5))
    got = fe.strengths_of_hands(all_hands(NATURALS))
    mismatched = np.flatnonzero(got != expected)
    assert mismatched.size == 0, f"{mismatched.size} hands differ, first {mismatched[:5]}"


def test_every_joker_hand_equals_the_reference() -> None:
    fours = np.fromiter(combinations(range(NATURALS), 4), dtype=np.dtype((np.int8, 4)),
                        count=comb(NATURALS, 4))
    hands = np.empty((fours.shape[0], 5), dtype=np.int8)
    # The joker in every position across the sample, to catch order dependence.
    positions = np.arange(fours.shape[0]) % 5
    for position in range(5):
        rows = positions == position
        hands[rows, position] = JOKER_CODE
        others = [p for p in range(5) if p != position]
        hands[np.ix_(rows, others)] = fours[rows]
    expected = np.fromiter((evaluate(names(h)) for h in hands), dtype=np.int64,
                           count=hands.shape[0])
    got = fe.strengths_of_hands(hands)
    mismatched = np.flatnonzero(got != expected)
    assert mismatched.size == 0, f"{mismatched.size} hands differ, e.g. {hands[mismatched[:3]]}"
    assert (got >> 20 == HandCategory.FIVE_ACES.level).sum() == 1


def test_strength_errors_are_minus_one_where_the_reference_raises() -> None:
    ace_joker = [48, 49, 50, 51, JOKER_CODE]
    assert fe.strength5(*ace_joker) == evaluate(names(ace_joker))
    assert fe.strength5(0, 0, 1, 2, 3) == -1  # repeat
    assert fe.strength5(JOKER_CODE, 1, 2, 3, JOKER_CODE) == -1  # two jokers
    assert fe.strength5(0, 1, 2, 3, UNKNOWN_CODE) == -1
    assert fe.strength5(0, 1, 2, 3, -1) == -1
    assert fe.strength5(0, 1, 2, 3, 54) == -1
    assert fe.strength5(0, 1, 2, 3, 127) == -1
    cards = np.array([7, 0, 4, 8, 12, 16, 20, 53], dtype=np.int8)
    assert fe.strength_of(cards, 1, 5) == evaluate(names(cards[1:6]))
    assert fe.strength_of(cards, 1, 4) == -1
    assert fe.strength_of(cards, 1, 6) == -1
    assert fe.strength_of(cards, 3, 5) == -1  # ends on the unknown card
    with pytest.raises(ValueError):
        evaluate(names(cards[3:8]))


@njit
def _raw_int8_strengths(hands: np.ndarray) -> np.ndarray:
    """strength5 called from compiled code with the array's int8 elements, unconverted."""
    out = np.empty(hands.shape[0], dtype=np.int64)
    for h in range(hands.shape[0]):
        out[h] = fe.strength5(hands[h, 0], hands[h, 1], hands[h, 2], hands[h, 3], hands[h, 4])
    return out


def test_int8_arguments_from_compiled_code() -> None:
    rng = np.random.default_rng(3)
    hands = rng.integers(-2, 56, size=(20_000, 5)).astype(np.int8)
    hands[:5000] = rng.integers(44, 53, size=(5000, 5))  # aces, kings, joker: many repeats
    expected = np.array([reference_strength(row) for row in hands.tolist()], dtype=np.int64)
    assert (_raw_int8_strengths(hands) == expected).all()
    assert (fe.strengths_of_hands(hands) == expected).all()
    assert (expected == -1).sum() > 1000


def reference_strength(row: list[int]) -> int:
    if not all(0 <= c <= JOKER_CODE for c in row):
        return -1  # codes the log format cannot spell are not cards
    try:
        return evaluate(names(row))
    except ValueError:
        return -1


def test_category_and_leading_rank() -> None:
    strength = fe.strength_of(codes("Ah Jk 7c 4d 2s"), 0, 5)
    assert strength >> fe.CATEGORY_SHIFT == HandCategory.ONE_PAIR.level
    assert fe.leading_rank_code(strength) == 12
    assert fe.leading_rank_code(-1) == -1


@pytest.mark.parametrize(
    ("cards", "minimum", "bobtail", "expected"),
    [
        ("Ah Jk 7c 4d 2s", Openers.AA, False, 1),  # ace-joker is a pair of aces
        ("Jh Jk 7c 4d 2s", Openers.JJ, False, 0),  # jack-joker is not a pair of jacks
        ("Jh Jc 7c 4d 2s", Openers.JJ, False, 1),
        ("Jh Jc 7c 4d 2s", Openers.QQ, False, 0),
        ("Ks Kd 7c 4d 2s", Openers.AA, False, 0),
        ("7h 7c 4c 4d 2s", Openers.AA, False, 1),  # two pair always
        ("Jk 3s 7s 9s Kd", Openers.AA, True, 1),  # joker + three spades: four to a flush
        ("Jk 3s 7s 9s Kd", Openers.JJ, False, 0),
        ("Jk 5c 6d 8h Kd", Openers.JJ, True, 1),  # joker as the seven: open-ended
        ("Jk 5c 7d 9h Kd", Openers.JJ, True, 0),  # double gutshot
        ("Ac 2d 3h 4s 9c", Openers.JJ, True, 0),  # A-2-3-4 is one-ended
        ("Jc Qd Kh As 4c", Openers.JJ, True, 0),  # J-Q-K-A is one-ended
        ("Tc Jd Qh Ks 4c", Openers.JJ, True, 1),
        ("2c 3d 4h 5s 9c", Openers.JJ, True, 1),
        ("2c 3d 4h 5s 9c", Openers.JJ, False, 0),
        ("2c 3d 4h 5s ??", Openers.ANY, False, 1),
        ("2c 3d 4h 5s ??", Openers.JJ, False, -1),
        ("2c 2c 4h 5s 9d", Openers.JJ, False, -1),
        ("2c 3d 4h 5s", Openers.JJ, True, -1),
    ],
)
def test_openers_tricky_cases(cards: str, minimum: Openers, bobtail: bool, expected: int) -> None:
    array = codes(cards)
    assert fe.is_openers(array, 0, array.size, OPENERS_CODE[minimum], bobtail) == expected
    assert expected == reference(opening.is_openers, cards.split(), minimum,
                                 bobtail=bobtail)


def test_holds_openers_tricky_cases() -> None:
    aa, jj = OPENERS_CODE[Openers.AA], OPENERS_CODE[Openers.JJ]
    assert fe.holds_openers(codes("Ac Jk"), 0, 2, aa, False) == 1
    assert fe.holds_openers(codes("Jc Jk"), 0, 2, jj, False) == 0
    assert fe.holds_openers(codes("Jc Jk Js"), 0, 3, jj, False) == 1  # three: jacks and an ace
    assert fe.holds_openers(codes("Jk 5s 8s Ks"), 0, 4, jj, True) == 1
    assert fe.holds_openers(codes("Jk 5s 8s Ks"), 0, 3, jj, True) == 0  # only four cards
    assert fe.holds_openers(codes("Ac Jk ??"), 0, 3, 0, False) == 1
    assert fe.holds_openers(codes("Ac Jk ??"), 0, 3, aa, False) == -1
    assert fe.holds_openers(codes("Ac Jk 2c 3c 4c 5c"), 0, 6, jj, False) == -1
    assert fe.holds_openers(codes("Ac"), 0, 0, jj, False) == 0
    assert fe.is_openers(codes("Ac Ad 2c 3c 4c"), 0, 5, 5, False) == -1  # not a minimum


def random_cards(rng: random.Random) -> list[int]:
    """0..6 cards, mostly known and distinct, sometimes with jokers, ``??`` or repeats."""
    size = rng.choice((0, 1, 2, 3, 4, 4, 5, 5, 5, 5, 5, 6))
    if rng.random() < 0.5:
        # Few ranks and suits, so pairs, trips, flushes and runs are common.
        pool = [r * 4 + s for r in rng.sample(range(13), 5) for s in rng.sample(range(4), 2)]
        cards = rng.sample(pool, min(size, len(pool)))
    else:
        cards = rng.sample(range(NATURALS), size)
    for i in range(len(cards)):
        roll = rng.random()
        if roll < 0.12:
            cards[i] = JOKER_CODE
        elif roll < 0.14:
            cards[i] = UNKNOWN_CODE
        elif roll < 0.16 and i:
            cards[i] = cards[0]
    return cards


def test_openers_equal_the_reference_on_random_cards() -> None:
    rng = random.Random(20261130)
    seen: set[int] = set()
    for _ in range(8_000):
        dealt = random_cards(rng)
        array = np.array([*dealt, 0], dtype=np.int8)  # a trailing card outside the slice
        words = names(dealt)
        for minimum in MINIMA:
            code = OPENERS_CODE[minimum]
            for bobtail in (False, True):
                expected = reference(opening.is_openers, words, minimum, bobtail=bobtail)
                got = fe.is_openers(array, 0, len(dealt), code, bobtail)
                assert got == expected, (words, minimum, bobtail)
                expected = reference(opening.holds_openers, words, minimum,
                                     bobtail=bobtail)
                got = fe.holds_openers(array, 0, len(dealt), code, bobtail)
                assert got == expected, (words, minimum, bobtail)
                seen.add(got)
    assert seen == {-1, 0, 1}
