"""The two compiled kernels of a check alone, on prepared inputs: the scanner and the replay.

    OPENERS_CACHE_DIR=... .venv/bin/python benchmarks/bench_kernels.py [--room /tmp/dirty100k]
        [--files 20] [--repeat 7]

``bench_check.py``'s stages time each kernel once, inside the whole check, with its
file reads, fresh memory and other stages' cache traffic around it. Here each piece
runs ``--repeat`` times on inputs made beforehand and the least CPU time is kept, in two
sizes: **one file** (a few hundred hands: inputs and outputs stay in the caches, so
the figure is the kernel's own work) and **a batch** of ``--files`` files (as a check
worker sees them: the outputs stream through memory). The gap between the two is what
memory costs; the gap between ``scan`` into fresh memory and into kept memory is the page
faults of its output arrays.

Scanner pieces: ``split_chunks`` (the chunk table), ``_scan_chunks`` (the hands, on
arrays allocated beforehand), ``scan`` (all of it, into fresh memory, and into memory
kept from call to call as a check worker scans). Replay pieces: the "none" fill of the
fact tables replay_facts fills (hands, seats, pots: the action rows are written whole) in
kept memory, ``_replay_all`` (on tables filled beforehand),
``replay_facts`` (all of it, in kept memory as a check worker calls it).
"""

from __future__ import annotations

import argparse
import inspect
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from audit.facts.arrays import TableMemory, join, take
from audit.facts.layout import profile_knobs
from audit.facts.replay import _cap, _replay_all, _scratch, replay_facts
from audit.facts.replay_state import ROUND_STATE, SEAT_STATE, SLOTS
from audit.facts.tables import ACTION, HAND, POT, SEAT
from audit.profiles import load_profile
from ingest.scan.chunks import split_chunks
from ingest.scan.layout import E_COLUMNS, H_COLUMNS, H_STATUS, P_COLUMNS, S_COLUMNS, HandArrays
from ingest.scan.scanner import _scan_chunks, scan


def _best(work: Callable[[], object], repeat: int, hands: int) -> float:
    """The least CPU time of ``repeat`` runs, in microseconds a hand."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return best / hands * 1e6


def _read_only(data: bytes) -> np.ndarray:
    buf = np.frombuffer(data, dtype=np.uint8).view()
    buf.flags.writeable = False
    return buf


def _scan_inputs(buf: np.ndarray) -> tuple[np.ndarray, ...]:
    """``_scan_chunks``'s arguments for ``buf``, allocated as ``scan`` allocates them."""
    chunks, lines, chunk_bytes = split_chunks(buf, 1, True)
    count = chunks.shape[0]
    seats = np.empty((min(count * 10, lines), S_COLUMNS), dtype=np.int64)
    return (buf, chunks, np.zeros((count, H_COLUMNS), dtype=np.int64), seats,
            np.empty((lines, E_COLUMNS), dtype=np.int64),
            np.empty(chunk_bytes // 3 + 1, dtype=np.int8),
            np.full((count, P_COLUMNS), -1, dtype=np.int64),
            np.empty((seats.shape[0], 2), dtype=np.int64), np.empty((lines, 2), dtype=np.int64))


def _scanner(buffers: list[np.ndarray], repeat: int) -> dict[str, float]:
    hands = sum(len(scan(b)) for b in buffers)
    kept = [_scan_inputs(b) for b in buffers]
    figures = {
        "split_chunks": _best(lambda: [split_chunks(b, 1, True) for b in buffers], repeat,
                              hands),
        "_scan_chunks (kept arrays)": _best(lambda: [_scan_chunks(*k) for k in kept], repeat,
                                            hands),
        "scan (fresh memory)": _best(lambda: [scan(b) for b in buffers], repeat, hands),
    }
    if "allocate" in inspect.signature(scan).parameters:  # not before d3da1ed
        memory = TableMemory()
        allocators = [memory.allocator(f"scan {k}") for k in range(len(buffers))]
        figures["scan (kept memory, as check)"] = _best(
            lambda: [scan(b, allocate=a) for b, a in zip(buffers, allocators, strict=True)],
            repeat, hands)
    return figures


def _replay(buffers: list[np.ndarray], repeat: int) -> dict[str, float]:
    parts = []
    for buf in buffers:
        scanned = scan(buf).arrays
        parts.append(take(scanned, np.flatnonzero(scanned.hands[:, H_STATUS] == 0)))
    arrays: HandArrays = join(parts)
    hands = len(arrays)
    profile = load_profile("robert")
    knobs, progression = profile_knobs(profile)
    memory = TableMemory()
    sizes = (("fact hands", HAND, hands), ("fact actions", ACTION, len(arrays.events)),
             ("fact seats", SEAT, len(arrays.seats)),
             ("fact pots", POT, len(arrays.seats) + hands))

    def tables() -> list[np.ndarray]:
        return [memory.table(name, dtype, rows) for name, dtype, rows in sizes]

    def kernel() -> None:
        sst = np.zeros(SLOTS, dtype=SEAT_STATE)
        round_state = np.zeros(1, dtype=ROUND_STATE)
        _replay_all(arrays.hands, arrays.seats, arrays.events,
                    arrays.cards, knobs, progression, *kept, pool, sst, sst.view(np.int64),
                    round_state, round_state.view(np.int64), *scratch)

    replay_facts(arrays, profile, memory)  # compiled code loaded, memory grown
    fill = _best(lambda: [memory.table(name, dtype, rows) for name, dtype, rows in sizes
                          if dtype is not ACTION], repeat, hands)
    kept = tables()
    pool = np.zeros(5 * len(arrays.cards) + 16, dtype=np.int8)
    pool[:len(arrays.cards)] = arrays.cards
    scratch = _scratch(_cap(arrays.hands, arrays.events))
    return {
        "fact tables' fill (kept memory)": fill,
        "_replay_all (tables filled)": _best(kernel, repeat, hands),
        "replay_facts (all of it)": _best(lambda: replay_facts(arrays, profile, memory),
                                          repeat, hands),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--room", default="/tmp/dirty100k")
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    logs = Path(args.room) / "logs"
    files = sorted((logs if logs.is_dir() else Path(args.room)).iterdir())[:args.files]
    buffers = [_read_only(path.read_bytes()) for path in files]
    for label, chosen, repeat in (("one file", buffers[:1], args.repeat * 10),
                                  (f"a batch of {len(buffers)} files", buffers, args.repeat)):
        hands = sum(len(scan(b)) for b in chosen)
        size = sum(len(b) for b in chosen) / hands
        print(f"{label}: {hands} hands of {size:,.0f} bytes (CPU us a hand, least of {repeat})")
        for name, value in (_scanner(chosen, repeat) | _replay(chosen, repeat)).items():
            print(f"  {name:<36} {value:6.2f}")


if __name__ == "__main__":
    main()
