"""The statistics, against brute force and scipy's own tests."""

from __future__ import annotations

from itertools import product
from math import comb

import numpy as np
import pytest
from scipy import stats as sp

from audit.integrity import stats


def test_poisson_binomial_by_enumeration() -> None:
    ps = [0.1, 0.5, 0.3, 0.9, 0.05]
    for x in range(7):
        brute = sum(np.prod([p if bit else 1 - p for p, bit in zip(ps, bits, strict=True)])
                    for bits in product((0, 1), repeat=len(ps)) if sum(bits) >= x)
        assert stats.poisson_binomial_upper(x, ps) == pytest.approx(brute)


def test_iid_sum_against_direct_convolution() -> None:
    a = np.array([0.6, 0.3, 0.1])
    b = np.array([0.5, 0.5])
    law = np.array([1.0])
    for _ in range(7):
        law = np.convolve(law, a)
    for _ in range(4):
        law = np.convolve(law, b)
    for x in (0, 3, 9, 18, 19):
        exact = stats.iid_sum_upper(x, [(a, 7), (b, 4)], exact_below=None)
        assert exact == pytest.approx(law[x:].sum(), abs=1e-12)
        # by default a Chernoff bound stands in far from any alert: never below the exact value
        assert stats.iid_sum_upper(x, [(a, 7), (b, 4)]) >= exact - 1e-12


def test_iid_sums_together_equal_one_at_a_time() -> None:
    # f109 bounds every subject at once: the same numbers, to the last bit, as one by one,
    # on both sides of the exact-tail threshold and at the edges (x = 0, x past the mean).
    a = np.array([0.55, 0.3, 0.1, 0.05])
    b = np.array([0.6, 0.25, 0.1, 0.05])
    rng = np.random.default_rng(7)
    counts = rng.integers(0, 400, size=(300, 2))
    mean = counts @ np.array([np.dot(np.arange(4), a), np.dot(np.arange(4), b)])
    xs = (mean * rng.uniform(0.6, 1.7, len(mean))).astype(np.int64)
    xs[:3] = (0, -1, 10_000)
    together = stats.iid_sum_upper_many(xs, counts, [a, b])
    alone = [stats.iid_sum_upper(int(x), [(a, int(m)), (b, int(n))])
             for x, (m, n) in zip(xs, counts, strict=True)]
    assert together.tolist() == alone
    assert (together < 1e-2).any() and (together == 1.0).any()


def test_one_stratum_is_fishers_exact_test() -> None:
    # exposed: 12 of 20 succeed; not exposed: 20 of 80
    table = stats.Stratum(total=100, total_hits=32, exposed=20, hits=12)
    result = stats.stratified_exact([table], greater=True)
    _, p = sp.fisher_exact([[12, 8], [20, 60]], alternative="greater")
    assert result.p_value == pytest.approx(p)
    less = stats.stratified_exact([table], greater=False)
    _, p_less = sp.fisher_exact([[12, 8], [20, 60]], alternative="less")
    assert less.p_value == pytest.approx(p_less)
    assert result.odds_ratio == pytest.approx((12 * 60) / (8 * 20))
    assert result.ci_low < result.odds_ratio < result.ci_high


def test_strata_are_convolved() -> None:
    """Two strata: the law of the total is the convolution of two hypergeometrics."""
    s1 = stats.Stratum(total=30, total_hits=10, exposed=5, hits=4)
    s2 = stats.Stratum(total=40, total_hits=30, exposed=10, hits=10)
    law1 = sp.hypergeom.pmf(np.arange(0, 6), 30, 10, 5)
    law2 = sp.hypergeom.pmf(np.arange(0, 11), 40, 30, 10)
    law = np.convolve(law1, law2)
    assert stats.stratified_exact([s1, s2], greater=True).p_value == pytest.approx(law[14:].sum())


def test_a_table_with_no_exposure_is_left_out() -> None:
    result = stats.stratified_exact([stats.Stratum(10, 5, 0, 0)], greater=True)
    assert result.p_value == 1.0


def test_benjamini_hochberg_by_hand() -> None:
    p = np.array([0.01, 0.04, 0.03, 0.5])
    # sorted 0.01, 0.03, 0.04, 0.5 -> 0.04, 0.06, 0.0533, 0.5 -> monotone from the top
    q = stats.benjamini_hochberg(p)
    assert q == pytest.approx([0.04, 0.0533333, 0.0533333, 0.5], rel=1e-5)
    by = stats.benjamini_hochberg(p, dependent=True)
    assert by == pytest.approx(np.minimum(q * (1 + 1 / 2 + 1 / 3 + 1 / 4), 1))


def test_binomial_tail_and_wilson() -> None:
    assert stats.binomial_upper(3, 3, 0.5) == pytest.approx(1 / 8)
    assert stats.binomial_upper(0, 3, 0.5) == 1.0
    low, high = stats.wilson(10, 100)
    assert low < 0.1 < high and high - low < 0.13


def test_uniform_mean_is_conservative_in_the_tail() -> None:
    """The normal tail of a sum of uniforms is above the exact (Irwin-Hall) tail."""
    n = 12
    total = 9.0  # far in the tail: P(S >= 9) for 12 uniforms
    exact = sum((-1) ** k * comb(n, k) * (n - total - k) ** n for k in range(int(n - total) + 1)
                if n - total - k > 0) / np.prod(np.arange(1, n + 1))
    _, p = stats.uniform_mean_p(total, n, two_sided=False)
    assert p >= exact


def test_poisson_interval_covers_the_count() -> None:
    low, high = stats.poisson_interval(0)
    assert low == 0 and high == pytest.approx(3.689, abs=1e-3)
    low, high = stats.poisson_interval(10)
    assert low < 10 < high


@pytest.mark.parametrize(("total", "hits", "draws"), [(10, 3, 4), (500, 120, 60), (40, 40, 5),
                                                       (7, 0, 3), (100_000, 5_000, 300)])
def test_hypergeometric_law_matches_scipy(total: int, hits: int, draws: int) -> None:
    low, pmf = stats.hypergeom_pmf(total, hits, draws)
    support = np.arange(low, low + len(pmf))
    assert pmf == pytest.approx(sp.hypergeom.pmf(support, total, hits, draws), rel=1e-9)
    assert pmf.sum() == pytest.approx(1.0)
