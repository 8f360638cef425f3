"""Audit log files in batches on a process pool (``openers check``), using every core.

The main process cuts the text files into hand chunks with the compiled scanner
(the reference chunker's chunks, so line numbers stay the file's), takes each deal's
table and time from the scanner (or, for a hand it does not read, from the reference
parser: no second reading of the format), and groups the chunks by table in time
order. A batch holds whole runs of one or more tables' deals, plus the deal just
before its first one as *context*, so a worker can run both the hand rules and the
deal-sequence (J) rules and send back only results: records never cross process
boundaries, which would cost more than parsing them. JSON Lines inputs are read whole
by a worker instead, and their deals' sequences are checked in the main process.
"""

from __future__ import annotations

import ctypes
import gc
import multiprocessing
import os
import signal
import sys
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing.context import BaseContext
from pathlib import Path

import numpy as np

from audit.engine import AuditResult, audit_hand, audit_sequences, merge
from audit.profiles import Profile
from audit.registry import hand_rules, sequence_rules
from audit.replay import Replay
from ingest.chunks import Chunk
from ingest.paths import expand_paths
from ingest.reader import QuarantineItem, is_jsonl, read_chunk, read_path
from ingest.scan.layout import H_STATUS, H_TABLE_HASH, H_TIME, fnv1a64, time_micros
from ingest.scan.scanner import scan
from ingest.source import ByteSource
from schemas.records import HandRecord

#: Hands per batch: big enough to amortise the pool's messages, small enough to balance cores.
BATCH_HANDS = 1000
#: The time of a deal that cannot be read: after every other.
_NO_TIME = np.iinfo(np.int64).max


@dataclass(frozen=True, slots=True)
class Item:
    """One hand chunk of a text file (``context``: read only as the previous deal)."""

    file: int
    chunk: Chunk
    context: bool = False


@dataclass(slots=True)
class Batch:
    """Work for one worker: hand chunks (``files`` indexes ``Item.file``), or a JSONL file."""

    files: tuple[str, ...]
    items: list[Item] = field(default_factory=list)
    jsonl: str | None = None


@dataclass(slots=True)
class BatchResult:
    """A worker's answer: results keyed by input position, problems, JSONL records."""

    results: list[tuple[tuple[int, int], AuditResult]] = field(default_factory=list)
    problems: list[QuarantineItem] = field(default_factory=list)
    records: list[HandRecord] = field(default_factory=list)


@dataclass(slots=True)
class CheckReport:
    """Everything ``openers check`` found, in input order.

    ``results`` holds the hands with anything to report (a finding, an unverifiable
    check or a rule error); ``hands`` counts every hand read.
    """

    results: list[AuditResult] = field(default_factory=list)
    problems: list[QuarantineItem] = field(default_factory=list)
    hands: int = 0


def _read_bytes(path: Path) -> bytes | None:
    with ByteSource(path) as source:
        data = source.read()
        # A fault: the reader reads the hands before it and reports it, as ingest does.
        return None if source.fault is not None else data


def _deals(path: str, data: bytes) -> Iterator[tuple[int | None, int, Chunk]]:
    """Each hand chunk of a file's bytes with its table (a hash of its id) and its time
    (UTC micros), to group and order the deals: the compiled scanner's for the hands it
    reads, the reference parser's for the others; an unreadable hand has no table and
    sorts last."""
    buf = np.frombuffer(data, dtype=np.uint8)
    scanned = scan(buf)
    hands = scanned.arrays.hands
    for row in range(len(scanned)):
        chunk = scanned.chunk(data, row)
        if hands[row, H_STATUS] == 0:
            yield int(hands[row, H_TABLE_HASH]), int(hands[row, H_TIME]), chunk
            continue
        got = read_chunk(path, chunk)
        if isinstance(got, QuarantineItem):
            yield None, _NO_TIME, chunk
        else:
            yield fnv1a64(got.record.table_id.encode()), time_micros(got.record), chunk


def plan_batches(paths: Iterable[str | Path], batch_hands: int = BATCH_HANDS) -> list[Batch]:
    """Group the hands of ``paths`` (files, folders, globs) by table into batches."""
    files: list[str] = []
    batches: list[Batch] = []
    tables: dict[int | None, list[tuple[int, int, int, Chunk]]] = defaultdict(list)
    order = 0
    for path in expand_paths(paths):
        data = None if is_jsonl(path) else _read_bytes(path)
        if not data:
            batches.append(Batch((), jsonl=str(path)))  # JSONL, or the reader's file problem
            continue
        files.append(str(path))
        seen = False
        for table, time, chunk in _deals(str(path), data):
            tables[table].append((time, order, len(files) - 1, chunk))
            order += 1
            seen = True
        if not seen:
            batches.append(Batch((), jsonl=str(path)))  # the reader reports the empty file
            files.pop()
    names = tuple(files)
    current = Batch(names)
    for deals in tables.values():
        deals.sort(key=lambda d: (d[0], d[1]))
        for i, (_, _, file, chunk) in enumerate(deals):
            if len(current.items) >= batch_hands:
                batches.append(current)
                current = Batch(names)
                if i:  # the new batch starts inside a table: carry its previous deal
                    current.items.append(Item(deals[i - 1][2], deals[i - 1][3], context=True))
            current.items.append(Item(file, chunk))
    if current.items:
        batches.append(current)
    return batches


