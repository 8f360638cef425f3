"""A brute-force reference ranking, independent of ``audit.evaluator``, and its own checks.

Natural hands are ranked the textbook way: category from the rank counts, straight and
flush tests, then the ranks ordered by (count, rank) as the tiebreak. A hand with the
joker is ranked by trying every card the joker may stand for, as the rule text reads
(``../shared/spec/rules.md`` "Ranking", R-JK 2-4 of seed 004): an ace of any suit (four
aces and the joker are five aces), or any card when the result is a straight or straight
flush, or the highest card of the suit missing from the hand when the result is a flush;
the best accepted reading counts. Slow and obviously correct; the exhaustive tests use
it once per class of hands (same ranks, same "all one suit"), which suit symmetry allows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"
#: The 52 natural cards, rank-major (index // 4 is the rank, index % 4 the suit).
NATURALS = [rank + suit for rank in RANK_CHARS for suit in SUIT_CHARS]
JOKER = "Jk"
#: Category names by level, worst first (the log format's reading words).
NAMES = [
    "high card",
    "one pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
    "five aces",
]
HIGH, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL, QUADS, STRAIGHT_FLUSH, FIVE_ACES = range(10)


def cards_of(text: str) -> list[str]:
    """``"Ah Kd"`` → ``["Ah", "Kd"]``: hands in tests are written as the log writes them."""
    return text.split()


def value_of(card: str) -> int:
    return RANK_CHARS.index(card[0]) + 2


def reference_natural(hand: Sequence[str]) -> tuple[int, ...]:
    """(category level, tiebreak ranks...) of five natural cards; bigger tuples win."""
    values = [value_of(card) for card in hand]
    counts = Counter(values)
    by_group = sorted(values, key=lambda v: (counts[v], v), reverse=True)
    flush = len({card[1] for card in hand}) == 1
    distinct = sorted(counts)
    straight_top = 0
    if len(distinct) == 5 and distinct[4] - distinct[0] == 4:
        straight_top = distinct[4]
    elif distinct == [2, 3, 4, 5, 14]:
        straight_top = 5
    shape = sorted(counts.values(), reverse=True)
    if straight_top and flush:
        return (STRAIGHT_FLUSH, straight_top)
    if shape == [4, 1]:
        return (QUADS, *by_group)
    if shape == [3, 2]:
        return (FULL, *by_group)
    if flush:
        return (FLUSH, *by_group)
    if straight_top:
        return (STRAIGHT, straight_top)
    if shape == [3, 1, 1]:
        return (TRIPS, *by_group)
    if shape == [2, 2, 1]:
        return (TWO_PAIR, *by_group)
    if shape == [2, 1, 1, 1]:
        return (PAIR, *by_group)
    return (HIGH, *by_group)


def reference_value(hand: Sequence[str]) -> tuple[int, ...]:
    """Reference value of five cards, the joker read by trying every card it may be."""
    assert len(hand) == 5 and len(set(hand)) == 5
    if JOKER not in hand:
        return reference_natural(hand)
    rest = [card for card in hand if card != JOKER]
    if all(card[0] == "A" for card in rest):
        return (FIVE_ACES,)
    readings = []
    for card in NATURALS:
        if card in rest:
            continue
        value = reference_natural([*rest, card])
        if card[0] == "A" or value[0] in (STRAIGHT, STRAIGHT_FLUSH):
            readings.append(value)
        elif value[0] == FLUSH:
            missing = [c for c in NATURALS if c[1] == card[1] and c not in rest]
            if card == max(missing, key=value_of):
                readings.append(value)
    return max(readings)


def test_reference_orders_the_textbook_examples():
    ladder = [
        "7c 5d 4h 3s 2c",
        "Ac Kd Qh Js 9c",
        "2c 2d 5h 4s 3c",
        "Ac Ad Kh Qs Jc",
        "3c 3d 2h 2s Ac",
        "Ac Ad 3h 3s 2c",
        "2c 2d 2h 4s 3c",
        "Ac 2d 3h 4s 5c",
        "6c 2d 3h 4s 5c",
        "Ac Kd Qh Js Tc",
        "7c 5c 4c 3c 2c",
        "Ac Kc Qc Jc 9c",
        "2c 2d 2h 3s 3c",
        "Ac Ad Ah Ks Kc",
        "2c 2d 2h 2s 3c",
        "Ac 2c 3c 4c 5c",
        "Ac Kc Qc Jc Tc",
        "Ac Ad Ah As Jk",
    ]
    values = [reference_value(hand.split()) for hand in ladder]
    assert values == sorted(values)
    assert len(set(values)) == len(values)


def test_reference_reads_the_joker_as_the_rules_say():
    assert reference_value(cards_of("Jk Kd Kc 7s 4h")) == (PAIR, 13, 13, 14, 7, 4)
    assert reference_value(cards_of("Jk Ks Qs 7s 4s")) == (FLUSH, 14, 13, 12, 7, 4)
    assert reference_value(cards_of("Jk As Ks 7s 4s")) == (FLUSH, 14, 13, 12, 7, 4)
    assert reference_value(cards_of("Jk 9s 8s 7s 6s")) == (STRAIGHT_FLUSH, 10)
    assert reference_value(cards_of("Jk Ac 2d 3h 4s")) == (STRAIGHT, 5)
    assert reference_value(cards_of("Jk Ad Ac Kh Ks")) == (FULL, 14, 14, 14, 13, 13)
