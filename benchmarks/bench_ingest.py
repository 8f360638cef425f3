"""Ingest throughput: hands/s read+parsed+validated, hands/s stored, peak memory.

Run: ``.venv/bin/python benchmarks/bench_ingest.py [--hands 100000] [--profile]``

It writes a deterministic synthetic log (``make_log``: 2-6 seats, full betting,
draw and showdown, about 35 lines a hand), then measures on one process:

1. parse: ``read_path`` over the file (block reads, hand splitting, UTF-8 decoding,
   SHA-256, grammar and field checks, building the frozen records);
2. store: ``ingest_paths`` into a fresh DuckDB file (the above plus dedupe against the
   store, Arrow frames, one transaction per batch);
3. peak Python memory of the parse pass for N/4 and N hands (tracemalloc, in a separate
   pass because tracing slows the interpreter): flat means streaming.

Rates are given per wall-clock second and per CPU-second of this process (the machine
may be shared). Design: pydantic validation per object was the first limit, so the
reference parser checks every constraint itself and builds models without re-validating
(``ingest/construct.py``, proven equal to ``model_validate``); the store path goes further
and never builds models: ``ingest/fastpath.py`` checks and converts whole batches as
polars columns, and hands outside its canonical subset go to the reference parser.
What limits it now (profiled with cProfile and per-stage CPU timers, 2026-11-30): the
fast path's polars string kernels, about 30 us a hand (some 15 kernels of 30-120 ns a
line over ~45 lines; a combined ``str.extract_groups`` costs ~0.9 us a line and deduping
repeated lines by hash ~0.25 us a line, so neither pays); Python's per-hand reading work,
about 10 us (block split, decode, SHA-256 and one small object per hand in the reader
and the batcher); and, for storing, DuckDB's insert and commit. Transactions of
``BATCH_SIZE`` (20,000) hands, parsed ``READ_SIZE`` (5,000) at a time, let DuckDB write
the action rows straight to the file instead of through its write-ahead log: the commit
went from ~50 to ~10 us a hand.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import random
import resource
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

# One core by default (the target is per core); --threads changes it. Set before polars loads.
if __name__ == "__main__":
    _args = argparse.ArgumentParser(add_help=False)
    _args.add_argument("--threads", default="1")
    os.environ.setdefault("POLARS_MAX_THREADS", _args.parse_known_args()[0].threads)

from ingest.batches import read_batches
from ingest.load import READ_SIZE, ingest_paths
from ingest.reader import HandReader, ParsedHand, read_path
from schemas.records import CARD_CODES

DECK = [c for c in CARD_CODES if c != "??"]
T = TypeVar("T")


def make_hand(rng: random.Random, number: int) -> str:
    """One syntactically valid hand with a plausible flow of play."""
    seats = sorted(rng.sample(range(1, 9), rng.randint(2, 6)))
    deck = DECK[:]
    rng.shuffle(deck)
    button = rng.choice(seats)
    lines = [f"Hand: BENCH-{number:08d}", f"Time: 2026-11-28T{number % 24:02d}:04:12-08:00",
             "Room: Bench Club", f"Table: T{number % 40:02d}", "Dealer: D-1",
             "Game: Jacks or Better", "Limit: 10/20", "Ante: 1", "Joker: yes",
             f"Button: {button}"]
    lines += [f"Seat {s}: P-{rng.randint(10000, 99999)} ({rng.randint(50, 2000)})" for s in seats]
    lines.append("*** ANTES ***")
    lines += [f"Seat {s}: antes 1" for s in seats]
    lines.append("*** DEAL ***")
    hands = {s: [deck.pop() for _ in range(5)] for s in seats}
    lines += [f"Seat {s}: [{' '.join(hands[s])}]" for s in seats]
    lines.append("*** BEFORE DRAW ***")
    opener, *others = seats
    lines.append(f"Seat {opener}: opens 10")
    live = [opener]
    for s in others:
        if rng.random() < 0.6:
            lines.append(f"Seat {s}: calls 10")
            live.append(s)
        else:
            lines.append(f"Seat {s}: folds")
    lines.append("*** DRAW ***")
    lines.append(f"Dealer: burns [{deck.pop()}]")
    for s in live:
        k = rng.randint(0, 3)
        if k:
            drawn = [deck.pop() for _ in range(k)]
            lines.append(f"Seat {s}: discards [{' '.join(hands[s][:k])}] draws [{' '.join(drawn)}]")
            hands[s] = hands[s][k:] + drawn
        else:
            lines.append(f"Seat {s}: stands pat")
    lines.append("*** AFTER DRAW ***")
    lines.append(f"Seat {live[0]}: bets 20")
    lines += [f"Seat {s}: calls 20" for s in live[1:]]
    lines.append("*** SHOWDOWN ***")
    lines += [f"Seat {s}: shows [{' '.join(hands[s])}] (high card)" for s in live]
    pot = len(seats) * 100 + len(live) * 3000
    lines += ["*** RESULT ***", f"Pot: {pot / 100:.2f}", "Rake: 1",
              f"Seat {live[-1]}: collects {(pot - 100) / 100:.2f}"]
    return "\n".join(lines)


def make_log(path: Path, hands: int, seed: int = 7) -> None:
    """Write ``hands`` hands to ``path``, blank-line separated."""
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as out:
        for n in range(hands):
            out.write(make_hand(rng, n))
            out.write("\n\n")


def reference_pass(path: Path) -> int:
    """Read every hand into a HandRecord with the reference parser."""
    count = 0
    for item in read_path(path):
        if not isinstance(item, ParsedHand):
            raise SystemExit(f"unexpected quarantine: {item.error}")
        count += 1
    return count


def parse_pass(path: Path) -> int:
    """Read every hand the way ingest does: columnar fast path, reference parser for the rest."""
    count = 0
    for batch in read_batches(HandReader(path), READ_SIZE):
        if batch.problems:
            raise SystemExit(f"unexpected quarantine: {batch.problems[0].error}")
        count += len(batch.hands)
    return count


def timed(func: Callable[..., T], *args: object) -> tuple[T, float, float]:
    """``func(*args)``, its wall-clock seconds and this process's CPU seconds."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = func(*args)
    return result, time.perf_counter() - wall, time.process_time() - cpu


