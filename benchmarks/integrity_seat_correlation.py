"""The correlation between two seats' dealt-hand PITs in one deal (they share no card).

The per-dealer and per-table tests on dealt hands treat the seats of one deal as
independent. They are not quite: two hands from one deck cannot hold the same card.
This deals random hands round the table from fair shuffles and measures the
correlation of the seats' randomized PITs, and from the variance of their sum the
factor by which independence overstates (or understates) the variance of a deal's
total: below 1 the tests are conservative.

Run: ``.venv/bin/python benchmarks/integrity_seat_correlation.py [--deals 1000000]``
"""

from __future__ import annotations

import argparse

import numpy as np

from audit.facts.evaluate import strengths_of_hands
from audit.integrity.laws import hand_law


def main() -> None:
    """Print the correlation per deck and number of seats."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    n = args.deals
    print(f"{n:,} fair deals per row; standard error of a correlation about {1 / np.sqrt(n):.4f}")
    for joker in (False, True):
        law = hand_law(joker)
        for seats in (2, 6, 8):
            decks = np.argsort(rng.random((n, law.deck_size)), axis=1).astype(np.int8)
            u = np.array([law.randomized_pit(strengths_of_hands(decks[:, s::seats][:, :5].copy()),
                                             rng.random(n)) for s in range(seats)])
            r = np.corrcoef(u[0], u[1])[0, 1]
            factor = u.sum(axis=0).var() / (seats / 12)
            print(f"  {law.deck_size} cards, {seats} seats: correlation of two seats {r:+.4f}; "
                  f"variance of a deal's sum / independence {factor:.4f}")


if __name__ == "__main__":
    main()
