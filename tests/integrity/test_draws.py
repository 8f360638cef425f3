"""The draw PIT: exact when enumerated, exactly uniform under fair draws either way."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from audit.evaluator import evaluate
from audit.integrity.draws import SAMPLES, draw_pit
from audit.integrity.prng import PURPOSE_DRAW, uniform_of
from schemas.records import CARD_CODES


def _codes(text: str) -> np.ndarray:
    return np.array([CARD_CODES.index(c) for c in text.split()], dtype=np.int64)


def _padded(cards: np.ndarray) -> np.ndarray:
    out = np.zeros(5, dtype=np.int64)
    out[:len(cards)] = cards
    return out


def test_an_enumerated_draw_is_ranked_among_every_possible_draw() -> None:
    kept = _codes("Kd Kc 7s 7h")
    stub = _codes("Kh 2c 3d 4h 5s 6c 8d 9h Tc Jd Qs Ac As 7d Jk")
    drawn = _codes("Kh")
    u, exact = draw_pit(_padded(kept), 4, _padded(drawn), stub, len(stub), np.uint64(99), 3,
                        SAMPLES)
    assert exact
    names = [CARD_CODES[c] for c in kept]
    finals = [evaluate([*names, CARD_CODES[c]]) for c in stub]
    actual = evaluate([*names, "Kh"])
    worse = sum(f < actual for f in finals)
    equal = sum(f == actual for f in finals)
    v = uniform_of(np.uint64(99), 3, PURPOSE_DRAW)
    assert u == pytest.approx((worse + v * equal) / len(stub))


def test_a_two_card_draw_counts_every_pair() -> None:
    kept = _codes("Ah Ad Qs")
    stub = _codes("2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac Qd")
    drawn = _codes("Ac Qd")
    u, exact = draw_pit(_padded(kept), 3, _padded(drawn), stub, len(stub), np.uint64(5), 1,
                        SAMPLES)
    names = ["Ah", "Ad", "Qs"]
    finals = [evaluate([*names, CARD_CODES[a], CARD_CODES[b]]) for a, b in combinations(stub, 2)]
    actual = evaluate([*names, "Ac", "Qd"])
    assert exact and actual == max(finals)
    worse = sum(f < actual for f in finals)
    assert worse / len(finals) <= u <= 1.0


def _fair_draw_pits(samples: int, draws: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = np.empty(draws)
    for i in range(draws):
        deck = rng.permutation(52)
        kept = deck[:2]
        stub = deck[10:40]  # 30 unseen cards
        drawn = stub[:3]  # a fair dealer's next three
        shuffled = rng.permutation(stub)
        out[i], _ = draw_pit(_padded(kept), 2, _padded(drawn), shuffled, len(shuffled),
                             np.uint64(i + seed * 1_000_003), 1, samples)
    return out


@pytest.mark.parametrize("samples", [SAMPLES, 10_000])
def test_fair_draws_give_uniform_pits(samples: int) -> None:
    """Sampled (C(30,3) > 256) and enumerated (<= 10,000) draws: both exactly uniform."""
    u = _fair_draw_pits(samples, 3000, seed=samples)
    counts = np.histogram(u, bins=10, range=(0, 1))[0]
    chi2 = float(((counts - 300) ** 2 / 300).sum())
    assert chi2 < 27.9  # the 0.999 quantile of chi-square(9)
    assert abs(u.mean() - 0.5) < 4 * (1 / 12 / len(u)) ** 0.5


def test_an_impossible_hand_gives_no_pit() -> None:
    kept = _codes("Ah Ah Qs")  # a repeated card
    stub = _codes("2c 3c 4c")
    u, exact = draw_pit(_padded(kept), 3, _padded(_codes("2c 3c")), stub, 3, np.uint64(1), 1,
                        SAMPLES)
    assert np.isnan(u) and not exact
