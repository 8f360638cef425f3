"""Evaluations per second: ``audit.evaluator.evaluate`` against treys, in the same run.

Run: ``.venv/bin/python benchmarks/bench_evaluator.py [--hands N] [--repeat R] [--seed S]``

Each figure is the best of R passes over the same N random hands, in a plain Python loop
that calls the public function once per hand. Ours takes the log's card codes (``Ah``);
treys takes its own int cards, converted before timing (its intended use). treys has no
joker, so it is timed on the natural hands only; the ratio compares both on those.
Treys is timed the documented way, ``evaluate(board, hand)`` with three and two cards,
and as ``evaluate(five, [])``; the ratio uses the faster of the two.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence

import schemas.records  # noqa: F401  (imported first so the timing below is the evaluator's own)

_started = time.perf_counter()
from audit.evaluator import evaluate  # noqa: E402

IMPORT_SECONDS = time.perf_counter() - _started

from treys import Card, Evaluator  # noqa: E402

from audit.cards import DECK  # noqa: E402
from schemas.records import JOKER  # noqa: E402


def rates(runs: dict[str, Callable[[], None]], count: int, repeat: int) -> dict[str, float]:
    """Best evaluations per second of each run over ``repeat`` passes.

    The runs take turns within each pass, so a burst of load on a shared machine slows
    all of them alike instead of one.
    """
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(repeat):
        for name, run in runs.items():
            started = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - started)
    return {name: count / seconds for name, seconds in best.items()}


def random_hands(rng: random.Random, count: int, *, joker: bool) -> list[tuple[str, ...]]:
    naturals = [card for card in DECK if card != JOKER]
    hands = []
    for _ in range(count):
        if joker:
            hand = [*rng.sample(naturals, 4), JOKER]
            rng.shuffle(hand)
        else:
            hand = rng.sample(naturals, 5)
        hands.append(tuple(hand))
    return hands


def ours(hands: Sequence[Sequence[str]]) -> Callable[[], None]:
    def run() -> None:
        for hand in hands:
            evaluate(hand)

    return run


def treys_split(hands: Sequence[Sequence[str]]) -> Callable[[], None]:
    evaluator = Evaluator()
    deals = [([Card.new(c) for c in hand[:3]], [Card.new(c) for c in hand[3:]]) for hand in hands]

    def run() -> None:
        for board, hole in deals:
            evaluator.evaluate(board, hole)

    return run


def treys_five(hands: Sequence[Sequence[str]]) -> Callable[[], None]:
    evaluator = Evaluator()
    fives = [[Card.new(c) for c in hand] for hand in hands]
    empty: list[int] = []

    def run() -> None:
        for five in fives:
            evaluator.evaluate(five, empty)

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200_000, help="random hands per pass")
    parser.add_argument("--repeat", type=int, default=7, help="passes; the best one counts")
    parser.add_argument("--seed", type=int, default=2026, help="random seed of the hands")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    natural = random_hands(rng, args.hands, joker=False)
    with_joker = random_hands(rng, args.hands, joker=True)

    runs = {
        "openers evaluate, natural hands": ours(natural),
        "openers evaluate, joker hands": ours(with_joker),
        "treys evaluate(board3, hand2)": treys_split(natural),
        "treys evaluate(five, [])": treys_five(natural),
    }
    figures = rates(runs, args.hands, args.repeat)
    print(f"{args.hands:,} hands per pass, best of {args.repeat} passes, one core")
    print(f"import audit.evaluator (tables built at import): {IMPORT_SECONDS * 1000:.0f} ms")
    for name, per_second in figures.items():
        print(f"{name:<34} {per_second:>12,.0f} evaluations/s")
    best_treys = max(rate for name, rate in figures.items() if name.startswith("treys"))
    for kind in ("natural", "joker"):
        ratio = figures[f"openers evaluate, {kind} hands"] / best_treys
        print(f"ratio openers ({kind} hands) / best treys: {ratio:.2f}")


if __name__ == "__main__":
    main()
