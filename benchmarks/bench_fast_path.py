"""Throughput of each compiled stage of the fast path, and how many hands it certifies.

Run: ``.venv/bin/python benchmarks/bench_fast_path.py [--hands 50000] [--repeat 5]``
(``--compile``: also the cold numba compile time of each stage, in a fresh process
with an empty cache; ``--no-cache``: generate again rather than reuse the buffer
saved in the temp folder for the same arguments).

Generates a room with ``openers.generator`` (a clean one by default; ``--violations``
and ``--unrecorded`` add planted faults and ``??`` cards), concatenates its log files
into one buffer, and times on one thread (best of ``--repeat``, after a first run
that loads or compiles the numba code), in wall and CPU time (the machine may be
shared): the byte scanner (:func:`ingest.scan.scanner.scan`), the betting, cards and
deal-sequence certifiers. Prints hands/s, MB/s and the share of hands each stage
reads or certifies (the rest goes to the reference engine).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from audit.fast.certify_betting import certify_betting
from audit.fast.certify_cards import certify_cards
from audit.fast.certify_sequence import certify_sequence, pair_deals
from audit.fast.layout import H_STATUS, HandArrays, profile_knobs
from audit.profiles import Profile, load_profile
from ingest.scan.scanner import scan
from openers.generator import GenerateConfig, generate
from openers.generator.generate import LOGS_DIR


def make_buffer(hands: int, seed: int, profile: str, violations: float = 0.0,
                unrecorded: float = 0.0) -> bytes:
    """The concatenated log files of a generated room, one blank line between files."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        generate(GenerateConfig(hands=hands, tables=8, seed=seed, profile=profile,
                                violations=violations, unrecorded_share=unrecorded), out)
        return b"\n".join(p.read_bytes() for p in sorted((out / LOGS_DIR).iterdir()))


def cached_buffer(hands: int, seed: int, profile: str, violations: float,
                  unrecorded: float, reuse: bool) -> bytes:
    """:func:`make_buffer`, saved in the temp folder: generating takes far longer than
    the stages measured."""
    name = f"openers-bench-{hands}-{seed}-{profile}-{violations}-{unrecorded}.log"
    path = Path(tempfile.gettempdir()) / name
    if reuse and path.exists():
        return path.read_bytes()
    data = make_buffer(hands, seed, profile, violations, unrecorded)
    path.write_bytes(data)
    return data


#: Run in a fresh interpreter with an empty NUMBA_CACHE_DIR: compiles each stage on
#: an empty input (as ``audit.fast.worker.warm_up``) and prints its wall and CPU time.
_COLD = """
import time
import numpy as np
from audit.fast.certify_betting import certify_betting
from audit.fast.certify_cards import certify_cards
from audit.fast.certify_sequence import certify_sequence
from audit.fast.layout import profile_knobs
from ingest.scan.scanner import scan
from audit.profiles import Profile

def timed(name, run):
    wall, cpu = time.perf_counter(), time.process_time()
    value = run()
    print(f"cold compile {name}: {time.perf_counter() - wall:.1f} s wall, "
          f"{time.process_time() - cpu:.1f} s CPU")
    return value

a = timed("scan", lambda: scan(np.zeros(0, dtype=np.uint8))).arrays
knobs, progression = profile_knobs(Profile("warm-up"))
empty = np.zeros(0, dtype=np.int64)
timed("certify_betting", lambda: certify_betting(a.hands, a.seats, a.events, a.cards, knobs))
timed("certify_cards", lambda: certify_cards(a.hands, a.seats, a.events, a.cards, knobs,
                                             progression))
timed("certify_sequence", lambda: certify_sequence(a.hands, a.seats, a.events, a.cards, knobs,
                                                   progression, empty, empty))
"""


def cold_compile() -> None:
    """Print each stage's cold compile time (a fresh process, an empty numba cache)."""
    root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": str(root)}
        subprocess.run([sys.executable, "-c", _COLD], env=env, cwd=root, check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--profile", default="robert")
    parser.add_argument("--violations", type=float, default=0.0)
    parser.add_argument("--unrecorded", type=float, default=0.0)
    parser.add_argument("--compile", action="store_true", help="also time cold compiles")
    parser.add_argument("--no-cache", action="store_true", help="generate the logs again")
    args = parser.parse_args()
    if args.compile:
        cold_compile()
    data = cached_buffer(args.hands, args.seed, args.profile, args.violations,
                         args.unrecorded, not args.no_cache)
    buf = np.frombuffer(data, dtype=np.uint8)
    start = time.perf_counter()
    result = scan(buf)
    print(f"first run (load or compile): {time.perf_counter() - start:.2f} s")
    best = best_cpu = float("inf")
    for _ in range(args.repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = scan(buf)
        best = min(best, time.perf_counter() - start)
        best_cpu = min(best_cpu, time.process_time() - start_cpu)
    hands = len(result)
    read = int((result.arrays.hands[:, H_STATUS] == 0).sum())
    print(f"{hands} chunks, {len(data) / 1e6:.1f} MB, {len(data) / hands:.0f} B/hand")
    print(f"scan: {best * 1e3:.1f} ms = {hands / best:,.0f} hands/s, "
          f"{len(data) / best / 1e6:,.0f} MB/s (wall, one thread)")
    print(f"scan: {best_cpu * 1e3:.1f} ms CPU = {hands / best_cpu:,.0f} hands per CPU-second, "
          f"{len(data) / best_cpu / 1e6:,.0f} MB per CPU-second")
    print(f"read by the scanner: {read}/{hands} = {read / hands:.1%}")
    stages(result.arrays, load_profile(args.profile), args.repeat)


def _best(repeat: int, run: Callable[[], Any]) -> tuple[float, Any]:
    """The best CPU time of ``repeat`` runs (after a first run), and the last value."""
    value = run()
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        value = run()
        best = min(best, time.process_time() - start)
    return best, value


def stages(a: HandArrays, profile: Profile, repeat: int) -> None:
    """Time the certifiers on the scanned arrays and print what share each certifies."""
    knobs, progression = profile_knobs(profile)
    hands = len(a)
    t_bet, bet = _best(repeat, lambda: certify_betting(a.hands, a.seats, a.events, a.cards,
                                                       knobs))
    t_cards, cards = _best(repeat, lambda: certify_cards(a.hands, a.seats, a.events, a.cards,
                                                         knobs, progression))
    order, previous, _ = pair_deals(a.hands)
    t_seq, seq = _best(repeat, lambda: certify_sequence(
        a.hands, a.seats, a.events, a.cards, knobs, progression, order, previous))
    for name, cpu, ok in (("certify_betting", t_bet, bet), ("certify_cards", t_cards, cards),
                          ("certify_sequence", t_seq, seq)):
        print(f"{name}: {hands / cpu:,.0f} hands per CPU-second, certifies "
              f"{int(ok.sum())}/{hands} = {ok.sum() / hands:.1%}")
    both = int((bet & cards).sum())
    print(f"hand rules certified (betting and cards): {both}/{hands} = {both / hands:.1%}")


if __name__ == "__main__":
    main()
