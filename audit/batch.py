"""``openers check``: every hand of some log files, on a process pool, J rules included.

Each text file is cut into units (:mod:`audit.units`); a worker reads a unit's
bytes, replays its hands into fact tables and runs the hand rules on them
(:func:`check_unit`), and sends back the hands' results and the unit's deal tables
(:mod:`audit.facts.deals`). JSON Lines files (and files the units cannot cut) are
read by the reference reader, one task each, into the same tables. The main process
stacks every unit's deals, orders each table's deals in time, and runs the J rules
once over all of them: how the input was split into files or units does not matter.

Two ways to read a unit, one set of rules:

- compiled (the default): the scanner reads the hands it can
  (:mod:`ingest.scan.scanner`); the reference reader parses the others (and
  quarantines what it cannot read); the compiled replay makes the facts
  (:func:`audit.facts.replay.replay_facts`);
- reference (``fast=False``, ``openers check --reference``): the reference reader
  parses every hand and the Python replay makes the facts
  (:func:`audit.facts.reference.reference_facts`) -- slower, written independently,
  the same findings.
"""

from __future__ import annotations

import io
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import numpy as np

from audit.check_labels import (
    SPAN_END,
    SPAN_FILE,
    SPAN_HAND,
    SPAN_START,
    SPAN_TABLE,
    DealLabels,
    Named,
    no_spans,
)
from audit.check_labels import named as to_named
from audit.engine import AuditResult, merge, run_rules, run_sequence_rules
from audit.facts.arrays import join, process_memory, take
from audit.facts.context import Batch
from audit.facts.deals import Deals, deals_of, pair, stack
from audit.facts.labels import Labels, RecordLabels, StackedLabels, TextLabels
from audit.facts.layout import from_records
from audit.facts.reference import reference_facts
from audit.facts.sequence import Run
from audit.profiles import Profile
from audit.registry import hand_rules, sequence_rules
from audit.units import UNIT_BYTES, Unit, plan_units
from audit.workers import default_workers, no_cyclic_gc, pool, tasks_of
from ingest.chunks import iter_chunks
from ingest.reader import QuarantineItem, read_chunk, read_path
from ingest.scan.layout import (
    H_BYTE_END,
    H_BYTE_START,
    H_FIRST_LINE,
    H_STATUS,
    P_HAND,
    P_TABLE,
    HandArrays,
)
from schemas.records import HandRecord

T = TypeVar("T")
R = TypeVar("R")


@dataclass(slots=True)
class CheckReport:
    """Everything ``openers check`` found, in input order.

    ``results`` holds the hands with anything to report (a finding, an unverifiable
    check or a rule error); ``hands`` counts every hand read.
    """

    results: list[AuditResult] = field(default_factory=list)
    problems: list[QuarantineItem] = field(default_factory=list)
    hands: int = 0


def place(file: int, first_line: int) -> int:
    """A hand's place in the input: its file's number, then its first line."""
    return (file << 32) | first_line


@dataclass(slots=True)
class Outcome:
    """What one task found: results by place, the deals, what could not be read."""

    results: dict[int, AuditResult] = field(default_factory=dict)
    deals: Deals | None = None
    problems: list[QuarantineItem] = field(default_factory=list)
    #: Per deal (in deal order): where its words are in its file (``check_labels.SPANS``).
    spans: np.ndarray = field(default_factory=lambda: no_spans(0))
    #: The words of the hands read as records (the reference reader's), by place.
    named: dict[int, Named] = field(default_factory=dict)


def _read(unit: Unit) -> bytes | None:
    """The unit's bytes (a plain file: a .gz was decompressed when it was planned), or
    None when they cannot be read (the reader then reports the file)."""
    try:
        with open(unit.location, "rb") as f:
            f.seek(unit.start)
            return f.read() if unit.end < 0 else f.read(unit.end - unit.start)
    except OSError:
        return None


def _unreadable(unit: Unit, out: Outcome) -> None:
    """A unit whose bytes cannot be read: the reader says why (once per file)."""
    if unit.start == 0:
        out.problems.extend(got for got in read_path(unit.path)
                            if isinstance(got, QuarantineItem))


def _audit(records_or_arrays: tuple[object, Labels, np.ndarray], profile: Profile,
           reference_records: Sequence[HandRecord] | None, batch: int, out: Outcome) -> None:
    arrays, labels, places = records_or_arrays
    if reference_records is not None:
        facts = reference_facts(reference_records, profile)
        ctx = Batch(facts, profile, labels)
    else:
        from audit.facts.replay import replay_facts  # compiled code: loaded only when used

        facts = replay_facts(arrays, profile, process_memory())  # type: ignore[arg-type]
        ctx = Batch(facts, profile, labels, process_memory())
    for hand, result in run_rules(ctx, hand_rules(profile)).items():
        out.results[int(places[hand])] = result
    out.deals = deals_of(ctx, places, batch)


