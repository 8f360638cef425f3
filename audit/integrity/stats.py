"""The statistics the tests use: exact tails, stratified exact tests, intervals, FDR control.

Every p-value here is one-sided towards the cheat the test looks for unless a
function says otherwise, and is exact or conservative under its stated law:

- :func:`binomial_upper`: P(X >= x) for X ~ Binomial(n, p) (scipy's regularized beta);
- :func:`uniform_mean_p`: the mean of n independent uniforms against its normal
  approximation (the Irwin-Hall law has lighter tails than the normal, so the
  approximation overstates extreme p-values: conservative);
- :func:`poisson_binomial_upper`: a sum of independent Bernoulli(p_i), by the exact
  recursion;
- :func:`iid_sum_upper`: a sum of n independent copies of a small discrete law, by
  FFT powers of its characteristic function;
- :func:`stratified_exact`: the exact conditional test of a common odds ratio of 1
  across 2x2 tables (each table's count is hypergeometric given its margins; the
  strata are convolved), with the Mantel-Haenszel odds ratio and the
  Robins-Breslow-Greenland interval as the effect size;
- :func:`benjamini_hochberg`: BH step-up (or Benjamini-Yekutieli, valid under any
  dependence) adjusted p-values.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

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

    Each law is on 0..len(pmf)-1; the law of the sum is the inverse FFT of the product
    of the laws' spectra raised to their counts (exact up to rounding, about 1e-15).
    When the Chernoff bound is above ``exact_below`` the bound is returned instead: never
    smaller than the exact value, and far from any alert (None: always exact).
    """
    counts = np.array([[n for _, n in parts]], dtype=np.int64)
    return float(iid_sum_upper_many(np.array([x]), counts, [pmf for pmf, _ in parts],
                                    exact_below)[0])


def iid_sum_upper_many(xs: npt.NDArray[np.int64], counts: npt.NDArray[np.int64],
                       pmfs: Sequence[npt.NDArray[np.float64]],
                       exact_below: float | None = 1e-2) -> npt.NDArray[np.float64]:
    """:func:`iid_sum_upper` of many sums of the same laws: sum ``i`` is ``counts[i, j]``
    copies of law ``pmfs[j]``, its p-value P(S_i >= xs[i]).

    The Chernoff bounds of every sum are found together (one bisection over all of them,
    each step the very arithmetic of one sum's); the exact tail only for the sums whose
    bound is below ``exact_below``.
    """
    xs = np.asarray(xs, dtype=np.int64)
    out = np.ones(len(xs), dtype=np.float64)
    if exact_below is not None:
        out = _chernoff_iid_many(xs, counts, pmfs)
    for i in np.flatnonzero((xs > 0) & ((out < exact_below) if exact_below is not None
                                        else True)).tolist():
        out[i] = _exact_iid(int(xs[i]), [(pmf, int(n)) for pmf, n in zip(
            pmfs, counts[i].tolist(), strict=True)])
    return out


