"""The openers test: rulebook cases, the decisions the texts leave open, and a reference."""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from audit.opening import (
    MINIMUM_PAIR,
    could_have_held_openers,
    holds_openers,
    is_openers,
    openers_cards,
)
from schemas.records import Openers
from tests.audit.test_evaluator_exhaustive import class_hands, class_table
from tests.audit.test_evaluator_reference import (
    JOKER,
    NATURALS,
    PAIR,
    TWO_PAIR,
    cards_of,
    reference_value,
    value_of,
)

JJ, QQ, KK, AA, ANY = Openers.JJ, Openers.QQ, Openers.KK, Openers.AA, Openers.ANY
PAIR_MINIMUMS = [JJ, QQ, KK, AA]
five_cards = st.lists(st.sampled_from([*NATURALS, JOKER]), min_size=5, max_size=5, unique=True)


def reference_openers(hand: list[str], minimum: Openers) -> bool:
    """Spec "What counts as openers", read off the reference ranking."""
    value = reference_value(hand)
    return value[0] >= TWO_PAIR or (value[0] == PAIR and value[1] >= MINIMUM_PAIR[minimum])


def reference_bobtail(hand: list[str]) -> bool:
    """Some four cards, the joker tried as every card, are four to a flush or an
    open-ended straight (four consecutive ranks from 2-3-4-5 up to T-J-Q-K)."""
    for four in combinations(hand, 4):
        rest = [card for card in four if card != JOKER]
        fillers = [card for card in NATURALS if card not in rest] if JOKER in four else [None]
        for filler in fillers:
            cards = rest + ([filler] if filler else [])
            values = sorted(value_of(card) for card in cards)
            if len({card[1] for card in cards}) == 1:
                return True
            if values == list(range(values[0], values[0] + 4)) and 2 <= values[0] <= 10:
                return True
    return False


@pytest.mark.parametrize(
    ("hand", "opens"),
    [
        ("Jh Js 4c 8d 2s", [JJ]),
        ("Kd Kc 7s 7h 2d", PAIR_MINIMUMS),  # two pair opens anything
        ("Ac Jk 9s 5d 3c", PAIR_MINIMUMS),  # ace–joker is a pair of aces
        ("Jh Jk 9c 7s 4h", []),  # jack–joker is not a pair of jacks
        ("Jk Kd Kc 7s 4h", [JJ, QQ, KK]),  # a pair of kings with an ace kicker
        ("As Jk Ks Qs Tc", PAIR_MINIMUMS),  # R-JB 10: an ace-high straight
        ("Jk 2c 3d 4h 5s", PAIR_MINIMUMS),  # a straight with the joker
        ("Qs Td 6h 4s 3h", []),
        ("Tc Td 6h 4s 3h", []),
        ("Ac Ad 6h 4s 3h", PAIR_MINIMUMS),
    ],
)
def test_pair_minimums(hand, opens):
    cards = hand.split()
    assert [m for m in PAIR_MINIMUMS if is_openers(cards, m)] == opens
    assert is_openers(cards, ANY)


def test_any_opens_on_anything_even_unrecorded_cards():
    assert is_openers(["??"] * 5, ANY)
    assert holds_openers([], ANY)
    with pytest.raises(ValueError):
        is_openers(["??"] * 5, JJ)


@pytest.mark.parametrize(
    ("hand", "bobtail"),
    [
        ("2s 5s 9s Ks 3d", True),  # four to a flush
        ("Jk 2s 7s 9s Kd", True),  # the joker is the fourth card of the flush
        ("5c 6d 7h 8s Kc", True),
        ("2c 3d 4h 5s 9c", True),  # an ace or a six completes it
        ("Tc Jd Qh Ks 3c", True),  # a nine or an ace
        ("Jk 5d 6h 8s Kc", True),  # the joker as the seven
        ("Ac 2d 3h 4s 9c", False),  # only a five completes A-2-3-4
        ("Jc Qd Kh As 3c", False),  # only a ten completes J-Q-K-A
        ("Jk 5d 7h 9s Kc", False),  # a double gutshot is not open-ended
        ("Jk Qd Kh 9s 3c", False),
        ("Jk Qd Kh Js 3c", True),  # the joker as the ten (as the ace it would be one-ended)
        ("2s 5s 9s Kd 3d", False),
    ],
)
def test_bobtail(hand, bobtail):
    cards = hand.split()
    assert is_openers(cards, JJ, bobtail=True) is bobtail
    assert not is_openers(cards, JJ)
    assert (openers_cards(cards, JJ, bobtail=True) is not None) is bobtail
    assert openers_cards(cards, JJ) is None


@pytest.mark.parametrize(
    ("hand", "minimum", "cards"),
    [
        ("Jh Js 4c 8d 2s", JJ, "Jh Js"),
        ("Ac 9s Jk 5d 3c", AA, "Ac Jk"),
        ("Jk Kd Kc 7s 4h", KK, "Kd Kc"),  # the joker is only the kicker
        ("5c 5d Kc 8h 8s", AA, "5c 5d 8h 8s"),
        ("Jk 5d Ac 5c 9h", JJ, "Jk 5d Ac 5c"),
        ("Jk Ad Ac 9h 7s", JJ, "Jk Ad Ac"),
        ("As Jk Ks Qs Tc", JJ, "As Jk Ks Qs Tc"),  # the straight is all five
        ("Kd Kc Kh 7s 7h", JJ, "Kd Kc Kh 7s 7h"),
        ("Kd Kc 2h 7s 9h", ANY, "Kd Kc"),
        ("Ad Kc 2h 7s 9h", ANY, "Ad Kc 2h 7s 9h"),
        ("Td Tc 2h 7s 9h", JJ, None),
    ],
)
def test_openers_cards(hand, minimum, cards):
    expected = tuple(cards.split()) if cards else None
    assert openers_cards(hand.split(), minimum) == expected


