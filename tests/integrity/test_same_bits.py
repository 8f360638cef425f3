"""The shortcuts of the integrity pass give the same arrays, to the bit, as the long way."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from audit.integrity import frames, stats, strata
from audit.integrity.checks import c201_arrive_together as c201
from audit.integrity.checks._common import unique_inverse
from audit.integrity.checks._sums import Sums
from audit.integrity.features import pair_key
from audit.integrity.frames import OPENERS_CODE
from audit.profiles import load_profile
from schemas.records import CARD_CODES, Game, Openers


@pytest.mark.parametrize("seed", range(6))
def test_unique_inverse_is_numpys(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 5000))
    cases = [
        rng.integers(0, 50, n),  # codes: a dense table
        pair_key(rng.integers(0, 40, n), rng.integers(0, 900, n)),  # pairs: dense
        pair_key(rng.integers(0, 1 << 30, n), rng.integers(0, 1 << 30, n)),  # too wide: sorted
        rng.integers(-5, 5, n),  # negative keys: sorted
    ]
    for keys in cases:
        unique, inverse = unique_inverse(keys)
        want_unique, want_inverse = np.unique(np.asarray(keys, dtype=np.int64),
                                              return_inverse=True)
        assert unique.dtype == want_unique.dtype == np.int64
        assert np.array_equal(unique, want_unique)
        assert np.array_equal(inverse, want_inverse.reshape(-1))


def _tables(rng: np.random.Generator, problems: int) -> strata.StrataSet:
    owner = np.sort(rng.integers(0, problems, 6 * problems))
    total = rng.integers(2, 60, len(owner))
    total_hits = rng.integers(0, total + 1)
    exposed = rng.integers(0, total + 1)
    low = np.maximum(0, exposed - (total - total_hits))
    hits = low + rng.integers(0, np.minimum(exposed, total_hits) - low + 1)
    return strata.StrataSet(owner, total, total_hits, exposed, hits, problems)


@pytest.mark.parametrize("greater", [True, False])
def test_chernoff_of_some_problems_is_each_problems_bound(greater: bool) -> None:
    rng = np.random.default_rng(7)
    tables = _tables(rng, 300)
    every = strata.chernoff_many(tables, greater=greater)
    wanted = rng.random(300) < 0.3
    some = strata.chernoff_many(tables, greater=greater, wanted=wanted)
    assert np.array_equal(some[wanted].view(np.int64), every[wanted].view(np.int64))
    assert (some[~wanted] == 1.0).all()
    assert (every < 1).any() and (every <= 1).all()


def _bits(values: object) -> list[int]:
    return np.asarray(values, dtype=np.float64).view(np.int64).tolist()


def test_vectorised_statistics_are_the_scalar_ones() -> None:
    rng = np.random.default_rng(3)
    n = rng.integers(1, 5000, 400)
    n[:5] = [1, 2, 100, 101, 4999]
    x = rng.integers(0, n + 2)
    x[:5] = [0, 3, 0, 100, 4999]
    total = rng.random(400) * n
    total_sq = total * rng.random(400)
    pairs = list(zip(x.tolist(), n.tolist(), strict=True))
    assert _bits(stats.binomial_upper_many(x, n, 0.05)) \
        == _bits([stats.binomial_upper(a, b, 0.05) for a, b in pairs])
    x = np.minimum(x, n)  # a share: at most all of them
    low, high = stats.wilson_many(x, n)
    want = [stats.wilson(a, b) for a, b in zip(x.tolist(), n.tolist(), strict=True)]
    assert _bits(low) == _bits([w[0] for w in want])
    assert _bits(high) == _bits([w[1] for w in want])
    for two_sided in (False, True):
        z, p = stats.uniform_mean_p_many(total, n, two_sided=two_sided)
        scalar = [stats.uniform_mean_p(t, b, two_sided=two_sided)
                  for t, b in zip(total, n.tolist(), strict=True)]
        assert _bits(z) == _bits([s[0] for s in scalar])
        assert _bits(p) == _bits([s[1] for s in scalar])
    got = stats.mean_interval_many(total, total_sq, n)
    scalar_means = [stats.mean_interval(t, q, b)
                    for t, q, b in zip(total, total_sq, n.tolist(), strict=True)]
    for k in range(3):
        assert _bits(got[k]) == _bits([s[k] for s in scalar_means])


@pytest.mark.parametrize("seed", range(4))
def test_arrive_together_screen_counts_as_the_test(seed: int) -> None:
    """The compiled screen of C201 finds each pair's coincidence chances as ``_judge``
    does: its log-product is the log of their product, so it skips no testable pair."""
    rng = np.random.default_rng(seed)
    moves = int(rng.integers(2, 300))
    times = np.sort(rng.integers(0, 600, moves)).astype(np.float64) + rng.random(moves)
    times[: moves // 3] = np.round(times[: moves // 3])  # exact hour gaps: edges of the span
    kinds = rng.integers(0, 2, moves).astype(np.int64)
    players = rng.integers(0, 6, moves).astype(np.int64)
    moved = np.bincount(players, minlength=6).astype(np.int64)
    order = np.argsort(players, kind="stable").astype(np.int64)
    starts = np.concatenate(([0], np.cumsum(moved)[:-1])).astype(np.int64)
    mine, theirs = np.array([0, 1, 2, 5]), np.array([1, 0, 3, 4])
    log_floor, positive = c201._attainable(times, kinds, order, starts, moved, mine, theirs)
    for q in range(len(mine)):
        chances = []
        for kind in (0, 1):
            m = np.flatnonzero((players == mine[q]) & (kinds == kind))
            t = np.sort(times[(players == theirs[q]) & (kinds == kind)])
            at = times[m]
            near = (np.searchsorted(t, at + c201.SPAN_MINUTES, "right")
                    - np.searchsorted(t, at - c201.SPAN_MINUTES, "left"))
            chances.extend(c201.coincidence_probability(near).tolist())
        nonzero = [c for c in chances if c > 0]
        assert positive[q] == bool(nonzero)
        if nonzero:
            assert log_floor[q] == pytest.approx(float(np.log(np.prod(nonzero))), abs=1e-12)


@pytest.mark.parametrize("house", ["robert", "house23", "foster", "laws"])
def test_openers_codes_are_each_hands(house: str) -> None:
    """Each hand's minimum openers, worked out once per distinct (header, game, jackpot),
    is the one the header or the house gives that hand."""
    rng = np.random.default_rng(5)
    n = 500
    header = rng.choice(np.array([None, "", "JJ", "QQ", "KK", "AA", "ANY"], dtype=object), n)
    game = rng.choice(np.array([g.value for g in Game]), n)
    jackpot = rng.integers(0, 12, n).astype(np.int32)
    hands = pa.table({"openers": pa.array(header.tolist(), pa.string()),
                      "game": pa.array(game.tolist()), "jackpot": pa.array(jackpot)})
    profile = load_profile(house)
    want = [OPENERS_CODE[Openers(o) if o else profile.openers_for(int(j), Game(g))]
            for o, g, j in zip(header.tolist(), game.tolist(), jackpot.tolist(), strict=True)]
    assert frames._openers_codes(hands, profile).tolist() == want


def test_counted_columns_are_the_summed_ones() -> None:
    """A column of ones (None) or of booleans is counted; the sums are those of the numbers."""
    rng = np.random.default_rng(11)
    counted, summed = Sums(3, fractional=[2]), Sums(3, fractional=[2])
    for _ in range(5):
        keys = rng.integers(0, 30, 1000)
        flags = rng.random(1000) < 0.3
        values = rng.random(1000)
        counted.add(keys, None, flags, values)
        summed.add(keys, np.ones(1000), flags.astype(np.float64), values)
    for got, want in zip(counted.totals(), summed.totals(), strict=True):
        assert np.array_equal(got, want)


def test_card_codes_by_bytes_are_the_words_codes() -> None:
    """Cards coded by their two bytes get the codes of the word table, -1 for what is no
    card, in a sliced array too; another length falls back to the word table."""
    words = [*CARD_CODES, "Xx", "As", "10"]
    for array in (pa.array(words), pa.array(words).slice(3), pa.array(["As", "Asx", "Kd"]),
                  pa.array(["Ah", None])):
        assert frames._card_codes(array).tolist() \
            == frames._encoded(array, frames._CARD_CODE).tolist()
