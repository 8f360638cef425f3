"""Hand-picked cases from the rulebooks, the API's errors, and property tests."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from audit.evaluator import HandCategory, category, describe, evaluate, ranks
from tests.audit.test_evaluator_reference import (
    JOKER,
    NAMES,
    NATURALS,
    cards_of,
    reference_value,
)

five_cards = st.lists(st.sampled_from([*NATURALS, JOKER]), min_size=5, max_size=5, unique=True)
joker_hands = st.lists(st.sampled_from(NATURALS), min_size=4, max_size=4, unique=True).map(
    lambda four: [*four, JOKER]
)


def read(hand: str) -> str:
    return describe(hand.split())


@pytest.mark.parametrize(
    ("hand", "reading"),
    [
        # R-JK 4: four aces and the joker.
        ("Ac Ad Jk Ah As", "five aces"),
        # R-JB 10: ace, joker, king, queen of spades and the ten of clubs.
        ("As Jk Ks Qs Tc", "straight, ace high"),
        # R-JK 3: the joker is the highest card of the suit missing from the hand.
        ("Jk Ks Qs 7s 4s", "flush, A-K-Q-7-4"),
        ("Jk As Ks 7s 4s", "flush, A-K-Q-7-4"),
        ("Jk As Ks Qs 4s", "flush, A-K-Q-J-4"),
        # The straight flush beats the ace-high flush the highest missing card would make.
        ("Jk 9s 8s 7s 6s", "straight flush, ten high"),
        ("Jk As Ks Qs Js", "straight flush, ace high"),
        ("Jk As 2s 3s 4s", "straight flush, five high"),
        # Wheels with the joker, and the highest straight it can complete.
        ("Jk Ac 2d 3h 4s", "straight, five high"),
        ("Jk Ac 2d 3h 5s", "straight, five high"),
        ("Jk 2c 3d 4h 5s", "straight, six high"),
        ("Jk Kc Qd Jh Ts", "straight, ace high"),
        ("Jk Ac Kd Qh Ts", "straight, ace high"),
        # Never another wild card: the joker is an ace in pairs, trips and quads.
        ("Jk Kd Kc 7s 4h", "one pair, kings (A-7-4)"),
        ("Jk Jd 9c 7s 4h", "high card, A-J-9-7-4"),  # jack–joker is no pair
        ("Jk Kd Kc 7s 7h", "two pair, kings and sevens (A)"),
        ("Jk Kd Kc Ad Ac", "full house, aces full of kings"),
        ("Jk Kd Kc Kh 7s", "three of a kind, kings (A-7)"),
        ("Jk Kd Kc Kh As", "full house, kings full of aces"),
        ("Jk Kd Kc Kh Ks", "four of a kind, kings (A)"),
        ("Jk Ad Ac Ah 7s", "four of a kind, aces (7)"),
        ("Jk Ad Ac 9h 7s", "three of a kind, aces (9-7)"),
        ("Jk Kd Qc 9h 7s", "high card, A-K-Q-9-7"),
        # The format spec's example hand.
        ("Kd Kc Kh 7s 7h", "full house, kings full of sevens"),
        ("Ac Jk Ad 8h 7c", "three of a kind, aces (8-7)"),
        # Natural hands: the ace low only in the wheel.
        ("Ac 2d 3h 4s 5c", "straight, five high"),
        ("Ac Kd Qh Js Tc", "straight, ace high"),
        ("Qc Kd Ah 2s 3c", "high card, A-K-Q-3-2"),
        ("Ac 2c 3c 4c 5c", "straight flush, five high"),
        ("Ac Jc 8c 4c 2c", "flush, A-J-8-4-2"),
        ("6c 6d 6h 6s 2c", "four of a kind, sixes (2)"),
    ],
)
def test_readings(hand, reading):
    assert read(hand) == reading


@pytest.mark.parametrize(
    ("worse", "better"),
    [
        ("Ac Kc Qc Jc Tc", "Ac Ad Ah As Jk"),  # five aces beat a royal flush
        ("Jk Kd Kc 7s 4h", "Kh Ks Kc 2d 3h"),  # joker + kings is no three kings
        ("Jk Kd Kc 7s 4h", "Kh Ks Ac 7d 5h"),  # ... and its ace kicker beats a seven
        ("Kh Ks Ac 7d 4h", "Jk Kd Kc 7s 5h"),
        ("Ac 2d 3h 4s 5c", "2c 3d 4h 5s 6c"),  # the wheel is the lowest straight
        ("Jk Ac 2d 3h 4s", "Jk 2c 3d 4h 5s"),
        ("Jk Ks Qs 7s 4s", "Ah Kh Qh 7h 5h"),  # the joker is the ace, not a second king
    ],
)
def test_order(worse, better):
    assert evaluate(worse.split()) < evaluate(better.split())


def test_joker_flush_ties_the_natural_flush_it_stands_for():
    assert evaluate(cards_of("Jk Ks Qs 7s 4s")) == evaluate(cards_of("Ah Kh Qh 7h 4h"))


@pytest.mark.parametrize(
    "cards",
    [
        "Ah Kd Qh Js",  # four cards
        "Ah Kd Qh Js Tc 9c",  # six
        "Ah Kd Qh Js ??",  # unknown card
        "Ah Kd Qh Js Ah",  # repeated card
        "Jk Kd Qh Js Jk",  # two jokers
        "Ah Kd Qh Js 1c",
        "ah Kd Qh Js Tc",
    ],
)
def test_rejects_what_is_not_five_distinct_cards(cards):
    with pytest.raises(ValueError):
        evaluate(cards.split())


@pytest.mark.parametrize("bad", ["AhKdQhJsTc", "AhKdQ", None, [["Ah"]] * 5, 12345])
def test_rejects_other_inputs(bad):
    with pytest.raises(ValueError):
        evaluate(bad)


def test_category_and_ranks_read_back_the_strength():
    strength = evaluate(cards_of("Kd Kc 7s 7h Ah"))
    assert category(strength) is HandCategory.TWO_PAIR
    assert ranks(strength) == (13, 7, 14)
    assert ranks(evaluate(cards_of("Jk Ad Ac Ah As"))) == (14,)
    assert ranks(evaluate(cards_of("Jk 2d 3c 4h Ac"))) == (5,)
    assert [c.level for c in HandCategory] == list(range(10))
    assert [c.value for c in HandCategory] == NAMES
    with pytest.raises(ValueError):
        category(-1)
    with pytest.raises(ValueError):
        category(10 << 20)


@given(five_cards, five_cards)
def test_order_matches_reference(first, second):
    ours = evaluate(first), evaluate(second)
    theirs = reference_value(first), reference_value(second)
    assert (ours[0] > ours[1]) == (theirs[0] > theirs[1])
    assert (ours[0] == ours[1]) == (theirs[0] == theirs[1])


@given(joker_hands, joker_hands)
def test_joker_order_matches_reference(first, second):
    below = reference_value(first) < reference_value(second)
    assert (evaluate(first) < evaluate(second)) == below
    assert category(evaluate(first)).value == NAMES[reference_value(first)[0]]


@given(five_cards, st.randoms(use_true_random=False))
def test_order_of_cards_does_not_matter(hand, rng):
    shuffled = list(hand)
    rng.shuffle(shuffled)
    assert evaluate(tuple(shuffled)) == evaluate(hand)
    assert describe(shuffled).startswith(category(evaluate(hand)).value)


@given(st.lists(st.sampled_from([*NATURALS, JOKER]), min_size=5, max_size=5))
def test_repeats_raise_and_distinct_cards_do_not(hand):
    if len(set(hand)) < 5:
        with pytest.raises(ValueError):
            evaluate(hand)
    else:
        assert evaluate(hand) >= 0
