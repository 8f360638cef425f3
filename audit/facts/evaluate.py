"""Compiled hand strengths and openers tests, equal to the reference by construction.

The compiled replay (:mod:`audit.facts.replay`) must rank hands and test openers exactly
as :func:`audit.evaluator.evaluate` and :mod:`audit.opening` do, from numba code. So
every function here is ``@njit(cache=True, nogil=True)`` over card codes as in
:mod:`audit.facts.layout` (``rank * 4 + suit``, ranks 2..A = 0..12, suits c d h s = 0..3;
52 the joker, 53 unknown) and returns a plain int: a strength, or 1 / 0 for yes / no,
and -1 exactly where the reference raises ``ValueError`` (an unknown card, a repeat, a
code out of range, a wrong number of cards).

Why the strengths cannot drift from the reference: the two lookup tables below are
filled at import by calling :func:`audit.evaluator.evaluate` itself, once for every
multiset of five ranks (the joker as a fourteenth rank) in an off-suit and a suited
version, about 10,000 calls (~10 ms). Compiled code then only validates the codes,
sorts the five ranks, and reads the table at the multiset's combinatorial index
(0..8567; the flush table when every natural card shares a suit). numba freezes the
module-level tables into the compiled code as constants.

Array arguments are ``(cards, start, count)`` slices of the flat ``cards`` array of
:class:`audit.facts.layout.HandArrays` (any integer dtype works; int8 is the layout's).
``minimum`` is a ``layout.OPENERS_CODE`` value: 0 for ANY, else the lowest pair rank
that opens, 9 (jacks) .. 12 (aces); any other value returns -1 (a caller error).
"""

from __future__ import annotations

import zlib
from itertools import combinations_with_replacement
from math import comb

import numpy as np
import numpy.typing as npt
from numba import njit

from audit.evaluator import evaluate
from schemas.records import CARD_CODES

JOKER = 52
UNKNOWN = 53
_JOKER_RANK = 13  # the joker sorts as a fourteenth rank in the table index
_RANK_SLOTS = 14
CATEGORY_SHIFT = 20
LEVEL_ONE_PAIR = 1
LEVEL_TWO_PAIR = 2
_ACE = 12
_KING = 11
_ANY = 0
_LOWEST_MINIMUM = 9  # jacks
#: ``BINOMIAL[i, n]`` = C(n, i + 1): the combinatorial number system for 5-multisets.
BINOMIAL = np.array([[comb(n, i + 1) for n in range(_RANK_SLOTS + 4)] for i in range(5)],
                    dtype=np.int64)
TABLE_SIZE = comb(_RANK_SLOTS + 4, 5)  # 8568 multisets of five of 14 ranks


def _multiset_index(sorted_ranks: tuple[int, ...]) -> int:
    return sum(int(BINOMIAL[i, r + i]) for i, r in enumerate(sorted_ranks))


def _reference_value(codes: list[int]) -> int:
    try:
        return evaluate([CARD_CODES[c] for c in codes])
    except ValueError:
        return -1


def _build_tables() -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]:
    """Reference strength by multiset index: off-suit hands, and hands whose naturals share a suit.

    Off-suit cards take the suit of their position modulo four: equal ranks sit next
    to each other in sorted order, so they get distinct suits, and five (or four) cards
    never share one. Impossible multisets (two jokers, five of a rank, a suited pair)
    keep -1 and are never read: compiled code rejects repeats before the lookup.
    """
    plain = np.full(TABLE_SIZE, -1, dtype=np.int32)
    suited = np.full(TABLE_SIZE, -1, dtype=np.int32)
    for ranks in combinations_with_replacement(range(_RANK_SLOTS), 5):
        if ranks.count(_JOKER_RANK) > 1 or max(ranks.count(r) for r in ranks) > 4:
            continue
        index = _multiset_index(ranks)
        naturals = [r for r in ranks if r != _JOKER_RANK]
        joker = [JOKER] * (5 - len(naturals))
        plain[index] = _reference_value([r * 4 + i % 4 for i, r in enumerate(naturals)] + joker)
        if len(set(naturals)) == len(naturals):
            suited[index] = _reference_value([r * 4 + 3 for r in naturals] + joker)
    return plain, suited


PLAIN_TABLE, SUITED_TABLE = _build_tables()

#: CRC-32 of the tables the reference gives today. numba's on-disk cache keeps the
#: tables frozen into compiled code and is invalidated only when THIS file changes, so
#: a change to ``audit/evaluator.py`` alone would leave stale compiled strengths. The
#: check below makes such a change fail loudly at import until this constant is
#: updated, and editing this file is what invalidates the cache. (Caches of other
#: modules that call these functions embed them too: clear ``__pycache__/*.nb[ic]``.)
REFERENCE_TABLES_CRC32 = 0x95B33525


def tables_crc32() -> int:
    """CRC-32 of the tables built from the reference at this import."""
    return zlib.crc32(PLAIN_TABLE.tobytes() + SUITED_TABLE.tobytes())


