"""The pair tests' counts, kept batch by batch, against counting every decision at once."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from audit.integrity.checks._pair_counts import DecisionCounts, Tables


def _batches(seed: int) -> list[tuple[npt.NDArray[Any], ...]]:
    """Random batches of decisions (actor, stratum, outcome) with exposures to other players."""
    rng = np.random.default_rng(seed)
    out: list[tuple[npt.NDArray[Any], ...]] = []
    for _ in range(4):
        n = int(rng.integers(1, 300))
        actor = rng.integers(0, 8, n)
        stratum = rng.integers(0, 5, n)
        outcome = rng.random(n) < 0.4
        index = rng.integers(0, n, 3 * n)
        partner = rng.integers(0, 8, 3 * n)
        keep = partner != actor[index]
        out.append((actor, stratum, outcome, index[keep], partner[keep]))
    return out


def _rows(t: Tables) -> dict[tuple[int, int, int], tuple[int, int, int, int]]:
    return {(a, p, s): (n, y, e, h) for a, p, s, n, y, e, h in zip(
        *(getattr(t, f).tolist() for f in ("actor", "partner", "stratum", "total",
                                           "total_hits", "exposed", "hits")), strict=True)}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_tables_and_split_match_counting_each_decision(seed: int) -> None:
    batches = _batches(seed)
    counts = DecisionCounts()
    for b in batches:
        counts.add(*b)
    links = {0: 1, 3: 5, 6: 7}
    totals: Counter[tuple[int, ...]] = Counter()
    exposed: Counter[tuple[int, ...]] = Counter()
    split_totals: Counter[tuple[int, ...]] = Counter()
    split_exposed: Counter[tuple[int, ...]] = Counter()
    for actor, stratum, outcome, index, partner in batches:
        seen = {(int(i), int(p)) for i, p in zip(index, partner, strict=True)}
        for i, p in zip(index.tolist(), partner.tolist(), strict=True):
            a, s, y = int(actor[i]), int(stratum[i]), bool(outcome[i])
            exposed[(a, p, s, 0)] += 1
            exposed[(a, p, s, 1)] += y
        for i, (a, s, y) in enumerate(zip(actor.tolist(), stratum.tolist(), outcome.tolist(),
                                          strict=True)):
            totals[(a, s, 0)] += 1
            totals[(a, s, 1)] += y
            if a not in links:
                continue
            split = 2 * s + ((i, links[a]) in seen)
            split_totals[(a, split, 0)] += 1
            split_totals[(a, split, 1)] += y
            for p in {p for j, p in seen if j == i and p != links[a]}:
                split_exposed[(a, p, split, 0)] += 1
                split_exposed[(a, p, split, 1)] += y
    want = {(a, p, s): (totals[(a, s, 0)], totals[(a, s, 1)], n, exposed[(a, p, s, 1)])
            for (a, p, s, k), n in exposed.items() if k == 0}
    assert _rows(counts.tables()) == want
    got = counts.split_tables(links)
    want_split = {(a, p, s): (split_totals[(a, s, 0)], split_totals[(a, s, 1)], n,
                              split_exposed[(a, p, s, 1)])
                  for (a, p, s, k), n in split_exposed.items() if k == 0}
    assert _rows(got) == want_split
    keys = list(zip(got.actor.tolist(), got.partner.tolist(), got.stratum.tolist(), strict=True))
    assert keys == sorted(keys)  # the order the pair tables are built in
    counts.close()
    assert counts.split_tables(links).actor.size == 0  # the log is gone once closed
    assert counts.tables().actor.size == 0  # and the counts


def test_nothing_counted() -> None:
    counts = DecisionCounts()
    assert counts.tables().actor.size == 0
    assert counts.split_tables({1: 2}).actor.size == 0
