"""Five-card high hands with the joker, ranked as the rule catalogue says.

``../shared/spec/rules.md`` "Ranking" and the joker rules R-JK 2-4 of
``../shared/seeds/004_9b5b0a7b0cff3abe.txt``:

* Five aces (four aces and the joker) is the best hand; then straight flush, four of a
  kind, full house, flush, straight, three of a kind, two pair, one pair, high card.
* The ace plays high, and low only in A-2-3-4-5 (a five-high straight).
* The joker plays as an ace, or completes a straight, a flush or a straight flush; in a
  flush it is the highest card of that suit missing from the hand; in a straight it
  completes the highest straight it can. It is never any other wild card.

Joker cases decided here (each has a test in ``tests/audit/test_evaluator.py``):

* ``Jk Kx Kx 7 4`` is one pair of kings with an ace kicker, not three kings.
* ``Jk Kx Kx Ax Ax`` is a full house, aces full of kings (the joker is the third ace).
* ``Jk Kx Kx Kx 7`` is three kings with an ace kicker (the joker cannot be a seven).
* ``Jk Kx Kx Kx Ax`` is a full house, kings full of aces.
* ``Jk Kx Kx Kx Kx`` is four kings with an ace kicker; ``Jk`` + four aces is five aces.
* ``Jk Kx Kx 7x 7x`` is two pair, kings and sevens with an ace kicker.
* Suited ``Jk As Ks 7s 4s`` is an ace-king-queen flush (the joker is the queen);
  suited ``Jk 9s 8s 7s 6s`` is a ten-high straight flush, because a straight flush beats
  the ace-high flush the highest-missing-card reading would give.
* ``Jk 2 3 4 5`` is a six-high straight, ``Jk A 2 3 4`` and ``Jk A 2 3 5`` are wheels,
  ``Jk A K Q J`` and ``Jk K Q J T`` are ace-high straights.
* A joker hand whose best reading is a straight or flush is read that way even when the
  joker as an ace would make a pair (``As Jk Ks Qs Tc`` is an ace-high straight).

Strengths are plain ints: the category's level in bits 20 and up, then up to five rank
values (2..14) as 4-bit digits, most significant first. Equal hands get equal ints and
:func:`ranks` / :func:`describe` can read them back.

How it is fast: every card code maps (one dict lookup) to an int whose fields are added
for the five cards: per-rank counts (3 bits for each rank and one for the joker), per-suit
counts (4 bits, the joker counts in every suit) and one bit per card. One sum then tells
whether a card repeats (a carry lowers the count of card bits), whether the hand is a
flush (a suit count of five), and gives the rank-count key of one of two small tables
(about 8,000 and 2,000 entries) built at import from the rules above, in tens of
milliseconds. The idea is treys' prime-product lookup, with a sum of bit fields instead
of a product so that the joker, flush and duplicate checks come out of the same number.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from enum import StrEnum
from itertools import combinations, combinations_with_replacement

from audit.cards import ACE, DECK, RANK_CHAR, RANK_VALUE, check_cards, rank_name
from schemas.records import JOKER, SUITS


class HandCategory(StrEnum):
    """A hand's category; the value is the reading word the log format uses.

    Members are declared from worst to best; compare them with :attr:`level`, not with
    ``<`` (a StrEnum compares as text).
    """

    HIGH_CARD = "high card"
    ONE_PAIR = "one pair"
    TWO_PAIR = "two pair"
    THREE_OF_A_KIND = "three of a kind"
    STRAIGHT = "straight"
    FLUSH = "flush"
    FULL_HOUSE = "full house"
    FOUR_OF_A_KIND = "four of a kind"
    STRAIGHT_FLUSH = "straight flush"
    FIVE_ACES = "five aces"

    @property
    def level(self) -> int:
        """0 for high card up to 9 for five aces."""
        return _LEVEL[self]


_CATEGORIES: tuple[HandCategory, ...] = tuple(HandCategory)
_LEVEL: dict[HandCategory, int] = {cat: level for level, cat in enumerate(_CATEGORIES)}
#: How many rank digits order hands inside each category.
_RANK_DIGITS: dict[HandCategory, int] = {
    HandCategory.HIGH_CARD: 5,
    HandCategory.ONE_PAIR: 4,
    HandCategory.TWO_PAIR: 3,
    HandCategory.THREE_OF_A_KIND: 3,
    HandCategory.STRAIGHT: 1,
    HandCategory.FLUSH: 5,
    HandCategory.FULL_HOUSE: 2,
    HandCategory.FOUR_OF_A_KIND: 2,
    HandCategory.STRAIGHT_FLUSH: 1,
    HandCategory.FIVE_ACES: 1,
}
#: Natural hands by the sizes of their rank groups, largest group first.
_SHAPES: dict[tuple[int, ...], HandCategory] = {
    (4, 1): HandCategory.FOUR_OF_A_KIND,
    (3, 2): HandCategory.FULL_HOUSE,
    (3, 1, 1): HandCategory.THREE_OF_A_KIND,
    (2, 2, 1): HandCategory.TWO_PAIR,
    (2, 1, 1, 1): HandCategory.ONE_PAIR,
    (1, 1, 1, 1, 1): HandCategory.HIGH_CARD,
}
_CATEGORY_SHIFT = 20
_WHEEL = frozenset({ACE, 2, 3, 4, 5})


def _pack(cat: HandCategory, rank_values: Sequence[int]) -> int:
    strength = _LEVEL[cat]
    for position in range(5):
        strength = (strength << 4) | (rank_values[position] if position < len(rank_values) else 0)
    return strength


def _straight_top(values: Sequence[int]) -> int:
    """Top rank of the straight five natural ranks make (5 for the wheel), else 0."""
    distinct = set(values)
    if len(distinct) != 5:
        return 0
    if max(distinct) - min(distinct) == 4:
        return max(distinct)
    return 5 if distinct == _WHEEL else 0


def _natural_strength(values: Sequence[int], *, flush: bool) -> int:
    """Strength of five natural cards given their rank values and whether they share a suit."""
    top = _straight_top(values)
    if top and flush:
        return _pack(HandCategory.STRAIGHT_FLUSH, [top])
    if flush:
        return _pack(HandCategory.FLUSH, sorted(values, reverse=True))
    if top:
        return _pack(HandCategory.STRAIGHT, [top])
    # Bigger groups first, then higher ranks: that is also the order of the tiebreak.
    groups = sorted(Counter(values).items(), key=lambda item: (item[1], item[0]), reverse=True)
    shape = tuple(count for _, count in groups)
    return _pack(_SHAPES[shape], [rank for rank, _ in groups])


def _joker_straight_top(values: Sequence[int]) -> int:
    """Top of the highest straight four natural ranks and the joker make, else 0."""
    distinct = set(values)
    if len(distinct) != 4:
        return 0
    for top in range(ACE, 5, -1):
        if distinct <= set(range(top - 4, top + 1)):
            return top
    return 5 if distinct <= _WHEEL else 0


def _joker_strength(values: Sequence[int], *, flush: bool) -> int:
    """Strength of four natural cards plus the joker (``flush``: the four share a suit)."""
    if list(values).count(ACE) == 4:
        return _pack(HandCategory.FIVE_ACES, [ACE])
    # The joker as an ace (of a suit the hand lacks; a flush with it is the next option).
    readings = [_natural_strength([*values, ACE], flush=False)]
    top = _joker_straight_top(values)
    if top:
        readings.append(
            _pack(HandCategory.STRAIGHT_FLUSH if flush else HandCategory.STRAIGHT, [top])
        )
    if flush:
        highest_missing = max(rank for rank in RANK_CHAR if rank not in values)
        readings.append(_pack(HandCategory.FLUSH, sorted([*values, highest_missing], reverse=True)))
    return max(readings)


# Layout of a card's code; the five codes are added.
_RANK_BITS = 3  # a rank appears at most four times (five only in a hand with a repeat)
_JOKER_FIELD = 1 << (_RANK_BITS * 13)
_RANK_MASK = (1 << (_RANK_BITS * 14)) - 1
_SUIT_SHIFT = _RANK_BITS * 14
_SUIT_FIELDS = [1 << (_SUIT_SHIFT + 4 * suit) for suit in range(len(SUITS))]
# Each suit count starts at 3, so it reaches bit 3 of its 4-bit field exactly at five cards.
_BIAS = 3 * sum(_SUIT_FIELDS)
_FLUSH_BITS = 8 * sum(_SUIT_FIELDS)
_CARD_SHIFT = _SUIT_SHIFT + 4 * len(SUITS)  # one bit per card, plus a guard bit above


def _rank_key(values: Sequence[int], *, joker: bool) -> int:
    return sum(1 << (_RANK_BITS * (value - 2)) for value in values) + (_JOKER_FIELD if joker else 0)


def _card_code(index: int, card: str) -> int:
    card_bit = 1 << (_CARD_SHIFT + index)
    if card == JOKER:
        return _JOKER_FIELD | sum(_SUIT_FIELDS) | card_bit
    return (
        _rank_key([RANK_VALUE[card[0]]], joker=False)
        | _SUIT_FIELDS[SUITS.index(card[1])]
        | card_bit
    )


def _build_tables() -> tuple[dict[int, int], dict[int, int]]:
    """Strength by rank-count key, for hands that are not flushes and for flushes."""
    ranks = list(RANK_CHAR)
    plain: dict[int, int] = {}
    suited: dict[int, int] = {}
    for five in combinations_with_replacement(ranks, 5):
        if max(Counter(five).values()) <= 4:
            plain[_rank_key(five, joker=False)] = _natural_strength(five, flush=False)
    for five in combinations(ranks, 5):
        suited[_rank_key(five, joker=False)] = _natural_strength(five, flush=True)
    for four in combinations_with_replacement(ranks, 4):
        plain[_rank_key(four, joker=True)] = _joker_strength(four, flush=False)
    for four in combinations(ranks, 4):
        suited[_rank_key(four, joker=True)] = _joker_strength(four, flush=True)
    return plain, suited


_CODE: dict[str, int] = {card: _card_code(index, card) for index, card in enumerate(DECK)}
_PLAIN, _SUITED = _build_tables()


def evaluate(cards: Sequence[str]) -> int:
    """Strength of exactly five distinct cards (``Ah``, ``Td``, ``Jk``): higher is better.

    Hands that tie get equal strengths. Raises ``ValueError`` for anything that is not
    five distinct known cards (an unknown ``??``, a repeat, four or six cards).
    """
    try:
        a, b, c, d, e = cards
        total = _CODE[a] + _CODE[b] + _CODE[c] + _CODE[d] + _CODE[e] + _BIAS
    except (KeyError, TypeError, ValueError):
        raise ValueError(_not_a_hand(cards)) from None
    if (total >> _CARD_SHIFT).bit_count() != 5:  # a repeated card carried into the next bit
        raise ValueError(_not_a_hand(cards))
    if total & _FLUSH_BITS:
        return _SUITED[total & _RANK_MASK]
    return _PLAIN[total & _RANK_MASK]


def _not_a_hand(cards: object) -> str:
    try:
        check_cards(cards, size=5)  # type: ignore[arg-type]
    except (ValueError, TypeError) as exc:
        return str(exc)
    return f"not five distinct cards: {cards!r}"


def category(strength: int) -> HandCategory:
    """The category of a strength returned by :func:`evaluate`."""
    level = strength >> (_CATEGORY_SHIFT)
    if strength < 0 or level >= len(_CATEGORIES):
        raise ValueError(f"{strength} is not a hand strength")
    return _CATEGORIES[level]


def ranks(strength: int) -> tuple[int, ...]:
    """The rank values (2..14) that order hands inside the category, most significant first.

    Full house: (trips, pair); two pair: (high pair, low pair, kicker); straight and
    straight flush: (top card,), 5 for the wheel; flush and high card: all five; five
    aces: (14,). Never empty, so ``ranks(s)[0]`` is the rank that names the hand.
    """
    digits = _RANK_DIGITS[category(strength)]
    return tuple((strength >> (4 * (4 - position))) & 0xF for position in range(digits))


def describe_strength(strength: int) -> str:
    """A reading for messages, e.g. ``full house, kings full of sevens``."""
    cat = category(strength)
    values = ranks(strength)
    if cat is HandCategory.FIVE_ACES:
        return cat.value
    if cat in (HandCategory.STRAIGHT_FLUSH, HandCategory.STRAIGHT):
        return f"{cat}, {rank_name(values[0])} high"
    if cat in (HandCategory.FLUSH, HandCategory.HIGH_CARD):
        return f"{cat}, {_chars(values)}"
    if cat is HandCategory.FULL_HOUSE:
        trips, pair = (rank_name(value, plural=True) for value in values)
        return f"{cat}, {trips} full of {pair}"
    if cat is HandCategory.TWO_PAIR:
        high, low, kicker = values
        return (
            f"{cat}, {rank_name(high, plural=True)} and {rank_name(low, plural=True)}"
            f" ({_chars([kicker])})"
        )
    # One pair, three and four of a kind: the group, then the kickers.
    return f"{cat}, {rank_name(values[0], plural=True)} ({_chars(values[1:])})"


def describe(cards: Sequence[str]) -> str:
    """The reading of five cards, e.g. ``full house, kings full of sevens``."""
    return describe_strength(evaluate(cards))


def _chars(values: Sequence[int]) -> str:
    return "-".join(RANK_CHAR[value] for value in values)


_BY_NAME: dict[str, HandCategory] = {c.value: c for c in HandCategory}


def reading_category(reading: str) -> HandCategory | None:
    """The category a READING names (the text before its first comma), None if it names none."""
    return _BY_NAME.get(reading.split(",", 1)[0].strip().lower())
