"""The error of the sampled draw PIT against the exact one (audit/integrity/draws.py).

Draws whose stub allows more than 256 possibilities are ranked among 256 random draws
instead of all of them. That keeps the PIT exactly uniform under fair dealing (the
received draw is exchangeable with the sampled ones), so the tests stay exact; the
price is noise around the exact value. This measures it on random draws of every kind
(2 to 4 cards from stubs of 17 to 47): for each, the exact PIT (all draws enumerated,
the same tie-breaking V) and the sampled one, then the mean and spread of the
difference and how often the two disagree on "in the top 5%".

Run: ``.venv/bin/python benchmarks/integrity_draw_error.py [--draws 2000]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from audit.integrity.draws import SAMPLES, draw_pit


def main() -> None:
    """Print the error figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    exact_u: list[float] = []
    sampled_u: list[float] = []
    started = time.perf_counter()
    while len(exact_u) < args.draws:
        k = int(rng.integers(2, 5))
        stub_size = int(rng.integers(17, 48))
        deck = rng.permutation(52).astype(np.int64)
        kept = np.zeros(5, dtype=np.int64)
        kept[:5 - k] = deck[:5 - k]
        stub = deck[52 - stub_size:]
        drawn = np.zeros(5, dtype=np.int64)
        drawn[:k] = stub[:k]
        key = np.uint64(len(exact_u) + 1)
        sampled, was_exact = draw_pit(kept, 5 - k, drawn, stub, stub_size, key, 1, SAMPLES)
        if was_exact:
            continue  # small stubs are enumerated anyway: no error to measure
        exact, _ = draw_pit(kept, 5 - k, drawn, stub, stub_size, key, 1, 10**7)
        exact_u.append(exact)
        sampled_u.append(sampled)
    e, s = np.array(exact_u), np.array(sampled_u)
    diff = s - e
    tail_disagree = np.mean((e > 0.95) != (s > 0.95))
    print(f"{args.draws} sampled draws ({SAMPLES} samples each) against exact enumeration, "
          f"{time.perf_counter() - started:.0f} s")
    print(f"  mean error {diff.mean():+.4f}, sd {diff.std():.4f} "
          f"(theory for a binomial rank: about {np.sqrt(np.mean(e * (1 - e)) / SAMPLES):.4f}), "
          f"largest {np.abs(diff).max():.3f}")
    print(f"  correlation {np.corrcoef(e, s)[0, 1]:.4f}; top-5% classification disagrees on "
          f"{100 * tail_disagree:.2f}% of draws")
    print(f"  mean PIT exact {e.mean():.4f}, sampled {s.mean():.4f} (both 0.5 under fair draws)")


if __name__ == "__main__":
    main()