def check_units(task: tuple[int, list[Unit]], profile: Profile, reference: bool) -> Outcome:
    """Read, replay and check the hands of some units, as one batch (runs in a worker)."""
    batch, units = task
    out = Outcome()
    with no_cyclic_gc():
        if reference:
            records: list[HandRecord] = []
            files: list[int] = []
            for unit in units:
                data = _read(unit)
                if data is None:
                    _unreadable(unit, out)
                    continue
                mine = _reference_unit(unit, data, out)
                records += mine
                files += [unit.file] * len(mine)
            _records(batch, files, records, profile, out, reference=True)
        else:
            parts: list[_Scanned] = []
            for unit in units:
                data = _read(unit)
                if data is None:
                    _unreadable(unit, out)
                else:
                    parts.append(_scan_unit(unit, data, out, len(parts)))
            arrays = join([p.arrays for p in parts], process_memory())
            labels = StackedLabels([(len(p.places), p.labels) for p in parts])
            places = np.concatenate([p.places for p in parts]) if parts else np.zeros(0, np.int64)
            _audit((arrays, labels, places), profile, None, batch, out)
            out.spans = np.concatenate([p.spans for p in parts]) if parts else out.spans
            for p in parts:
                out.named.update(p.named)
    return out


@dataclass(slots=True)
class _Scanned:
    arrays: HandArrays
    labels: Labels
    places: np.ndarray
    spans: np.ndarray
    named: dict[int, Named]


def _scan_unit(unit: Unit, data: bytes, out: Outcome, part: int) -> _Scanned:
    """The batch's ``part``-th unit's hands as arrays: the scanner's (in kept memory, a unit
    apart), the reference reader's where the scanner did not (neither: ``out.problems``)."""
    from ingest.scan.scanner import scan  # compiled code: loaded only when used

    buf = np.frombuffer(data, dtype=np.uint8)
    scanned = scan(buf, unit.first_line, skip_bom=unit.start == 0,
                   allocate=process_memory().allocator(f"scan {part}"))
    hands = scanned.arrays.hands
    if not len(hands) and unit.start == 0 and unit.end < 0:
        # A file without a single hand: the reader says so (an empty file is a problem).
        out.problems.extend(got for got in read_path(unit.path)
                            if isinstance(got, QuarantineItem))
    read = np.flatnonzero(hands[:, H_STATUS] == 0)
    records: list[HandRecord] = []
    for row in np.flatnonzero(hands[:, H_STATUS] != 0).tolist():
        chunk = scanned.chunk(buf, row)
        got = read_chunk(unit.path, chunk._replace(start_offset=unit.start + chunk.start_offset,
                                                   end_offset=unit.start + chunk.end_offset))
        if isinstance(got, QuarantineItem):
            out.problems.append(got)
        else:
            records.append(got.record)
    mine = take(scanned.arrays, read)
    arrays = join([mine, from_records(records)])
    text = TextLabels(data, scanned.arrays, scanned.spans, read.tolist())
    labels = StackedLabels([(len(read), text),
                            (len(records), RecordLabels(records))])
    first_lines = np.concatenate((hands[read, H_FIRST_LINE],
                                  np.array([r.first_line for r in records], dtype=np.int64)))
    places = (np.int64(unit.file) << np.int64(32)) | first_lines
    spans = no_spans(len(places))
    spans[:, SPAN_FILE] = unit.file
    spans[:len(read), SPAN_START] = hands[read, H_BYTE_START] + unit.start
    spans[:len(read), SPAN_END] = hands[read, H_BYTE_END] + unit.start
    for column, key in ((SPAN_HAND, P_HAND), (SPAN_TABLE, P_TABLE)):
        found = scanned.spans.hands[read, key:key + 2]
        spans[:len(read), column:column + 2] = np.where(found >= 0, found + unit.start, -1)
    named = {int(p): to_named(r) for p, r in zip(places[len(read):].tolist(), records,
                                                  strict=True)}
    return _Scanned(arrays, labels, places, spans, named)


def _reference_unit(unit: Unit, data: bytes, out: Outcome) -> list[HandRecord]:
    """Every hand of the unit by the reference reader (quarantined ones to ``out``)."""
    records: list[HandRecord] = []
    problems = len(out.problems)
    # The chunker skips a BOM at offset 0 only: the unit's place in its file is given.
    for chunk in iter_chunks(io.BytesIO(data), start_offset=unit.start,
                             start_line=unit.first_line):
        got = read_chunk(unit.path, chunk)
        if isinstance(got, QuarantineItem):
            out.problems.append(got)
        else:
            records.append(got.record)
    if not records and len(out.problems) == problems and unit.start == 0 and unit.end < 0:
        out.problems.extend(got for got in read_path(unit.path)
                            if isinstance(got, QuarantineItem))
    return records


