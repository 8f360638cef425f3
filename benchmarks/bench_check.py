"""``openers check`` on a realistic generated room: hands per second, and each stage's share.

    .venv/bin/python benchmarks/bench_check.py [--hands 100000] [--tables 40]
        [--violations 0.05] [--unrecorded 0.05] [--workers 2] [--room DIR] [--rules]

A room of ``--hands`` hands (``--tables`` tables, every code planted in ``--violations``
of the deals, ``--unrecorded`` of the clean hands writing ``??`` for cards) is generated
once into ``--room`` (a temporary folder by default; an existing room is reused). Then:

- the whole check in process (``audit.batch.check_paths`` on ``--workers`` forked workers,
  after one call on a single file that loads the compiled code), best of three, and the
  main process's own CPU time a hand (its share is serial: the J pass runs after the pool);
- its stages on one worker, over the same files cut into the same batches as the check
  (units of about ``audit.workers.TASK_BYTES`` together, the cyclic collector paused as in
  a worker): the scanner, the reference parser for the hands the scanner does not read,
  the compiled replay, the fact columns a rule reads (``Batch``, one compiled pass into
  memory kept from batch to batch), the hand rules, the
  deal tables of each batch, and the J pass once over every deal (as the main process);
- with ``--rules``, each hand rule's own cost over the same batches, and each J rule's
  over every deal (as the main process runs them), largest first.

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
from audit.facts.deals import Deals, deals_of, pair, stack
from audit.facts.labels import Labels, RecordLabels, StackedLabels, TextLabels
from audit.facts.layout import from_records
from audit.facts.replay import replay_facts
from audit.facts.sequence import Run
from audit.profiles import Profile, load_profile
from audit.registry import hand_rules, sequence_rules
from audit.units import Unit, plan_units
from audit.workers import no_cyclic_gc, tasks_of
from ingest.reader import QuarantineItem, read_chunk
from ingest.scan.layout import H_STATUS, HandArrays, Spans
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
    best = main_cpu = float("inf")
    hands = 0
    for _ in range(3):
        start, cpu = time.perf_counter(), time.process_time()
        report = check_paths(files, profile, workers=workers)
        best = min(best, time.perf_counter() - start)
        main_cpu = min(main_cpu, time.process_time() - cpu)
        hands = report.hands
    print(f"openers check, {workers} workers: {hands} hands in {best:.2f} s = "
          f"{hands / best:,.0f} hands/s (main process: {main_cpu / hands * 1e6:.1f} CPU "
          "us/hand: receiving results, the J pass, the report)")


class _Stages:
    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def add(self, name: str, start: float) -> float:
        now = time.process_time()
        self.seconds[name] = self.seconds.get(name, 0.0) + now - start
        return now


def _batches(files: list[Path], workers: int) -> list[list[Unit]]:
    """The files' units in the tasks the check hands its workers (``audit.workers``'s own)."""
    return tasks_of(plan_units(files).units, workers)


def _bytes(unit: Unit) -> bytes:
    with open(unit.location, "rb") as f:
        f.seek(unit.start)
        return f.read() if unit.end < 0 else f.read(unit.end - unit.start)


def _read(units: list[Unit], stages: _Stages, t: float, memory: TableMemory,
          texts: list[TextLabels]) -> tuple[HandArrays, Labels, int, float]:
    """A batch's hands as arrays: the scanner's (in ``memory``, as a check worker keeps
    them), the reference parser's where it refuses; the scanned labels to ``texts``."""
    arrays, labels, parsed = [], [], 0
    for part, unit in enumerate(units):
        data = _bytes(unit)
        scanned = scan(np.frombuffer(data, dtype=np.uint8), unit.first_line,
                       skip_bom=unit.start == 0, allocate=memory.allocator(f"scan {part}"))
        t = stages.add("scanner", t)
        hands_of = scanned.arrays.hands
        read = np.flatnonzero(hands_of[:, H_STATUS] == 0)
        records = []
        for row in np.flatnonzero(hands_of[:, H_STATUS] != 0).tolist():
            got = read_chunk(unit.path, scanned.chunk(np.frombuffer(data, np.uint8), row))
            if not isinstance(got, QuarantineItem):
                records.append(got.record)
        parsed += len(records)
        arrays.append(join([take(scanned.arrays, read), from_records(records)]))
        text = TextLabels(data, scanned.arrays, scanned.spans, read.tolist())
        texts.append(text)
        labels.append((len(read) + len(records),
                       StackedLabels([(len(read), text), (len(records), RecordLabels(records))])))
        t = stages.add("reference parser (hands the scanner leaves)", t)
    return join(arrays, memory), StackedLabels(labels), parsed, t


