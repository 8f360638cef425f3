"""``openers check`` on a realistic generated room: hands per second, and each stage's share.

    .venv/bin/python benchmarks/bench_check.py [--hands 100000] [--tables 40]
        [--violations 0.05] [--unrecorded 0.05] [--workers 2] [--room DIR]

A room of ``--hands`` hands (``--tables`` tables, every code planted in ``--violations``
of the deals, ``--unrecorded`` of the clean hands writing ``??`` for cards) is generated
once into ``--room`` (a temporary folder by default; an existing room is reused). Then:

- the whole check in process (``audit.batch.check_paths`` on ``--workers`` forked workers,
  after one call on a single file that loads the compiled code), best of three;
- its stages on one worker, over the same files: the scanner, the reference parser for
  the hands the scanner does not read, the compiled replay, the hand rules (with the
  share of hands a rule had to look at one by one), the deal tables and the J pass.

Figures on a shared machine are noisy: the command line above reproduces them.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from audit.batch import check_paths
from audit.engine import run_rules, run_sequence_rules
from audit.facts.arrays import TableMemory, join, take
from audit.facts.context import Batch
from audit.facts.deals import deals_of, pair
from audit.facts.labels import RecordLabels, StackedLabels, TextLabels
from audit.facts.layout import from_records
from audit.facts.replay import replay_facts
from audit.facts.sequence import Run
from audit.profiles import Profile, load_profile
from audit.registry import hand_rules, sequence_rules
from ingest.reader import QuarantineItem, read_chunk
from ingest.scan.layout import H_STATUS
from ingest.scan.scanner import scan
from openers.generator import GenerateConfig, generate
from openers.generator.generate import LOGS_DIR


def _room(args: argparse.Namespace) -> list[Path]:
    logs = Path(args.room) / LOGS_DIR
    if not logs.is_dir():
        generate(GenerateConfig(hands=args.hands, tables=args.tables, seed=11,
                                violations=args.violations,
                                unrecorded_share=args.unrecorded), Path(args.room))
    return sorted(logs.iterdir())


def _whole(files: list[Path], profile: Profile, workers: int) -> None:
    check_paths(files[:1], profile, workers=1)  # compile or load the compiled code
    best = float("inf")
    hands = 0
    for _ in range(3):
        start = time.perf_counter()
        report = check_paths(files, profile, workers=workers)
        best = min(best, time.perf_counter() - start)
        hands = report.hands
    print(f"openers check, {workers} workers: {hands} hands in {best:.2f} s = "
          f"{hands / best:,.0f} hands/s")


class _Stages:
    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def add(self, name: str, start: float) -> float:
        now = time.process_time()
        self.seconds[name] = self.seconds.get(name, 0.0) + now - start
        return now


def _stages(files: list[Path], profile: Profile) -> None:
    stages = _Stages()
    memory = TableMemory()  # as a check worker keeps it, batch after batch
    hands = 0
    parsed = 0
    for path in files:
        data = path.read_bytes()
        t = time.process_time()
        scanned = scan(np.frombuffer(data, dtype=np.uint8))
        t = stages.add("scanner", t)
        hands_of = scanned.arrays.hands
        read = np.flatnonzero(hands_of[:, H_STATUS] == 0)
        records = []
        for row in np.flatnonzero(hands_of[:, H_STATUS] != 0).tolist():
            got = read_chunk(str(path), scanned.chunk(np.frombuffer(data, np.uint8), row))
            if not isinstance(got, QuarantineItem):
                records.append(got.record)
        parsed += len(records)
        mine = take(scanned.arrays, read)
        arrays = join([mine, from_records(records)])
        t = stages.add("reference parser (hands the scanner leaves)", t)
        facts = replay_facts(arrays, profile, memory)
        t = stages.add("compiled replay", t)
        text = TextLabels(data, scanned.arrays, scanned.spans, read.tolist())
        ctx = Batch(facts, profile, StackedLabels([(len(read), text),
                                                   (len(records), RecordLabels(records))]))
        run_rules(ctx, hand_rules(profile))
        t = stages.add("hand rules", t)
        deals = deals_of(ctx, np.arange(len(ctx)))
        previous = pair(deals, ctx.labels.hand_id)
        run_sequence_rules(Run(deals, previous, profile, ctx.labels), sequence_rules(profile))
        stages.add("deal tables and J rules", t)
        hands += len(ctx)
    total = sum(stages.seconds.values())
    print(f"stages on one worker ({hands} hands, {parsed} read by the reference parser):")
    for name, seconds in stages.seconds.items():
        print(f"  {name:<45} {seconds / hands * 1e6:8.1f} us/hand  {seconds / total:6.1%}")
    print(f"  {'total':<45} {total / hands * 1e6:8.1f} us/hand  = {hands / total:,.0f} hands/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=100_000)
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--violations", type=float, default=0.05)
    parser.add_argument("--unrecorded", type=float, default=0.05)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--room", default="")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="openers-bench-check-") as tmp:
        args.room = args.room or tmp
        files = _room(args)
        profile = load_profile("robert")
        _whole(files, profile, args.workers)
        _stages(files, profile)


if __name__ == "__main__":
    main()