def _exact_iid(x: int, parts: Sequence[tuple[npt.NDArray[np.float64], int]]) -> float:
    """P(S >= x) by FFT powers of the laws' spectra (``x`` > 0)."""
    size = sum((len(pmf) - 1) * n for pmf, n in parts) + 1
    if x >= size:
        return 0.0
    fft_size = 1 << (size - 1).bit_length()
    spectrum = np.ones(fft_size // 2 + 1, dtype=np.complex128)
    for pmf, n in parts:
        if n:
            spectrum *= np.fft.rfft(pmf, fft_size) ** n
    law = np.fft.irfft(spectrum, fft_size)[:size]
    return float(min(1.0, max(0.0, law[x:].sum())))


def _log_mgf(t: float, parts: Sequence[tuple[npt.NDArray[np.float64], int]]) -> float:
    """log E exp(t S) of one sum."""
    value = 0.0
    for pmf, n in parts:
        k = np.arange(len(pmf))
        w = pmf * np.exp(t * k - t * (len(pmf) - 1))  # scaled against overflow
        value += n * (float(np.log(w.sum())) + t * (len(pmf) - 1))
    return value


def _chernoff_iid_many(xs: npt.NDArray[np.int64], counts: npt.NDArray[np.int64],
                       pmfs: Sequence[npt.NDArray[np.float64]]) -> npt.NDArray[np.float64]:
    """Per sum, min over t >= 0 of exp(-t x) E exp(t S) (1 for x <= 0 or x at most the
    mean), by bisection on the sign of the derivative of log E exp(t S) - t x."""
    out = np.ones(len(xs), dtype=np.float64)
    mean = np.zeros(len(xs), dtype=np.float64)
    for j, pmf in enumerate(pmfs):
        mean = mean + counts[:, j] * float(np.dot(np.arange(len(pmf)), pmf))
    live = np.flatnonzero((xs > 0) & (xs > mean))
    if not len(live):
        return out
    x, n = xs[live], counts[live]
    low, high = np.zeros(len(live)), np.full(len(live), 50.0)
    for _ in range(50):
        mid = (low + high) / 2
        slope = np.zeros(len(live), dtype=np.float64)
        for j, pmf in enumerate(pmfs):
            k = np.arange(len(pmf))
            w = pmf * np.exp(mid[:, None] * k - (mid * (len(pmf) - 1))[:, None])
            slope = slope + n[:, j] * ((k * w).sum(axis=1) / w.sum(axis=1))
        above = slope > x
        high = np.where(above, mid, high)
        low = np.where(above, low, mid)
    for i, cell in enumerate(live.tolist()):
        t = float((low[i] + high[i]) / 2)
        parts = [(pmf, int(c)) for pmf, c in zip(pmfs, n[i].tolist(), strict=True)]
        out[cell] = float(min(1.0, np.exp(_log_mgf(t, parts) - t * int(x[i]))))
    return out


@dataclass(frozen=True)
class Stratum:
    """One 2x2 table: ``exposed`` trials with ``hits`` successes, out of ``total`` trials
    with ``total_hits`` successes in all (exposed and not)."""

    total: int
    total_hits: int
    exposed: int
    hits: int


@dataclass(frozen=True)
class StratifiedResult:
    """The exact stratified test of a common odds ratio of 1, and its effect size."""

    p_value: float
    hits: int  #: successes among exposed trials, all strata
    expected: float  #: their expectation under no association
    exposed: int
    odds_ratio: float  #: Mantel-Haenszel
    ci_low: float  #: Robins-Breslow-Greenland 95%
    ci_high: float


_LOG_FACTORIAL = np.zeros(1)


def _log_factorial(n: int) -> npt.NDArray[np.float64]:
    """log(k!) for k = 0..n (a table kept and grown as needed)."""
    global _LOG_FACTORIAL
    if len(_LOG_FACTORIAL) <= n:
        size = max(n + 1, 2 * len(_LOG_FACTORIAL))
        _LOG_FACTORIAL = special.gammaln(np.arange(size, dtype=np.float64) + 1)
    return _LOG_FACTORIAL


def hypergeom_pmf(total: int, hits: int, draws: int) -> tuple[int, npt.NDArray[np.float64]]:
    """The law of the successes among ``draws`` of ``total`` items of which ``hits`` succeed:
    its lowest possible value and the probabilities from there (log-factorials, exact to
    rounding; scipy's ``hypergeom.pmf`` gives the same, much more slowly)."""
    low = max(0, draws - (total - hits))
    high = min(draws, hits)
    k = np.arange(low, high + 1)
    lf = _log_factorial(total)
    log_p = (lf[hits] - lf[k] - lf[hits - k] + lf[total - hits] - lf[draws - k]
             - lf[total - hits - draws + k] - lf[total] + lf[draws] + lf[total - draws])
    return low, np.exp(log_p)


def _hypergeom_pmf(s: Stratum) -> tuple[int, npt.NDArray[np.float64]]:
    return hypergeom_pmf(s.total, s.total_hits, s.exposed)


def stratified_exact(strata: Sequence[Stratum], *, greater: bool) -> StratifiedResult:
    """Exact conditional test that exposure changes the success rate, in either stated
    direction, across strata (``greater``: exposed trials succeed more often).

    Given every table's margins, its exposed-success count is hypergeometric under the
    null; the law of the total is the convolution of the strata's laws, so the
    p-value is exact (and, being discrete, conservative).
    """
    used = [s for s in strata if 0 < s.exposed < s.total and 0 < s.total_hits < s.total]
    hits = sum(s.hits for s in used)
    exposed = sum(s.exposed for s in used)
    if not used:
        return StratifiedResult(1.0, hits, float(hits), exposed, 1.0, 0.0, math.inf)
    offset = 0
    law = np.array([1.0])
    expected = 0.0
    for s in used:
        low, pmf = _hypergeom_pmf(s)
        offset += low
        law = np.convolve(law, pmf)
        expected += s.exposed * s.total_hits / s.total
    at = hits - offset
    if greater:
        p = float(law[max(at, 0):].sum()) if at < len(law) else 0.0
    else:
        p = float(law[:at + 1].sum()) if at >= 0 else 0.0
    odds, low_ci, high_ci = mantel_haenszel(used)
    return StratifiedResult(min(1.0, max(p, 0.0)), hits, expected, exposed, odds, low_ci,
                            high_ci)


def mantel_haenszel(strata: Sequence[Stratum]) -> tuple[float, float, float]:
    """Mantel-Haenszel common odds ratio with the Robins-Breslow-Greenland 95% interval."""
    r_sum = s_sum = pr = ps_qr = qs = 0.0
    for st in strata:
        a = st.hits
        b = st.exposed - st.hits
        c = st.total_hits - st.hits
        d = st.total - st.exposed - c
        n = st.total
        r = a * d / n
        s = b * c / n
        p = (a + d) / n
        q = (b + c) / n
        r_sum += r
        s_sum += s
        pr += p * r
        ps_qr += p * s + q * r
        qs += q * s
    if r_sum == 0 or s_sum == 0:
        # A zero cell: the odds ratio is 0 or infinite; add 1/2 to every cell for a finite estimate.
        return _haldane(strata)
    odds = r_sum / s_sum
    var = pr / (2 * r_sum**2) + ps_qr / (2 * r_sum * s_sum) + qs / (2 * s_sum**2)
    half = Z95 * math.sqrt(var)
    return odds, math.exp(math.log(odds) - half), math.exp(math.log(odds) + half)


def _haldane(strata: Sequence[Stratum]) -> tuple[float, float, float]:
    a = sum(s.hits for s in strata) + 0.5
    b = sum(s.exposed - s.hits for s in strata) + 0.5
    c = sum(s.total_hits - s.hits for s in strata) + 0.5
    d = sum(s.total - s.exposed - s.total_hits + s.hits for s in strata) + 0.5
    odds = a * d / (b * c)
    half = Z95 * math.sqrt(1 / a + 1 / b + 1 / c + 1 / d)
    return odds, math.exp(math.log(odds) - half), math.exp(math.log(odds) + half)


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


@dataclass(frozen=True)
class StrataSet:
    """Many stratified problems at once: entry ``i`` is one 2x2 table of problem ``owner[i]``
    (the columns of :class:`Stratum`). Only informative tables (both margins inside) count."""

    owner: npt.NDArray[np.int64]
    total: npt.NDArray[np.int64]
    total_hits: npt.NDArray[np.int64]
    exposed: npt.NDArray[np.int64]
    hits: npt.NDArray[np.int64]
    problems: int

    def informative(self) -> StrataSet:
        """The tables with 0 < exposed < total and 0 < total_hits < total."""
        keep = ((self.exposed > 0) & (self.exposed < self.total) & (self.total_hits > 0)
                & (self.total_hits < self.total))
        return StrataSet(self.owner[keep], self.total[keep], self.total_hits[keep],
                         self.exposed[keep], self.hits[keep], self.problems)

    def flipped(self) -> StrataSet:
        """The same tables counting failures instead of successes (``less`` becomes
        ``greater``)."""
        return StrataSet(self.owner, self.total, self.total - self.total_hits, self.exposed,
                         self.exposed - self.hits, self.problems)

    def sums(self, values: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """Per problem, the sum of a per-table value."""
        weights = np.asarray(values, dtype=np.float64)
        return np.bincount(self.owner, weights=weights, minlength=self.problems).astype(
            np.float64)

    def strata(self, problem: int) -> list[Stratum]:
        """The tables of one problem, for :func:`stratified_exact`."""
        at = np.nonzero(self.owner == problem)[0]
        return [Stratum(int(self.total[i]), int(self.total_hits[i]), int(self.exposed[i]),
                        int(self.hits[i])) for i in at]


def chernoff_many(tables: StrataSet, *, greater: bool) -> npt.NDArray[np.float64]:
    """A conservative p-value per problem: the Chernoff bound on the tail of its count.

    Each table's count is hypergeometric, which is smaller in convex order than the
    binomial with the same mean (Hoeffding 1963, theorem 4), so the binomial moment
    generating function bounds it: P(S >= x) <= min over t >= 0 of exp(-t x) E exp(t S).
    Always at least the exact p-value; close to it (a small factor) in the far tail.
    """
    t = tables.informative() if greater else tables.informative().flipped()
    share = t.total_hits / t.total
    x = t.sums(t.hits)
    expected = t.sums(t.exposed * share)
    most = t.sums(t.exposed)
    out = np.ones(t.problems)
    log_share, log_rest = np.log(share), np.log1p(-share)
    inside = (x > expected) & (x < most)
    low = np.zeros(t.problems)
    high = np.full(t.problems, 60.0)
    for _ in range(60):  # bisection for the minimising t, all problems at once
        mid = (low + high) / 2
        e = np.exp(log_share + mid[t.owner] - np.logaddexp(log_rest, log_share + mid[t.owner]))
        slope = t.sums(t.exposed * e) - x
        high = np.where(slope > 0, mid, high)
        low = np.where(slope > 0, low, mid)
    best = (low + high) / 2
    log_mgf = t.sums(t.exposed * np.logaddexp(log_rest, log_share + best[t.owner]))
    out[inside] = np.exp(np.minimum(0.0, -best * x + log_mgf))[inside]
    every = x >= most  # every exposed trial succeeded: the bound is the chance of that
    out[every] = np.exp(t.sums(t.exposed * log_share))[every]
    return np.minimum(out, 1.0)


def mantel_haenszel_many(tables: StrataSet
                         ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64],
                                    npt.NDArray[np.float64]]:
    """:func:`mantel_haenszel` per problem (odds ratio, 95% interval), vectorised."""
    t = tables.informative()
    a = t.hits.astype(np.float64)
    b = (t.exposed - t.hits).astype(np.float64)
    c = (t.total_hits - t.hits).astype(np.float64)
    d = (t.total - t.exposed - t.total_hits + t.hits).astype(np.float64)
    n = t.total.astype(np.float64)
    r, s = a * d / n, b * c / n
    p, q = (a + d) / n, (b + c) / n
    r_sum, s_sum = t.sums(r), t.sums(s)
    with np.errstate(divide="ignore", invalid="ignore"):
        odds = r_sum / s_sum
        var = (t.sums(p * r) / (2 * r_sum**2) + t.sums(p * s + q * r) / (2 * r_sum * s_sum)
               + t.sums(q * s) / (2 * s_sum**2))
        half = Z95 * np.sqrt(var)
        low, high = np.exp(np.log(odds) - half), np.exp(np.log(odds) + half)
        # a zero margin: Haldane's 1/2 on the pooled table
        ha, hb, hc, hd = (t.sums(v) + 0.5 for v in (a, b, c, d))
        h_odds = ha * hd / (hb * hc)
        h_half = Z95 * np.sqrt(1 / ha + 1 / hb + 1 / hc + 1 / hd)
    zero = (r_sum == 0) | (s_sum == 0)
    odds = np.where(zero, h_odds, odds)
    low = np.where(zero, h_odds * np.exp(-h_half), low)
    high = np.where(zero, h_odds * np.exp(h_half), high)
    return odds, low, high