def _keep(texts: list[TextLabels]) -> None:
    """Copy the scanned rows the labels read out of the kept memory, which the next batch
    overwrites: unlike a check worker (whose J pass reads deal rows, not these labels),
    this one keeps every batch's labels for the J pass. Untimed."""
    for text in texts:
        text.hands, text.seats, text.events = (text.hands.copy(), text.seats.copy(),
                                               text.events.copy())
        text.spans = Spans(text.spans.hands.copy(), text.spans.seats.copy(),
                           text.spans.events.copy())


def _stages(files: list[Path], profile: Profile, per_rule: bool, workers: int) -> None:
    stages = _Stages()
    memory = TableMemory()  # as a check worker keeps it, batch after batch
    rule_seconds: dict[str, float] = {}
    hands = parsed = 0
    parts: list[Deals] = []
    labels: list[tuple[int, Labels]] = []
    with no_cyclic_gc():
        for number, units in enumerate(_batches(files, workers)):
            texts: list[TextLabels] = []
            arrays, words, read_by_parser, t = _read(units, stages, time.process_time(),
                                                     memory, texts)
            parsed += read_by_parser
            facts = replay_facts(arrays, profile, memory)
            t = stages.add("compiled replay", t)
            ctx = Batch(facts, profile, words, memory)
            t = stages.add("fact columns (Batch)", t)
            if per_rule:
                for rule in hand_rules(profile):
                    start = time.process_time()
                    run_rules(ctx, [rule])
                    rule_seconds[rule.code] = (rule_seconds.get(rule.code, 0.0)
                                               + time.process_time() - start)
                ctx = Batch(facts, profile, words, memory)  # the whole run below starts afresh
                t = time.process_time()
            run_rules(ctx, hand_rules(profile))
            t = stages.add("hand rules", t)
            parts.append(deals_of(ctx, np.arange(hands, hands + len(ctx)), number))
            labels.append((len(ctx), words))
            stages.add("deal tables (per batch)", t)
            _keep(texts)
            hands += len(ctx)
        t = time.process_time()
        deals = stack(parts)
        every = StackedLabels(labels)
        previous = pair(deals, every.hand_id)
        run_sequence_rules(Run(deals, previous, profile, every), sequence_rules(profile))
        stages.add("J pass (once, every deal)", t)
        if per_rule:
            for j_rule in sequence_rules(profile):
                start = time.process_time()
                run_sequence_rules(Run(deals, previous, profile, every), [j_rule])
                rule_seconds[j_rule.code] = time.process_time() - start
    total = sum(stages.seconds.values())
    print(f"stages on one worker ({hands} hands in {len(parts)} batches, {parsed} read by "
          "the reference parser):")
    for name, seconds in stages.seconds.items():
        print(f"  {name:<45} {seconds / hands * 1e6:8.1f} us/hand  {seconds / total:6.1%}")
    print(f"  {'total':<45} {total / hands * 1e6:8.1f} us/hand  = {hands / total:,.0f} hands/s")
    if per_rule:
        print("hand rules one at a time, then the J rules over every deal (us/hand):")
        for code, seconds in sorted(rule_seconds.items(), key=lambda item: -item[1]):
            print(f"  {code}  {seconds / hands * 1e6:6.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=100_000)
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--violations", type=float, default=0.05)
    parser.add_argument("--unrecorded", type=float, default=0.05)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--room", default="")
    parser.add_argument("--rules", action="store_true", help="each hand rule's own cost")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="openers-bench-check-") as tmp:
        args.room = args.room or tmp
        files = _room(args)
        profile = load_profile("robert")
        _whole(files, profile, args.workers)
        _stages(files, profile, args.rules, args.workers)


if __name__ == "__main__":
    main()
