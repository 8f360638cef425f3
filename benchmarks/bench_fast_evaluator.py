"""Evaluations per second: compiled ``strength5`` against ``audit.evaluator.evaluate``.

Run: ``.venv/bin/python benchmarks/bench_fast_evaluator.py [--hands N] [--repeat R] [--seed S]``

The compiled figure is the best of R passes of a numba loop calling
:func:`audit.facts.evaluate.strength5` on N random hands (one joker hand in ten), the
way the card certifiers call it; the reference figure is a plain Python loop over the
same hands as card strings. Both checksums must agree, so the two compute the same.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
import numpy.typing as npt
from numba import njit

from audit.evaluator import evaluate
from audit.facts.evaluate import JOKER, strength5
from schemas.records import CARD_CODES


@njit(cache=True, nogil=True)
def checksum(hands: npt.NDArray[np.int8]) -> int:
    total = 0
    for h in range(hands.shape[0]):
        total += strength5(int(hands[h, 0]), int(hands[h, 1]), int(hands[h, 2]),
                           int(hands[h, 3]), int(hands[h, 4]))
    return total


def random_hands(count: int, seed: int) -> npt.NDArray[np.int8]:
    rng = np.random.default_rng(seed)
    hands = np.argsort(rng.random((count, 52)), axis=1)[:, :5].astype(np.int8)
    rows = np.flatnonzero(rng.random(count) < 0.1)
    hands[rows, rng.integers(0, 5, rows.size)] = JOKER
    return hands


def best_seconds(run: Callable[[], int], repeat: int) -> tuple[float, int]:
    best, value = float("inf"), 0
    for _ in range(repeat):
        started = time.perf_counter()
        value = run()
        best = min(best, time.perf_counter() - started)
    return best, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    hands = random_hands(args.hands, args.seed)
    started = time.perf_counter()
    checksum(hands[:1])
    print(f"compile or cache load: {time.perf_counter() - started:.2f} s")
    words = [tuple(CARD_CODES[c] for c in row) for row in hands.tolist()]
    fast, fast_sum = best_seconds(lambda: checksum(hands), args.repeat)
    slow, slow_sum = best_seconds(lambda: sum(map(evaluate, words)), max(1, args.repeat // 2))
    assert fast_sum == slow_sum, (fast_sum, slow_sum)
    print(f"numba strength5:          {args.hands / fast:>14,.0f} evaluations/s")
    print(f"audit.evaluator.evaluate: {args.hands / slow:>14,.0f} evaluations/s")
    print(f"ratio: {slow / fast:.1f}x")


if __name__ == "__main__":
    main()
