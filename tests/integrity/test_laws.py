"""The exact law of a dealt hand, checked against counting done another way."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest

from audit.facts.evaluate import strengths_of_hands
from audit.integrity.laws import CATEGORIES, hand_law

#: Textbook counts of five-card hands from 52 cards (high card .. straight flush).
TEXTBOOK_52 = (1_302_540, 1_098_240, 123_552, 54_912, 10_200, 5_108, 3_744, 624, 40, 0)


def test_the_52_card_law_is_the_textbook_one() -> None:
    law = hand_law(joker=False)
    assert law.total == comb(52, 5)
    assert tuple(law.category_counts()) == TEXTBOOK_52
    assert len(law.strengths) == 7462  # the classic number of distinct hand values


def test_joker_categories_counted_by_hand() -> None:
    """With the bug the joker is an ace or fills straights and flushes (R-JK 2-4)."""
    law = dict(zip((c.value for c in CATEGORIES), hand_law(joker=True).category_counts(),
                   strict=True))
    assert law["five aces"] == 1  # four aces and the joker
    # natural quads (624), quads of a non-ace with the joker (12), trip aces + joker (4*48)
    assert law["four of a kind"] == 624 + 12 + comb(4, 3) * 48
    # natural (3744), trips of a non-ace + an ace + joker (12*4*4),
    # joker + a pair of aces + another pair (6 * 12 * 6)
    assert law["full house"] == 3744 + 12 * 4 * 4 + comb(4, 2) * 12 * comb(4, 2)
    assert sum(law.values()) == comb(53, 5)


def test_openers_shares() -> None:
    """A pair of jacks or better: about 20.6% without the joker, 22.4% with it."""
    assert hand_law(joker=False).jacks_or_better() == pytest.approx(536_100 / comb(52, 5))
    assert hand_law(joker=True).jacks_or_better() == pytest.approx(0.2240, abs=5e-5)


def test_tail_threshold_is_the_top_share() -> None:
    law = hand_law(joker=False)
    threshold = law.tail_threshold(0.05)
    assert law.tail_probability(threshold) <= 0.05
    weaker = law.strengths[np.searchsorted(law.strengths, threshold) - 1]
    assert law.tail_probability(int(weaker)) > 0.05


@pytest.mark.parametrize("joker", [False, True])
def test_randomized_pit_of_fair_deals_is_uniform(joker: bool) -> None:
    rng = np.random.default_rng(7)
    law = hand_law(joker)
    deck = 53 if joker else 52
    hands = np.argsort(rng.random((40_000, deck)), axis=1)[:, :5].astype(np.int8)
    u = law.randomized_pit(strengths_of_hands(hands), rng.random(len(hands)))
    counts = np.histogram(u, bins=20, range=(0, 1))[0]
    expected = len(u) / 20
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 43.8  # the 0.999 quantile of chi-square(19)


def test_a_strength_no_hand_has_is_refused() -> None:
    law = hand_law(joker=False)
    with pytest.raises(ValueError):
        law.index_of(np.array([int(law.strengths[0]) + 1], dtype=np.int64))
