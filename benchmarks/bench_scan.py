"""Throughput of the compiled byte scanner (:func:`audit.fast.scan.scan`).

Run: ``.venv/bin/python benchmarks/bench_scan.py [--hands 50000] [--repeat 5]``

Generates a room with ``openers.generator`` (robert profile, the default mix of
violations and unrecorded cards), concatenates its log files into one buffer, and
times ``scan`` on it (best of ``--repeat``, after a warm-up run that loads or
compiles the numba code). Prints hands/s, MB/s and the share of chunks read.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from audit.fast.layout import H_STATUS
from audit.fast.scan import scan
from openers.generator import GenerateConfig, generate
from openers.generator.generate import LOGS_DIR


def make_buffer(hands: int, seed: int, profile: str) -> bytes:
    """The concatenated log files of a generated room, one blank line between files."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        generate(GenerateConfig(hands=hands, tables=8, seed=seed, profile=profile), out)
        return b"\n".join(p.read_bytes() for p in sorted((out / LOGS_DIR).iterdir()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--profile", default="robert")
    args = parser.parse_args()
    data = make_buffer(args.hands, args.seed, args.profile)
    buf = np.frombuffer(data, dtype=np.uint8)
    start = time.perf_counter()
    result = scan(buf)
    print(f"first run (load or compile): {time.perf_counter() - start:.2f} s")
    best = float("inf")
    for _ in range(args.repeat):
        start = time.perf_counter()
        result = scan(buf)
        best = min(best, time.perf_counter() - start)
    hands = len(result)
    read = int((result.arrays.hands[:, H_STATUS] == 0).sum())
    print(f"{hands} chunks, {len(data) / 1e6:.1f} MB, {len(data) / hands:.0f} B/hand")
    print(f"scan: {best * 1e3:.1f} ms = {hands / best:,.0f} hands/s, "
          f"{len(data) / best / 1e6:,.0f} MB/s (one core)")
    print(f"read by the scanner: {read}/{hands} = {read / hands:.1%}")


if __name__ == "__main__":
    main()
