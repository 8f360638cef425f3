"""Audit log files in batches on a process pool (``openers check``), using every core.

The main process cuts each text file into batches of whole hands (byte ranges
found by ``ingest.chunks.iter_chunks``, so line numbers stay the file's); each
worker reads its batch with the ingest reader, replays and checks every hand, and
sends back the results (and, when J rules run, the records for the sequence pass,
which needs every deal of a table and runs in the main process).
"""

from __future__ import annotations

import gc
import gzip
import io
import os
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from audit.engine import AuditResult, audit_hand, audit_sequences, merge
from audit.profiles import Profile
from audit.registry import hand_rules, sequence_rules
from ingest.chunks import iter_chunks
from ingest.paths import expand_paths
from ingest.reader import HandReader, ParsedHand, QuarantineItem, is_jsonl, read_path
from schemas.records import HandRecord

#: Hands per batch: big enough to amortise the pickling, small enough to balance cores.
BATCH_HANDS = 1000


@dataclass(frozen=True, slots=True)
class Batch:
    """Some whole hands of one file: a byte range (``data``), or the whole file if None."""

    file: str
    start_offset: int = 0
    start_line: int = 1
    data: bytes | None = None


@dataclass(slots=True)
class BatchResult:
    """A worker's answer for one batch."""

    results: list[AuditResult] = field(default_factory=list)
    problems: list[QuarantineItem] = field(default_factory=list)
    records: list[HandRecord] = field(default_factory=list)


@dataclass(slots=True)
class CheckReport:
    """Everything ``openers check`` found, in input order."""

    results: list[AuditResult] = field(default_factory=list)
    problems: list[QuarantineItem] = field(default_factory=list)
    hands: int = 0


def _read_bytes(path: Path) -> bytes | None:
    try:
        if path.name.lower().endswith(".gz"):
            with gzip.open(path, "rb") as f:
                return f.read()
        return path.read_bytes()
    except (OSError, EOFError):
        return None  # the reader reports it as an unreadable file


def plan_batches(paths: Iterable[str | Path], batch_hands: int = BATCH_HANDS) -> Iterator[Batch]:
    """Cut the files named by ``paths`` (files, folders, globs) into batches of hands."""
    for path in expand_paths(paths):
        data = None if is_jsonl(path) else _read_bytes(path)
        if not data:
            yield Batch(str(path))
            continue
        start = count = 0
        start_line = 1
        end = 0
        for chunk in iter_chunks(io.BytesIO(data)):
            if count == 0:
                start, start_line = chunk.start_offset, chunk.first_line
            count += 1
            end = chunk.end_offset
            if count == batch_hands:
                yield Batch(str(path), start, start_line, data[start:end])
                count = 0
        if count:
            yield Batch(str(path), start, start_line, data[start:end])


def _items(batch: Batch) -> Iterator[ParsedHand | QuarantineItem]:
    if batch.data is None:
        return read_path(batch.file)
    reader = HandReader(batch.file, start_offset=batch.start_offset, start_line=batch.start_line)
    return reader.iter_text(io.BytesIO(batch.data))


@contextmanager
def no_cyclic_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector for a batch.

    Parsing and replaying allocate many small acyclic objects; the collector's
    generation scans over them cost a third of the time and free nothing. It is
    re-enabled (and run once) at the end.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def audit_batch(batch: Batch, profile: Profile, keep_records: bool) -> BatchResult:
    """Read, replay and check the hands of one batch (runs in a worker)."""
    rules = hand_rules(profile)
    out = BatchResult()
    with no_cyclic_gc():
        for item in _items(batch):
            if isinstance(item, QuarantineItem):
                out.problems.append(item)
                continue
            out.results.append(audit_hand(item.record, profile, rules))
            if keep_records:
                out.records.append(item.record)
    return out


def _map(batches: Sequence[Batch], profile: Profile, keep: bool, workers: int
         ) -> Iterator[BatchResult]:
    if workers <= 1 or len(batches) <= 1:
        yield from (audit_batch(b, profile, keep) for b in batches)
        return
    with ProcessPoolExecutor(max_workers=workers) as pool:
        yield from pool.map(audit_batch, batches, [profile] * len(batches),
                            [keep] * len(batches), chunksize=1)


def default_workers() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def check_paths(
    paths: Iterable[str | Path], profile: Profile, workers: int | None = None,
    batch_hands: int = BATCH_HANDS,
) -> CheckReport:
    """Audit every hand in ``paths``: hand rules on a process pool, then the J rules."""
    batches = list(plan_batches(paths, batch_hands))
    keep = bool(sequence_rules(profile))
    report = CheckReport()
    records: dict[str, HandRecord] = {}
    for part in _map(batches, profile, keep, workers or default_workers()):
        report.results.extend(part.results)
        report.problems.extend(part.problems)
        for r in part.records:
            records.setdefault(r.hand_id, r)  # a hand given twice is one deal of its table
    report.hands = len(report.results)
    if keep:
        merge(report.results, audit_sequences(records.values(), profile))
    return report
