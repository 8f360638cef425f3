"""Per-key sums kept across batches are exact: the float columns' totals are the exact sums
rounded once (``math.fsum``), to the bit, however the rows are cut and ordered."""

from __future__ import annotations

import math

import numpy as np
import pytest

from audit.integrity.checks._sums import FIXED_LIMIT, Sums, fixed, to_float

#: Values at least this large are kept exactly in fixed point (53 bits down to 2**-64).
EXACT_FROM = 2.0 ** -11


def _rows(seed: int, n: int = 20_000) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    keys = rng.integers(0, 40, n)
    u = rng.uniform(EXACT_FROM, 1.0, n)
    signed = rng.uniform(EXACT_FROM, 1.0, n) * rng.choice([-1.0, 1.0], n)
    return keys, u, signed


def _summed(keys: np.ndarray, u: np.ndarray, signed: np.ndarray, cuts: list[int]
            ) -> tuple[np.ndarray, np.ndarray]:
    sums = Sums(4, fractional=(1, 2))
    for part in np.split(np.arange(len(keys)), cuts):
        sums.add(keys[part], None, u[part], fixed(signed[part]), u[part] > 0.9)
    return sums.totals()


@pytest.mark.parametrize("seed", range(3))
def test_totals_are_the_exact_sums_wherever_cut_and_however_ordered(
        seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Sums, "MERGE_FLOOR", 50)  # merged many times over
    keys, u, signed = _rows(seed)
    rng = np.random.default_rng(seed + 100)
    whole_keys, whole = _summed(keys, u, signed, [])
    shuffled = rng.permutation(len(keys))
    cuts = sorted(rng.choice(np.arange(1, len(keys)), 30, replace=False).tolist())
    for order, at in ((np.arange(len(keys)), cuts), (shuffled, []), (shuffled, cuts)):
        got_keys, got = _summed(keys[order], u[order], signed[order], at)
        assert np.array_equal(got_keys, whole_keys)
        assert np.array_equal(got.view(np.int64), whole.view(np.int64))
    for i, key in enumerate(whole_keys.tolist()):
        mine = keys == key
        assert whole[i, 0] == mine.sum() and whole[i, 3] == (u[mine] > 0.9).sum()
        assert whole[i, 1] == math.fsum(u[mine].tolist())
        assert whole[i, 2] == math.fsum(signed[mine].tolist())


def test_small_values_lose_less_than_their_fixed_point_step() -> None:
    rng = np.random.default_rng(5)
    tiny = rng.uniform(0, EXACT_FROM, 5000) ** 3  # far below 2**-11: truncated
    point = fixed(tiny)
    total = to_float(np.array([point.high.sum()]), np.array([point.low.sum()]))[0]
    exact = math.fsum(tiny.tolist())
    assert abs(total - exact) <= len(tiny) * 2.0 ** -64 + math.ulp(exact)


def test_integer_columns_take_integers_only() -> None:
    sums = Sums(2)
    sums.add(np.array([3, 3, 4]), None, np.array([2.0, 5.0, 1.0]))
    keys, totals = sums.totals()
    assert keys.tolist() == [3, 4] and totals.tolist() == [[2.0, 7.0], [1.0, 1.0]]
    with pytest.raises(ValueError, match="declare it fractional"):
        sums.add(np.array([1, 2]), None, np.array([0.5, 1.0]))


@pytest.mark.parametrize("bad", [np.nan, np.inf, FIXED_LIMIT * 2, -FIXED_LIMIT * 2])
def test_fixed_point_refuses_what_it_cannot_hold(bad: float) -> None:
    with pytest.raises(ValueError, match="fixed point"):
        fixed(np.array([0.5, bad]))
