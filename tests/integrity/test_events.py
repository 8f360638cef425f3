"""Evidence kept per cell: the first ``cap`` events of each key in reading order, and the count."""

from __future__ import annotations

import numpy as np
import pytest

from audit.integrity.checks._common import Events


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_first_events_of_each_key_in_reading_order(seed: int) -> None:
    rng = np.random.default_rng(seed)
    events = Events(cap=5)
    seen: dict[int, list[tuple[int, float, int]]] = {}
    for batch in range(8):
        n = int(rng.integers(0, 40))
        keys = rng.integers(0, 12, n)
        rows = np.arange(n) + 100 * batch
        values = rng.random(n)
        codes = rng.integers(0, 9, n)
        events.add(keys, rows, values, codes)
        for k, r, v, c in zip(keys.tolist(), rows.tolist(), values.tolist(), codes.tolist(),
                              strict=True):
            seen.setdefault(k, []).append((r, v, c))
    for key in range(14):
        rows, values, codes = events.of(key)
        assert list(zip(rows.tolist(), values.tolist(), codes.tolist(), strict=True)) \
            == seen.get(key, [])[:5]
        assert events.total(key) == len(seen.get(key, []))
        assert events.evidence(key).count == len(seen.get(key, []))


def test_no_events() -> None:
    events = Events()
    rows, _, _ = events.of(7)
    assert rows.size == 0
    assert events.total(7) == 0
    events.add(np.array([3, 3]), np.array([10, 11]))  # no values or codes: zeros
    assert events.of(3)[0].tolist() == [10, 11]
    assert events.of(3)[1].tolist() == [0.0, 0.0]
