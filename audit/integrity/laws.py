"""The exact law of a dealt five-card hand, with and without the joker.

Under a fair shuffle a seat's five dealt cards are a uniformly random five-card subset
of the deck, so the chance of every hand strength is a count divided by C(52, 5) =
2,598,960 (or C(53, 5) = 2,869,685 with the joker). Nothing here is typed in: every
subset is enumerated once and read by the project's evaluator
(:func:`audit.facts.evaluate.strength5`, equal to :func:`audit.evaluator.evaluate` by
construction), in about a tenth of a second, and the counts per distinct strength are
kept. Categories, the share of hands that open for jacks, tail thresholds and the
probability-integral transform of a dealt hand are all read off these counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from math import comb

import numpy as np
import numpy.typing as npt
from numba import njit

from audit.evaluator import HandCategory
from audit.facts.evaluate import CATEGORY_SHIFT, strength5

#: Category levels 0 (high card) .. 9 (five aces), as :attr:`HandCategory.level`.
CATEGORIES: tuple[HandCategory, ...] = tuple(HandCategory)
#: Rank value of jacks in a strength's leading digit (2..14).
_JACKS = 11


@njit(cache=True, nogil=True)
def _all_strengths(deck_size: int) -> npt.NDArray[np.int64]:
    """The strength of every five-card subset of cards 0..deck_size-1 (52 = the joker)."""
    n = deck_size
    total = n * (n - 1) * (n - 2) * (n - 3) * (n - 4) // 120
    out = np.empty(total, dtype=np.int64)
    i = 0
    for a in range(n - 4):
        for b in range(a + 1, n - 3):
            for c in range(b + 1, n - 2):
                for d in range(c + 1, n - 1):
                    for e in range(d + 1, n):
                        out[i] = strength5(a, b, c, d, e)
                        i += 1
    return out


@dataclass(frozen=True)
class HandLaw:
    """How many five-card hands of one deck have each strength.

    ``strengths`` are the distinct strengths in increasing order, ``counts`` how many
    subsets have each and ``below`` how many have a strictly lower one, so the chance
    that a fair deal is worse than strength ``s`` is ``below[i] / total``.
    """

    deck_size: int
    strengths: npt.NDArray[np.int64]
    counts: npt.NDArray[np.int64]
    below: npt.NDArray[np.int64]
    total: int

    @property
    def joker(self) -> bool:
        """Whether this is the 53-card deck with the joker."""
        return self.deck_size == 53

    def category_counts(self) -> npt.NDArray[np.int64]:
        """Hands per category level 0..9 (five aces only with the joker)."""
        levels = self.strengths >> CATEGORY_SHIFT
        return np.bincount(levels, weights=self.counts, minlength=len(CATEGORIES)).astype(np.int64)

    def category_probabilities(self) -> npt.NDArray[np.float64]:
        """The chance of each category level in a fair deal."""
        return self.category_counts() / self.total

    def jacks_or_better(self) -> float:
        """The chance that a dealt hand opens for jacks: a pair of jacks or better (no bobtail).

        A one-pair strength's leading digit is the pair's rank; with the joker a lone
        joker pairs only as an ace, which the evaluator already reads that way.
        """
        levels = self.strengths >> CATEGORY_SHIFT
        leading = (self.strengths >> 16) & 0xF
        opens = (levels >= 2) | ((levels == 1) & (leading >= _JACKS))
        return float(self.counts[opens].sum() / self.total)

    def index_of(self, strengths: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """Positions of ``strengths`` in :attr:`strengths` (each a strength of this deck)."""
        index = np.searchsorted(self.strengths, strengths)
        index = np.minimum(index, len(self.strengths) - 1)
        if np.any(self.strengths[index] != strengths):
            raise ValueError(f"a strength that no {self.deck_size}-card hand has")
        return index

    def randomized_pit(self, strengths: npt.NDArray[np.int64],
                       uniforms: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """``(worse + V * equal) / total`` per hand: exactly uniform on (0, 1) under a fair deal.

        ``uniforms`` are the V draws (one per hand, independent of the cards); they
        spread the hands that tie across the interval the tie occupies.
        """
        index = self.index_of(strengths)
        return (self.below[index] + uniforms * self.counts[index]) / self.total

    def tail_threshold(self, share: float) -> int:
        """The weakest strength ``s`` with P(strength >= s) <= ``share`` (the top ``share``).

        Hands at or above it are "in the top tail"; :meth:`tail_probability` is the
        exact chance of that, at most ``share``.
        """
        above = self.total - self.below  # hands at or above each strength
        ok = np.nonzero(above <= share * self.total)[0]
        return int(self.strengths[ok[0]]) if len(ok) else int(self.strengths[-1]) + 1

    def tail_probability(self, threshold: int) -> float:
        """The exact chance that a fair deal is at least ``threshold``."""
        index = int(np.searchsorted(self.strengths, threshold))
        if index >= len(self.strengths):
            return 0.0
        return float((self.total - self.below[index]) / self.total)


@cache
def hand_law(joker: bool) -> HandLaw:
    """The law of a dealt hand from the 52-card deck, or the 53-card deck with the joker."""
    deck_size = 53 if joker else 52
    every = _all_strengths(deck_size)
    if np.any(every < 0):
        raise RuntimeError("the evaluator refused a five-card subset of the deck")
    strengths, counts = np.unique(every, return_counts=True)
    counts = counts.astype(np.int64)
    below = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
    total = comb(deck_size, 5)
    assert int(counts.sum()) == total
    return HandLaw(deck_size, strengths, counts, below, total)
