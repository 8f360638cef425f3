"""The statistics, against brute force and scipy's own tests."""

from __future__ import annotations

from itertools import product
from math import comb

import numpy as np
import pytest
from scipy import stats as sp

from audit.integrity import stats, strata


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


def test_iid_sum_many_is_each_problem_alone() -> None:
    a = np.array([0.6, 0.3, 0.1])
    b = np.array([0.5, 0.5])
    x = np.array([0, 2, 9, 30, 19, 40, 5])
    counts = np.array([[7, 4], [7, 4], [7, 4], [20, 0], [7, 4], [30, 30], [0, 9]])
    many = stats.iid_sum_upper_many(x, [a, b], counts)
    exact = stats.iid_sum_upper_many(x, [a, b], counts, exact_below=None)
    for i in range(len(x)):
        parts = [(a, int(counts[i, 0])), (b, int(counts[i, 1]))]
        assert many[i] == stats.iid_sum_upper(int(x[i]), parts)
        assert exact[i] == stats.iid_sum_upper(int(x[i]), parts, exact_below=None)
        assert many[i] >= exact[i] - 1e-12  # a bound stands in only above the exact value
    assert many[0] == 1.0 and exact[4] == 0.0  # x = 0; x past the largest sum (19 > 18)
    assert 0 < many[3] == exact[3] < 1e-2  # far in the tail: exact, not the bound
    assert many[2] > exact[2]  # near the middle: the bound


def test_one_stratum_is_fishers_exact_test() -> None:
    # exposed: 12 of 20 succeed; not exposed: 20 of 80
    table = strata.Stratum(total=100, total_hits=32, exposed=20, hits=12)
    result = strata.stratified_exact([table], greater=True)
    _, p = sp.fisher_exact([[12, 8], [20, 60]], alternative="greater")
    assert result.p_value == pytest.approx(p)
    less = strata.stratified_exact([table], greater=False)
    _, p_less = sp.fisher_exact([[12, 8], [20, 60]], alternative="less")
    assert less.p_value == pytest.approx(p_less)
    assert result.odds_ratio == pytest.approx((12 * 60) / (8 * 20))
    assert result.ci_low < result.odds_ratio < result.ci_high


def test_strata_are_convolved() -> None:
    """Two strata: the law of the total is the convolution of two hypergeometrics."""
    s1 = strata.Stratum(total=30, total_hits=10, exposed=5, hits=4)
    s2 = strata.Stratum(total=40, total_hits=30, exposed=10, hits=10)
    law1 = sp.hypergeom.pmf(np.arange(0, 6), 30, 10, 5)
    law2 = sp.hypergeom.pmf(np.arange(0, 11), 40, 30, 10)
    law = np.convolve(law1, law2)
    assert strata.stratified_exact([s1, s2], greater=True).p_value == pytest.approx(law[14:].sum())


def test_a_table_with_no_exposure_is_left_out() -> None:
    result = strata.stratified_exact([strata.Stratum(10, 5, 0, 0)], greater=True)
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
    low, pmf = strata.hypergeom_pmf(total, hits, draws)
    support = np.arange(low, low + len(pmf))
    assert pmf == pytest.approx(sp.hypergeom.pmf(support, total, hits, draws), rel=1e-9)
    assert pmf.sum() == pytest.approx(1.0)