@contextmanager
def no_cyclic_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector for a batch.

    Parsing and replaying allocate many small acyclic objects; the collector's
    generation scans over them cost a third of the time and free nothing.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def audit_batch(batch: Batch, profile: Profile) -> BatchResult:
    """Read, replay and check the hands of one batch, J rules included (runs in a worker)."""
    rules = hand_rules(profile)
    sequence = bool(sequence_rules(profile))
    out = BatchResult()
    with no_cyclic_gc():
        if batch.jsonl is not None:
            for n, got in enumerate(read_path(batch.jsonl)):
                if isinstance(got, QuarantineItem):
                    out.problems.append(got)
                else:
                    result = audit_hand(got.record, profile, rules)
                    result.file, result.first_line = got.file, got.first_line
                    out.results.append(((-1, n), result))
                    if sequence:
                        out.records.append(got.record)
            return out
        records: dict[str, HandRecord] = {}
        mine: dict[str, tuple[int, int]] = {}
        replays: dict[str, Replay] = {}
        for item in batch.items:
            got = read_chunk(batch.files[item.file], item.chunk)
            if isinstance(got, QuarantineItem):
                if not item.context:
                    out.problems.append(got)
                continue
            records.setdefault(got.record.hand_id, got.record)  # a hand given twice is one deal
            if not item.context:
                key = (item.file, item.chunk.first_line)
                result = audit_hand(got.record, profile, rules, replays)
                result.file, result.first_line = got.file, got.first_line
                out.results.append((key, result))
                mine.setdefault(got.record.hand_id, key)
        if sequence:
            extra = [r for r in audit_sequences(records.values(), profile, replays=replays)
                     if r.hand_id in mine]
            out.results.extend((mine[r.hand_id], r) for r in extra)
    return out


def _map(batches: Sequence[Batch], profile: Profile, workers: int) -> Iterator[BatchResult]:
    if workers <= 1 or len(batches) <= 1:
        yield from (audit_batch(b, profile) for b in batches)
        return
    with process_pool(workers) as pool:
        yield from pool.map(audit_batch, batches, [profile] * len(batches), chunksize=1)


#: prctl(2) option: the signal this process gets when the thread that forked it ends.
_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """Pool initializer: the worker is killed (SIGKILL) when the process that forked it dies.

    A worker waiting for its next task never notices its parent's death: a job killed
    with ``kill -9`` mid-audit would leave its workers running for ever, holding what
    they inherited. Linux only (``PR_SET_PDEATHSIG``); elsewhere nothing is done.
    The signal follows the *thread* that started the worker, so pools are started
    from a thread that outlives them (the main thread, as every pool here is).
    """
    if not sys.platform.startswith("linux"):
        return
    parent = multiprocessing.parent_process()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        return
    if parent is not None and os.getppid() != parent.pid:
        os._exit(1)  # the parent died before the request was in place: it will never fire


def process_pool(workers: int, context: BaseContext | None = None) -> ProcessPoolExecutor:
    """A process pool whose workers die with this process (see :func:`die_with_parent`)."""
    return ProcessPoolExecutor(max_workers=workers, mp_context=context,
                               initializer=die_with_parent)


def default_workers() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def check_paths(
    paths: Iterable[str | Path], profile: Profile, workers: int | None = None,
    batch_hands: int = BATCH_HANDS, fast: bool = True,
) -> CheckReport:
    """Audit every hand in ``paths`` on a process pool; results in input order.

    ``fast`` (the default) certifies ordinary clean hands with the compiled fast path
    (:mod:`audit.fast`) and audits the rest with the engine; without it, or when the
    profile runs a rule the fast path does not cover, every hand goes through the
    engine. Both report the same.
    """
    if fast:
        from audit.fast.check import fast_check_paths
        from audit.fast.coverage import covers

        if covers(profile):
            return fast_check_paths(paths, profile, workers or default_workers())
    return reference_check_paths(paths, profile, workers, batch_hands)


def reference_check_paths(
    paths: Iterable[str | Path], profile: Profile, workers: int | None = None,
    batch_hands: int = BATCH_HANDS,
) -> CheckReport:
    """``check_paths`` with every hand through the reference reader and engine."""
    batches = plan_batches(paths, batch_hands)
    keyed: list[tuple[tuple[int, int], AuditResult]] = []
    jsonl: list[tuple[tuple[int, int], AuditResult]] = []
    records: list[HandRecord] = []
    report = CheckReport()
    for n, part in enumerate(_map(batches, profile, workers or default_workers())):
        report.problems.extend(part.problems)
        if batches[n].jsonl is not None:
            jsonl.extend(((n, i), r) for (_, i), r in part.results)
            records.extend(part.records)
        else:
            keyed.extend(part.results)
    keyed.sort(key=lambda kr: kr[0])
    report.results = _merge_keyed(keyed) + _merge_keyed(jsonl)
    report.hands = len(report.results)
    if records:
        merge(report.results, audit_sequences(
            list({r.hand_id: r for r in reversed(records)}.values()), profile))
    names = next((b.files for b in batches if b.jsonl is None), ())
    position = {name: i for i, name in enumerate(names)}
    report.problems.sort(key=lambda q: (position.get(q.file, len(position)), q.first_line))
    report.results = [r for r in report.results if r.findings or r.unverifiable or r.errors]
    return report


def _merge_keyed(keyed: list[tuple[tuple[int, int], AuditResult]]) -> list[AuditResult]:
    """One result per input hand: a J result joins its hand's result (same key)."""
    out: list[AuditResult] = []
    by_key: dict[tuple[int, int], AuditResult] = {}
    for key, result in keyed:
        if key in by_key:
            merge([by_key[key]], [result])
        else:
            by_key[key] = result
            out.append(result)
    return out