@pytest.mark.parametrize(
    ("kept", "minimum", "holds"),
    [
        ("As Jk Ks Qs", JJ, True),  # R-JB 10: throwing the ten keeps ace–joker
        ("As Jk Ks Qs", AA, True),
        ("Jh Js", JJ, True),
        ("Jh Js", QQ, False),
        ("Jh Jk", JJ, False),
        ("Jk 5c 5d", JJ, False),  # a pair of fives and an ace
        ("Jk Ac Ad", AA, True),
        ("5c 5d 8h 8s", AA, True),
        ("5c 5d 5h", AA, True),
        ("5c 5d 8h", JJ, False),
        ("Ks Qs Js Ts", JJ, False),  # four to a royal flush is no openers...
        ("", JJ, False),
    ],
)
def test_holds_openers(kept, minimum, holds):
    assert holds_openers(kept.split(), minimum) is holds


def test_holds_openers_with_bobtail_counts_four_kept_cards():
    assert holds_openers(cards_of("Ks Qs Js Ts"), JJ, bobtail=True)
    assert not holds_openers(cards_of("Ks Qs Js"), JJ, bobtail=True)
    with pytest.raises(ValueError):
        holds_openers(cards_of("Ks Qs Js Ts 9s 8s"), JJ)
    with pytest.raises(ValueError):
        holds_openers(["Ks", "??"], JJ)


def test_could_have_held_openers():
    # Split jacks to draw to a straight flush: the discarded jack pairs the kept one.
    assert could_have_held_openers(cards_of("Jh Th 9h 4h 2c"), ["Js"], JJ)
    assert not could_have_held_openers(cards_of("Jh Th 9h 4h 2c"), ["Js"], QQ)
    # Any straight opens: four of this final hand and the jack make one.
    assert could_have_held_openers(cards_of("Jh Th 9h 8h 7h"), ["Js"], AA)
    assert not could_have_held_openers(cards_of("Ah Kd 9c 7s 4h"), ["2c", "3d"], JJ)
    # A bobtail only counts where the house allows it.
    assert not could_have_held_openers(cards_of("5s 9s Ks 3d 7c"), ["2s"], JJ)
    assert could_have_held_openers(cards_of("5s 9s Ks 3d 7c"), ["2s"], JJ, bobtail=True)
    # A five-card draw: the discards were the whole dealt hand.
    assert could_have_held_openers(cards_of("2c 3c 4c 5c 7d"), cards_of("Qh Qs 2d 4d 6d"), QQ)
    with pytest.raises(ValueError):
        could_have_held_openers(cards_of("Jh Th 9h 8h"), ["Js"], JJ)
    with pytest.raises(ValueError):
        could_have_held_openers(cards_of("Jh Th 9h 8h 7h"), ["Jh"], JJ)


def test_every_class_of_hands_matches_reference():
    table = class_table()
    for key, hand in class_hands():
        value = table[key][1]
        for minimum in PAIR_MINIMUMS:
            expected = value[0] >= TWO_PAIR or (
                value[0] == PAIR and value[1] >= MINIMUM_PAIR[minimum]
            )
            assert is_openers(hand, minimum) == expected, (hand, minimum)


@given(five_cards, st.sampled_from(PAIR_MINIMUMS))
def test_matches_reference(hand, minimum):
    assert is_openers(hand, minimum) == reference_openers(hand, minimum)
    with_bobtail = reference_openers(hand, minimum) or reference_bobtail(hand)
    assert is_openers(hand, minimum, bobtail=True) == with_bobtail


@given(five_cards, st.sampled_from(PAIR_MINIMUMS), st.booleans(), st.data())
def test_part_holding_openers_means_the_hand_is_openers(hand, minimum, bobtail, data):
    part = data.draw(st.lists(st.sampled_from(hand), max_size=5, unique=True))
    opens = is_openers(hand, minimum, bobtail=bobtail)
    assert holds_openers(hand, minimum, bobtail=bobtail) == opens
    if holds_openers(part, minimum, bobtail=bobtail):
        assert is_openers(hand, minimum, bobtail=bobtail)
    found = openers_cards(hand, minimum, bobtail=bobtail)
    assert (found is not None) == is_openers(hand, minimum, bobtail=bobtail)
    if found is not None and len(found) < 5:
        assert holds_openers(found, minimum, bobtail=bobtail)


@given(
    st.lists(st.sampled_from([*NATURALS, JOKER]), min_size=10, max_size=10, unique=True),
    st.sampled_from(PAIR_MINIMUMS),
    st.lists(st.booleans(), min_size=5, max_size=5),
)
def test_the_real_dealt_hand_is_always_one_of_the_choices(cards, minimum, thrown):
    dealt, stub = cards[:5], cards[5:]
    discards = [card for card, out in zip(dealt, thrown, strict=True) if out]
    kept = [card for card, out in zip(dealt, thrown, strict=True) if not out]
    final = kept + stub[: len(discards)]
    if is_openers(dealt, minimum):
        assert could_have_held_openers(final, discards, minimum)
