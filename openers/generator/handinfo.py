"""A player's rough reading of five cards: what they hold and what to keep for the draw.

This is the simulated player's judgement (strategy), not the audit's ranking: the
generator uses ``audit.evaluator`` wherever the result must be right (openers,
showdowns, readings). Here the joker counts as an ace for pairs, or fills a
straight or a flush, as R-JK 2 lets it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from audit.cards import ACE, RANK_VALUE
from schemas.records import JOKER, SUITS

#: Rank value of each natural card (one lookup instead of two per card).
_CARD_VALUE = {r + s: v for r, v in RANK_VALUE.items() for s in SUITS}

# Rough made-hand levels, in the order of the spec's ranking.
HIGH, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL, QUADS, STRAIGHT_FLUSH, FIVE_ACES = range(10)


@dataclass(frozen=True, slots=True)
class Shape:
    """What a player sees in five cards."""

    level: int
    #: Rank value of the best pair/trips/quads (0 when none).
    top_rank: int
    #: The cards worth keeping (the draw discards the rest).
    keep: tuple[str, ...]
    #: Four to a flush or to an open-ended straight (a one-card draw).
    drawing: bool


def _is_straight(cards: list[str]) -> bool:
    """Distinct naturals within a five-rank run (the joker, if any, fills the gap)."""
    values = {RANK_VALUE[c[0]] for c in cards}
    if len(values) != len(cards):
        return False
    lows = {1 if v == ACE else v for v in values}
    return max(values) - min(values) <= 4 or max(lows) - min(lows) <= 4


def _four_to_straight(cards: list[str]) -> tuple[str, ...] | None:
    by_value = {RANK_VALUE[c[0]]: c for c in cards}
    vals = sorted(by_value)
    for i in range(len(vals) - 3):
        window = vals[i : i + 4]
        if window[-1] - window[0] == 3 and window[-1] < ACE and window[0] > 2:
            return tuple(by_value[v] for v in window)
    return None


@lru_cache(maxsize=8192)  # a seat's hand is read at each of its decisions
def read_shape(hand: tuple[str, ...]) -> Shape:
    """The player's reading of ``hand`` (five known cards)."""
    cards = [c for c in hand if c != JOKER]
    jokers = len(hand) - len(cards)
    jk = (JOKER,) * jokers
    # Plain dicts: this runs at every decision of every seat, Counter is slower.
    counts: dict[int, int] = {}
    suits: dict[str, int] = {}
    for c in cards:
        v = _CARD_VALUE[c]
        counts[v] = counts.get(v, 0) + 1
        suits[c[1]] = suits.get(c[1], 0) + 1
    # _is_straight needs distinct naturals: only then is it worth asking.
    straight = len(hand) == 5 and len(counts) == len(cards) and _is_straight(cards)
    if jokers:
        counts[ACE] = counts.get(ACE, 0) + jokers
    # (count, rank value) pairs, most common first, the higher rank of equals first.
    groups = sorted([(n, v) for v, n in counts.items()], reverse=True)
    top_count, top_value = groups[0]
    second_count = groups[1][0] if len(groups) > 1 else 0
    flush = len(suits) == 1 and len(hand) == 5

    if top_count >= 5:
        return Shape(FIVE_ACES, ACE, hand, False)
    if straight and flush:
        return Shape(STRAIGHT_FLUSH, 0, hand, False)
    if top_count == 4:
        return Shape(QUADS, top_value, hand, False)
    if top_count == 3 and second_count == 2:
        return Shape(FULL, top_value, hand, False)
    if flush:
        return Shape(FLUSH, 0, hand, False)
    if straight:
        return Shape(STRAIGHT, 0, hand, False)
    if top_count == 3:
        return Shape(TRIPS, top_value, _keep_ranks(cards, jk, top_value), False)
    if top_count == 2 and second_count == 2:
        return Shape(TWO_PAIR, top_value, _keep_ranks(cards, jk, top_value, groups[1][1]), False)
    if top_count == 2:
        return Shape(PAIR, top_value, _keep_ranks(cards, jk, top_value), False)
    # The first suit seen among the most common (max keeps the first of equals).
    suit, in_suit = max(suits.items(), key=_count) if suits else ("", 0)
    if in_suit + jokers >= 4:
        return Shape(HIGH, 0, tuple(c for c in cards if c[1] == suit) + jk, True)
    run = _four_to_straight(cards)
    if run is not None:
        return Shape(HIGH, 0, run, True)
    best = max(cards, key=_value)
    return Shape(HIGH, 0, (best, *jk), False)


def _count(kv: tuple[str, int]) -> int:
    return kv[1]


def _value(card: str) -> int:
    return RANK_VALUE[card[0]]


def _keep_ranks(cards: list[str], jk: tuple[str, ...], *values: int) -> tuple[str, ...]:
    """The natural cards of ``values``' ranks, then the joker(s)."""
    return tuple(c for c in cards if RANK_VALUE[c[0]] in values) + jk