def _records(batch: int, files: list[int], records: list[HandRecord], profile: Profile,
             out: Outcome, *, reference: bool, first_lines: list[int] | None = None) -> None:
    """Audit records read by the reference reader; ``first_lines``: where each was read
    (a JSON line's number), if not its record's own first line."""
    lines = first_lines if first_lines is not None else [r.first_line for r in records]
    places = np.array([place(f, n) for f, n in zip(files, lines, strict=True)],
                      dtype=np.int64)
    _audit((from_records(records) if not reference else None, RecordLabels(records), places),
           profile, records if reference else None, batch, out)
    out.spans = no_spans(len(records))
    out.spans[:, SPAN_FILE] = files
    out.named = {int(p): to_named(r) for p, r in zip(places.tolist(), records, strict=True)}


def check_file(task: tuple[int, int, str], profile: Profile, reference: bool) -> Outcome:
    """A file the units do not take (JSON Lines, unreadable): the reference reader reads
    it, every hand it reads is checked like any other (runs in a worker)."""
    batch, file, path = task
    out = Outcome()
    records: list[HandRecord] = []
    first_lines: list[int] = []
    with no_cyclic_gc():
        for got in read_path(path):
            if isinstance(got, QuarantineItem):
                out.problems.append(got)
            else:
                records.append(got.record)
                first_lines.append(got.first_line)
        _records(batch, [file] * len(records), records, profile, out, reference=reference,
                 first_lines=first_lines)
    return out


class _Runner:
    """Tasks in this process, or on a pool of workers forked from it (with the compiled
    replay loaded first, unless ``reference``: each worker would load it again)."""

    def __init__(self, workers: int, reference: bool) -> None:
        self.workers, self.reference = workers, reference

    def map(self, fn: Callable[..., R], tasks: Sequence[T], *args: object) -> list[R]:
        if self.workers <= 1 or len(tasks) <= 1:
            return [fn(task, *args) for task in tasks]
        if not self.reference:
            from audit.facts.columns import warm_up as columns_warm_up  # compiled: when used
            from audit.facts.replay import warm_up  # compiled code: loaded only when used

            warm_up()
            columns_warm_up()
        with pool(self.workers) as workers:
            return list(workers.map(fn, tasks, *([a] * len(tasks) for a in args), chunksize=1))


def check_paths(paths: Iterable[str | Path], profile: Profile, workers: int | None = None,
                fast: bool = True, unit_bytes: int = UNIT_BYTES) -> CheckReport:
    """Check every hand of ``paths``: results in input order, J rules over every table.

    ``fast=False`` reads every hand with the reference parser and makes the facts with the
    Python replay (``openers check --reference``): slower, the same report.
    """
    # A .gz is decompressed, streamed, into the spill folder and cut like a plain file.
    # The collector is paused: receiving the workers' results (and the J pass) makes many
    # small acyclic objects, and its generation scans over them cost more than the J pass.
    with tempfile.TemporaryDirectory(prefix="openers-check-") as spill, no_cyclic_gc():
        plan = plan_units(paths, unit_bytes, Path(spill))
        reference = not fast
        run = _Runner(workers or default_workers(), reference)
        units = list(enumerate(tasks_of(plan.units, run.workers)))
        outcomes = run.map(check_units, units, profile, reference)
        others = [(len(units) + k, len(plan.files) + k, path)
                  for k, path in enumerate(plan.others)]
        outcomes += run.map(check_file, others, profile, reference)
        files = [*plan.files, *plan.others]
        order = {name: plan.position[name] for name in files}
        return _report(outcomes, files, [*plan.sources, *plan.others], order, profile)


def _report(outcomes: list[Outcome], files: list[str], sources: list[str],
            order: dict[str, int], profile: Profile) -> CheckReport:
    report = CheckReport()
    by_place: dict[int, AuditResult] = {}
    for out in outcomes:
        by_place.update(out.results)
        report.problems.extend(out.problems)
    parts = [out.deals for out in outcomes if out.deals is not None]
    deals = stack(parts)
    report.hands = len(deals)
    spans = np.concatenate([out.spans for out in outcomes if out.deals is not None]) \
        if parts else no_spans(0)
    named = {k: v for out in outcomes for k, v in out.named.items()}
    labels = DealLabels(deals, spans, named, sources)
    rules = sequence_rules(profile)
    if rules and len(deals):
        previous = pair(deals, labels.hand_id)
        try:
            found = run_sequence_rules(Run(deals, previous, profile, labels), rules)
        finally:
            labels.close()
        for deal, extra in found.items():
            key = int(deals.deals["place"][deal])
            mine = by_place.get(key)
            if mine is None:
                by_place[key] = extra
            else:
                merge([mine], [extra])
    # Input order: files as given, then first line (the place's file is a position in the
    # list of files handed to the workers; ``order`` puts it back in the user's order).
    rank = {k: order[name] for k, name in enumerate(files)}
    report.results = [by_place[k] for k in sorted(by_place, key=lambda p: (rank[p >> 32],
                                                                         p & 0xFFFFFFFF))]
    for key, result in by_place.items():
        result.file, result.first_line = files[key >> 32], key & 0xFFFFFFFF
    report.results = [r for r in report.results if r.findings or r.unverifiable or r.errors]
    report.problems.sort(key=lambda q: (order.get(q.file, len(order)), q.first_line))
    return report