def rate(count: int, wall: float, cpu: float) -> str:
    """Hands per second by the wall clock and per CPU-second (the machine may be shared)."""
    return (f"{count / wall:,.0f} hands/s wall ({wall:.2f} s), "
            f"{count / cpu:,.0f} hands per CPU-second ({cpu:.2f} s CPU)")


def peak_memory(path: Path) -> int:
    tracemalloc.start()
    parse_pass(path)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=100_000)
    parser.add_argument("--profile", action="store_true", help="print the parse pass's profile")
    parser.add_argument("--threads", type=int, default=1,
                        help="threads for polars (default 1: one core; DuckDB uses its own)")
    args = parser.parse_args()
    import polars

    print(f"polars threads: {polars.thread_pool_size()}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        log, quarter = work / "day.log", work / "quarter.log"
        make_log(log, args.hands)
        make_log(quarter, args.hands // 4)
        size = log.stat().st_size
        lines = log.read_text().count("\n")
        print(f"log: {args.hands} hands, {lines} lines, {size / 1e6:.1f} MB")

        parsed, wall, cpu = timed(parse_pass, log)
        print(f"parse+validate (columnar fast path): {rate(parsed, wall, cpu)}")
        parsed, wall, cpu = timed(reference_pass, quarter)
        print(f"parse+validate (reference parser, HandRecord objects, {parsed} hands): "
              f"{rate(parsed, wall, cpu)}")
        summary, wall, cpu = timed(ingest_paths, [log], work / "bench.duckdb")
        assert summary.stored == args.hands, summary
        print(f"store (parse+dedupe+frames+DuckDB): {rate(summary.stored, wall, cpu)}")
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak RSS of this process: {rss:.0f} MB")
        small, big = peak_memory(quarter), peak_memory(log)
        print(f"parse peak traced memory: {small / 1e6:.1f} MB for {args.hands // 4} hands, "
              f"{big / 1e6:.1f} MB for {args.hands} hands")
        if args.profile:
            profile = cProfile.Profile()
            profile.runcall(parse_pass, quarter)
            pstats.Stats(profile).sort_stats("tottime").print_stats(15)


if __name__ == "__main__":
    main()