if tables_crc32() != REFERENCE_TABLES_CRC32:
    raise ImportError(
        "audit.evaluator ranks hands differently from when audit/facts/evaluate.py was last"
        f" edited: set REFERENCE_TABLES_CRC32 = {tables_crc32():#x} there (after checking"
        " tests/audit/facts/test_evaluate.py) so that numba's cached code is rebuilt")


@njit(cache=True, nogil=True)
def leading_rank_code(strength: int) -> int:
    """The rank code (0..12) that names the hand (the pair of a one-pair hand); -1 for -1."""
    if strength < 0:
        return -1
    return ((strength >> 16) & 0xF) - 2


@njit(cache=True, nogil=True)
def _rank_slot(code: int) -> int:
    return _JOKER_RANK if code == JOKER else code >> 2


@njit(cache=True, nogil=True)
def _suit_bit(code: int) -> int:
    """The card's suit as a bit; 0 for the joker, which counts in every suit."""
    return 0 if code == JOKER else 1 << (code & 3)


@njit(cache=True, nogil=True)
def _rank_bit(code: int) -> int:
    return 0 if code == JOKER else 1 << (code >> 2)


@njit(cache=True, nogil=True)
def _rank_or(code: int, joker_value: int) -> int:
    return joker_value if code == JOKER else code >> 2


@njit(cache=True, nogil=True)
def strength5(c0: int, c1: int, c2: int, c3: int, c4: int) -> int:
    """``audit.evaluator.evaluate`` of five card codes, or -1 where it raises."""
    if not (0 <= c0 <= JOKER and 0 <= c1 <= JOKER and 0 <= c2 <= JOKER
            and 0 <= c3 <= JOKER and 0 <= c4 <= JOKER):
        return -1
    b0, b1, b2, b3, b4 = 1 << c0, 1 << c1, 1 << c2, 1 << c3, 1 << c4
    if b0 + b1 + b2 + b3 + b4 != b0 | b1 | b2 | b3 | b4:  # a carry: a repeated card
        return -1
    suits_seen = _suit_bit(c0) | _suit_bit(c1) | _suit_bit(c2) | _suit_bit(c3) | _suit_bit(c4)
    a0, a1, a2, a3, a4 = _rank_slot(c0), _rank_slot(c1), _rank_slot(c2), _rank_slot(c3), \
        _rank_slot(c4)
    # Sorting network for five values (9 compare-exchanges).
    if a0 > a1:
        a0, a1 = a1, a0
    if a3 > a4:
        a3, a4 = a4, a3
    if a2 > a4:
        a2, a4 = a4, a2
    if a2 > a3:
        a2, a3 = a3, a2
    if a0 > a3:
        a0, a3 = a3, a0
    if a0 > a2:
        a0, a2 = a2, a0
    if a1 > a4:
        a1, a4 = a4, a1
    if a1 > a3:
        a1, a3 = a3, a1
    if a1 > a2:
        a1, a2 = a2, a1
    index = (BINOMIAL[0, a0] + BINOMIAL[1, a1 + 1] + BINOMIAL[2, a2 + 2]
             + BINOMIAL[3, a3 + 3] + BINOMIAL[4, a4 + 4])
    # One suit bit set: every natural shares it (the joker counts in every suit).
    if suits_seen & (suits_seen - 1) == 0:
        return int(SUITED_TABLE[index])
    return int(PLAIN_TABLE[index])


@njit(cache=True, nogil=True)
def strength_of(cards: npt.NDArray[np.int8], start: int, count: int) -> int:
    """:func:`strength5` of ``cards[start:start + count]``; -1 unless ``count == 5``."""
    if count != 5:
        return -1
    return strength5(int(cards[start]), int(cards[start + 1]), int(cards[start + 2]),
                     int(cards[start + 3]), int(cards[start + 4]))


@njit(cache=True, nogil=True)
def strengths_of_hands(hands: npt.NDArray[np.int8]) -> npt.NDArray[np.int64]:
    """:func:`strength5` of every row of an ``(n, 5)`` array (tests and benchmarks)."""
    out = np.empty(hands.shape[0], dtype=np.int64)
    for h in range(hands.shape[0]):
        out[h] = strength5(int(hands[h, 0]), int(hands[h, 1]), int(hands[h, 2]),
                           int(hands[h, 3]), int(hands[h, 4]))
    return out


@njit(cache=True, nogil=True)
def known_distinct(cards: npt.NDArray[np.int8], start: int, count: int) -> bool:
    """Whether the slice is known cards (codes 0..52), none repeated (``check_cards``)."""
    if count < 0:
        return False
    seen = 0
    for i in range(start, start + count):
        c = int(cards[i])
        if c < 0 or c > JOKER:
            return False
        bit = 1 << c
        if seen & bit:
            return False
        seen |= bit
    return True


@njit(cache=True, nogil=True)
def _valid_minimum(minimum: int) -> bool:
    return minimum == _ANY or _LOWEST_MINIMUM <= minimum <= _ACE


