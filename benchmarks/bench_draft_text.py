"""Benchmark a hand's text: ``Draft.text()`` against ``write_hand(draft.to_record())``.

Run: ``.venv/bin/python benchmarks/bench_draft_text.py [--hands N] [--profile NAME]``.
Plays ``N`` deals at one table, then writes every draft both ways (three times,
interleaved, same process), checks the texts are equal and prints CPU seconds.
"""

from __future__ import annotations

import argparse
import os
import time

from audit.profiles import load_profile
from ingest.writer import write_hand
from openers.generator.config import GenerateConfig
from openers.generator.plants import registry
from openers.generator.table import TableSim


def main() -> None:
    """Parse the options and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=4000)
    parser.add_argument("--profile", default="robert")
    args = parser.parse_args()
    cfg = GenerateConfig(hands=args.hands, tables=1, seed=2026, profile=args.profile,
                         violations=0.05)
    sim = TableSim(cfg, load_profile(args.profile), 0, registry())
    start = time.process_time()
    drafts = [deal.draft for deal in sim.deals(args.hands)]
    play = time.process_time() - start
    via_records = straight = 0.0
    for _ in range(3):
        start = time.process_time()
        old = [write_hand(d.to_record()) for d in drafts]
        via_records += time.process_time() - start
        start = time.process_time()
        new = [d.text() for d in drafts]
        straight += time.process_time() - start
        assert old == new
    print(f"load average {os.getloadavg()[0]:.1f}; {args.hands:,} hands ({args.profile}): "
          f"play {play:.2f} CPU s; text via records {via_records / 3:.3f} CPU s, "
          f"straight from the draft {straight / 3:.3f} CPU s")


if __name__ == "__main__":
    main()
