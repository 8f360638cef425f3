"""The shortcuts of the integrity pass give the same arrays, to the bit, as the long way."""

from __future__ import annotations

import numpy as np
import pytest

from audit.integrity import strata
from audit.integrity.checks._common import unique_inverse
from audit.integrity.features import pair_key


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
