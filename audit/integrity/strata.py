"""Stratified tests of 2x2 tables: is an exposure associated with a success in every stratum?

- :func:`stratified_exact`: the exact conditional test of a common odds ratio of 1
  across 2x2 tables (each table's count is hypergeometric given its margins; the
  strata are convolved), with the Mantel-Haenszel odds ratio and the
  Robins-Breslow-Greenland interval as the effect size;
- :class:`StrataSet` with :func:`chernoff_many` and :func:`mantel_haenszel_many`: many
  such problems at once, a conservative Chernoff bound and the effect size per problem.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import special

from audit.integrity.stats import Z95


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

    def of_problems(self, wanted: npt.NDArray[np.bool_]) -> StrataSet:
        """The tables of the ``wanted`` problems (a mask over the problems), in their order."""
        keep = np.asarray(wanted, dtype=np.bool_)[self.owner]
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


def _sums(owner: npt.NDArray[np.int64], values: npt.NDArray[np.float64], problems: int
          ) -> npt.NDArray[np.float64]:
    return np.bincount(owner, weights=values, minlength=problems).astype(np.float64)


def chernoff_many(tables: StrataSet, *, greater: bool,
                  wanted: npt.NDArray[np.bool_] | None = None) -> npt.NDArray[np.float64]:
    """A conservative p-value per problem: the Chernoff bound on the tail of its count.

    Each table's count is hypergeometric, which is smaller in convex order than the
    binomial with the same mean (Hoeffding 1963, theorem 4), so the binomial moment
    generating function bounds it: P(S >= x) <= min over t >= 0 of exp(-t x) E exp(t S).
    Always at least the exact p-value; close to it (a small factor) in the far tail.

    ``wanted``: the problems whose bound is needed (the others get 1 and cost nothing).
    Each problem's bound reads only its own tables, in their order, so a wanted
    problem's bound is the same to the bit with or without the others.
    """
    t = tables.informative() if greater else tables.informative().flipped()
    if wanted is not None:
        t = t.of_problems(wanted)
    share = t.total_hits / t.total
    x = t.sums(t.hits)
    expected = t.sums(t.exposed * share)
    most = t.sums(t.exposed)
    out = np.ones(t.problems)
    log_share, log_rest = np.log(share), np.log1p(-share)
    inside = (x > expected) & (x < most)
    every = x >= most  # every exposed trial succeeded: the bound is the chance of that
    out[every] = np.exp(t.sums(t.exposed * log_share))[every]
    # the bisection reads only the problems whose bound it gives
    mine = inside[t.owner]
    owner, exposed = t.owner[mine], t.exposed[mine]
    log_share, log_rest = log_share[mine], log_rest[mine]
    low = np.zeros(t.problems)
    high = np.full(t.problems, 60.0)
    for _ in range(60):  # bisection for the minimising t, all problems at once
        mid = (low + high) / 2
        e = np.exp(log_share + mid[owner] - np.logaddexp(log_rest, log_share + mid[owner]))
        slope = _sums(owner, exposed * e, t.problems) - x
        high = np.where(slope > 0, mid, high)
        low = np.where(slope > 0, low, mid)
    best = (low + high) / 2
    log_mgf = _sums(owner, exposed * np.logaddexp(log_rest, log_share + best[owner]),
                    t.problems)
    out[inside] = np.exp(np.minimum(0.0, -best * x + log_mgf))[inside]
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
