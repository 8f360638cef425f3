"""The statistics the tests use: exact tails, stratified exact tests, intervals, FDR control.

Every p-value here is one-sided towards the cheat the test looks for unless a
function says otherwise, and is exact or conservative under its stated law:

- :func:`binomial_upper`: P(X >= x) for X ~ Binomial(n, p) (scipy's regularized beta);
- :func:`uniform_mean_p`: the mean of n independent uniforms against its normal
  approximation (the Irwin-Hall law has lighter tails than the normal, so the
  approximation overstates extreme p-values: conservative);
- :func:`poisson_binomial_upper`: a sum of independent Bernoulli(p_i), by the exact
  recursion;
- :func:`iid_sum_upper` (:func:`iid_sum_upper_many` for many problems at once): a sum
  of n independent copies of small discrete laws, by FFT powers of their characteristic
  functions;
- the stratified tests of 2x2 tables are in :mod:`audit.integrity.strata`;
- :func:`benjamini_hochberg`: BH step-up (or Benjamini-Yekutieli, valid under any
  dependence) adjusted p-values.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from scipy import special

Z95 = 1.959963984540054


def binomial_upper(x: int, n: int, p: float) -> float:
    """P(X >= x) for X ~ Binomial(n, p) (the regularized incomplete beta function)."""
    if x <= 0:
        return 1.0
    if x > n:
        return 0.0
    return float(special.bdtrc(x - 1, n, p))


def wilson(x: int, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion x / n."""
    if n <= 0:
        return 0.0, 1.0
    p = x / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def poisson_interval(x: int) -> tuple[float, float]:
    """The exact (Garwood) 95% interval of a Poisson mean given a count x."""
    low = 0.0 if x == 0 else float(special.chdtri(2 * x, 0.975) / 2)
    high = float(special.chdtri(2 * x + 2, 0.025) / 2)
    return low, high


def poisson_upper(x: int, mean: float) -> float:
    """P(X >= x) for X ~ Poisson(mean)."""
    if x <= 0:
        return 1.0
    return float(special.pdtrc(x - 1, mean))


def normal_upper(z: float) -> float:
    """P(Z >= z) for a standard normal Z."""
    return float(special.ndtr(-z))


def uniform_mean_p(total: float, n: int, *, two_sided: bool) -> tuple[float, float]:
    """(z, p) for the sum of n independent uniforms on (0, 1): too high (or either way)."""
    z = (total - n / 2) / math.sqrt(n / 12)
    p = 2 * normal_upper(abs(z)) if two_sided else normal_upper(z)
    return z, min(1.0, p)


def mean_interval(total: float, total_sq: float, n: int) -> tuple[float, float, float]:
    """Mean and 95% interval of n values given their sum and sum of squares."""
    mean = total / n
    var = max(total_sq / n - mean * mean, 0.0) * n / max(n - 1, 1)
    half = Z95 * math.sqrt(var / n)
    return mean, mean - half, mean + half


F64 = npt.NDArray[np.float64]


def _above(floor: float, values: F64) -> F64:
    """``max(floor, v)`` of each value, as Python's ``max`` picks (``v`` only if above)."""
    return np.where(values > floor, values, floor)


def _below(ceiling: float, values: F64) -> F64:
    """``min(ceiling, v)`` of each value, as Python's ``min`` picks (``v`` only if below)."""
    return np.where(values < ceiling, values, ceiling)


def binomial_upper_many(x: npt.NDArray[np.int64], n: npt.NDArray[np.int64], p: float) -> F64:
    """:func:`binomial_upper` of each (x, n), the same floats."""
    x, n = np.asarray(x, dtype=np.int64), np.asarray(n, dtype=np.int64)
    inside = (x > 0) & (x <= n)
    out = np.where(x <= 0, 1.0, 0.0)
    out[inside] = special.bdtrc(x[inside] - 1, n[inside], p)
    return out


def wilson_many(x: npt.NDArray[np.int64], n: npt.NDArray[np.int64]) -> tuple[F64, F64]:
    """:func:`wilson` of each (x, n) with n > 0, the same floats."""
    x, n = np.asarray(x, dtype=np.int64), np.asarray(n, dtype=np.int64)
    p = x / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * np.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return _above(0.0, centre - half), _below(1.0, centre + half)


def uniform_mean_p_many(total: F64, n: npt.NDArray[np.int64], *, two_sided: bool
                        ) -> tuple[F64, F64]:
    """:func:`uniform_mean_p` of each (total, n), the same floats."""
    n = np.asarray(n, dtype=np.int64)
    z = (np.asarray(total, dtype=np.float64) - n / 2) / np.sqrt(n / 12)
    p = 2 * special.ndtr(-np.abs(z)) if two_sided else special.ndtr(-z)
    return z, _below(1.0, p)


def mean_interval_many(total: F64, total_sq: F64, n: npt.NDArray[np.int64]
                       ) -> tuple[F64, F64, F64]:
    """:func:`mean_interval` of each (total, total_sq, n) with n > 0, the same floats."""
    n = np.asarray(n, dtype=np.int64)
    mean = np.asarray(total, dtype=np.float64) / n
    spread = np.asarray(total_sq, dtype=np.float64) / n - mean * mean
    var = np.where(spread < 0.0, 0.0, spread) * n / np.maximum(n - 1, 1)  # max(spread, 0.0)
    half = Z95 * np.sqrt(var / n)
    return mean, mean - half, mean + half


def chi2_upper(statistic: float, df: int) -> float:
    """P(X >= statistic) for X ~ chi-square(df)."""
    return float(special.chdtrc(df, statistic)) if df > 0 else 1.0