@njit(cache=True, nogil=True)
def is_bobtail4(c0: int, c1: int, c2: int, c3: int) -> bool:
    """Four distinct known cards to a flush or an open-ended straight (``_is_bobtail``).

    The joker stands for any card. Open-ended: the naturals' distinct ranks fit in one
    run 2-3-4-5 .. T-J-Q-K, i.e. the highest is at most a king and they span at most 4.
    """
    suits_seen = _suit_bit(c0) | _suit_bit(c1) | _suit_bit(c2) | _suit_bit(c3)
    ranks_seen = _rank_bit(c0) | _rank_bit(c1) | _rank_bit(c2) | _rank_bit(c3)
    naturals = int(c0 != JOKER) + int(c1 != JOKER) + int(c2 != JOKER) + int(c3 != JOKER)
    # The joker out of the way: above every rank for the low end, below for the high.
    low = min(min(_rank_or(c0, _ACE + 1), _rank_or(c1, _ACE + 1)),
              min(_rank_or(c2, _ACE + 1), _rank_or(c3, _ACE + 1)))
    high = max(max(_rank_or(c0, -1), _rank_or(c1, -1)), max(_rank_or(c2, -1), _rank_or(c3, -1)))
    if suits_seen & (suits_seen - 1) == 0:
        return True
    distinct = 0
    while ranks_seen:
        ranks_seen &= ranks_seen - 1
        distinct += 1
    if distinct != naturals:  # a pair among the four: no run
        return False
    return high <= _KING and high - low <= 3


@njit(cache=True, nogil=True)
def _has_bobtail5(c0: int, c1: int, c2: int, c3: int, c4: int) -> bool:
    """Whether some four of five cards are a bobtail (``_bobtail_cards`` is not None)."""
    return (is_bobtail4(c1, c2, c3, c4) or is_bobtail4(c0, c2, c3, c4)
            or is_bobtail4(c0, c1, c3, c4) or is_bobtail4(c0, c1, c2, c4)
            or is_bobtail4(c0, c1, c2, c3))


@njit(cache=True, nogil=True)
def openers5(c0: int, c1: int, c2: int, c3: int, c4: int, minimum: int, bobtail: bool) -> int:
    """``is_openers`` of five codes, for a valid minimum other than ANY (no allocation)."""
    strength = strength5(c0, c1, c2, c3, c4)
    if strength < 0:
        return -1
    level = strength >> CATEGORY_SHIFT
    if level >= LEVEL_TWO_PAIR:
        return 1
    if level == LEVEL_ONE_PAIR and leading_rank_code(strength) >= minimum:
        return 1
    if bobtail and _has_bobtail5(c0, c1, c2, c3, c4):
        return 1
    return 0


@njit(cache=True, nogil=True)
def is_openers(cards: npt.NDArray[np.int8], start: int, count: int, minimum: int,
               bobtail: bool) -> int:
    """``audit.opening.is_openers`` of five dealt cards ``cards[start:start+count]``.

    1 / 0; 1 for ANY whatever the cards; -1 where the reference raises (not five
    distinct known cards) or for a minimum that is not ANY or 9..12.
    """
    if not _valid_minimum(minimum):
        return -1
    if minimum == _ANY:
        return 1
    if count != 5:
        return -1
    return openers5(int(cards[start]), int(cards[start + 1]), int(cards[start + 2]),
                    int(cards[start + 3]), int(cards[start + 4]), minimum, bobtail)


@njit(cache=True, nogil=True)
def holds_openers(cards: npt.NDArray[np.int8], start: int, count: int, minimum: int,
                  bobtail: bool) -> int:
    """``audit.opening.holds_openers``: do these 0..5 cards by themselves hold openers?

    1 / 0; 1 for ANY whatever the cards; -1 for unknown or repeated cards, more than
    five (or a negative count), or a minimum that is not ANY or 9..12.
    """
    if not _valid_minimum(minimum):
        return -1
    if minimum == _ANY:
        return 1
    if not known_distinct(cards, start, count) or count > 5:
        return -1
    if count == 5:
        return is_openers(cards, start, count, minimum, bobtail)
    # Four bits of count per rank (at most four cards here): no array to allocate.
    counts = 0
    for i in range(start, start + count):
        c = int(cards[i])
        counts += 1 << (4 * (_ACE if c == JOKER else c >> 2))  # the joker pairs as an ace
    pairs = 0
    highest_pair = -1
    for rank in range(_ACE + 1):
        n = (counts >> (4 * rank)) & 15
        if n >= 3:
            return 1
        if n == 2:
            pairs += 1
            highest_pair = rank
    if pairs >= 2 or (pairs == 1 and highest_pair >= minimum):
        return 1
    if bobtail and count == 4 and is_bobtail4(int(cards[start]), int(cards[start + 1]),
                                              int(cards[start + 2]), int(cards[start + 3])):
        return 1
    return 0