def poisson_binomial_upper(x: int, probabilities: Sequence[float]) -> float:
    """P(S >= x) for S a sum of independent Bernoulli(p_i), by the exact recursion."""
    if x <= 0:
        return 1.0
    ps = np.asarray(probabilities, dtype=np.float64)
    if x > len(ps):
        return 0.0
    pmf = np.zeros(len(ps) + 1)
    pmf[0] = 1.0
    for i, p in enumerate(ps):
        pmf[1:i + 2] = pmf[1:i + 2] * (1 - p) + pmf[0:i + 1] * p
        pmf[0] *= 1 - p
    return float(min(1.0, pmf[x:].sum()))


def iid_sum_upper(x: int, parts: Sequence[tuple[npt.NDArray[np.float64], int]],
                  exact_below: float | None = 1e-2) -> float:
    """P(S >= x) for S the sum of independent draws: ``n`` copies of each ``(pmf, n)`` law.

    One problem of :func:`iid_sum_upper_many`.
    """
    laws = [pmf for pmf, _ in parts]
    counts = np.array([[n for _, n in parts]], dtype=np.int64)
    return float(iid_sum_upper_many(np.array([x]), laws, counts, exact_below)[0])


def iid_sum_upper_many(x: npt.NDArray[np.int64], laws: Sequence[npt.NDArray[np.float64]],
                       counts: npt.NDArray[np.int64], exact_below: float | None = 1e-2
                       ) -> npt.NDArray[np.float64]:
    """P(S_i >= x_i) for each problem i, S_i the sum of independent draws: ``counts[i, j]``
    copies of the law ``laws[j]`` (on 0..len(law)-1).

    The law of a sum is the inverse FFT of the product of the laws' spectra raised to
    their counts (exact up to rounding, about 1e-15). Where the Chernoff bound is above
    ``exact_below`` the bound is returned instead: never smaller than the exact value, and
    far from any alert (None: always exact). The bound's minimising t is found by
    bisection on the derivative's sign, for every problem at once.
    """
    x = np.asarray(x, dtype=np.int64)
    counts = np.asarray(counts, dtype=np.int64).reshape(len(x), len(laws))
    out = np.ones(len(x), dtype=np.float64)
    todo = x > 0
    if exact_below is not None:
        bound = _chernoff_iid_many(x, laws, counts, todo)
        todo &= bound < exact_below
        out = np.where(todo, out, bound)
    for i in np.flatnonzero(todo).tolist():
        out[i] = _exact_iid(int(x[i]), laws, counts[i])
    return out


def _exact_iid(x: int, laws: Sequence[npt.NDArray[np.float64]],
               counts: npt.NDArray[np.int64]) -> float:
    size = sum((len(pmf) - 1) * int(n) for pmf, n in zip(laws, counts, strict=True)) + 1
    if x >= size:
        return 0.0
    fft_size = 1 << (size - 1).bit_length()
    spectrum = np.ones(fft_size // 2 + 1, dtype=np.complex128)
    for pmf, n in zip(laws, counts.tolist(), strict=True):
        if n:
            spectrum *= np.fft.rfft(pmf, fft_size) ** n
    law = np.fft.irfft(spectrum, fft_size)[:size]
    return float(min(1.0, max(0.0, law[x:].sum())))


def _chernoff_iid_many(x: npt.NDArray[np.int64], laws: Sequence[npt.NDArray[np.float64]],
                       counts: npt.NDArray[np.int64], todo: npt.NDArray[np.bool_]
                       ) -> npt.NDArray[np.float64]:
    """min over t >= 0 of exp(-t x) E exp(t S) per problem (1 where ``todo`` is false or
    x is at most the mean)."""
    mean = np.zeros(len(x), dtype=np.float64)
    for j, pmf in enumerate(laws):
        mean = mean + counts[:, j] * float(np.dot(np.arange(len(pmf)), pmf))
    rows = np.flatnonzero(todo & (x > mean))
    bound = np.ones(len(x), dtype=np.float64)
    if not len(rows):
        return bound
    n = counts[rows].astype(np.float64)
    target = x[rows].astype(np.float64)

    def log_mgf(t: npt.NDArray[np.float64]
                ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        value = np.zeros(len(t))
        slope = np.zeros(len(t))
        for j, pmf in enumerate(laws):
            top = len(pmf) - 1
            k = np.arange(len(pmf))
            w = pmf * np.exp(t[:, None] * k - (t * top)[:, None])  # scaled against overflow
            total = w.sum(axis=1)
            value += n[:, j] * (np.log(total) + t * top)
            slope += n[:, j] * ((k * w).sum(axis=1) / total)
        return value, slope

    low, high = np.zeros(len(rows)), np.full(len(rows), 50.0)
    for _ in range(50):
        mid = (low + high) / 2
        above = log_mgf(mid)[1] > target
        high = np.where(above, mid, high)
        low = np.where(above, low, mid)
    t = (low + high) / 2
    bound[rows] = np.minimum(1.0, np.exp(log_mgf(t)[0] - t * target))
    return bound


def benjamini_hochberg(p_values: npt.NDArray[np.float64], *, dependent: bool = False
                       ) -> npt.NDArray[np.float64]:
    """BH adjusted p-values (q-values): reject where q <= the FDR rate.

    ``dependent``: the Benjamini-Yekutieli correction (multiply by the harmonic sum
    1 + 1/2 + ... + 1/m), which controls the FDR under any dependence between tests.
    """
    p = np.asarray(p_values, dtype=np.float64)
    m = len(p)
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    scale = float(np.sum(1.0 / np.arange(1, m + 1))) if dependent else 1.0
    ranked = p[order] * m * scale / np.arange(1, m + 1)
    adjusted = np.minimum.accumulate(ranked[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(adjusted, 1.0)
    return out
