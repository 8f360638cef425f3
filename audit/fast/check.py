"""``openers check`` on the fast path: units on a process pool, then pairing across units.

Workers (:mod:`audit.fast.worker`) certify and audit the hands of their units and
settle the J rules of every deal whose predecessor at its table is in the same
unit. Here the deals of all units are put in table and time order; a deal whose
predecessor the worker did not see (it was in another unit, or another file came
between them) has its J rules run again by the reference engine on the right pair,
and a table with two deals at the same time is paired by hand id there as well,
as :func:`audit.engine.sequence_pairs` does. JSON Lines and unreadable files go
through the reference path (:func:`audit.batch.reference_check_paths`).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import TypeVar

import numpy as np

from audit.batch import CheckReport, no_cyclic_gc, reference_check_paths
from audit.engine import AuditResult, audit_sequences, merge, sequence_pairs
from audit.fast.certify_sequence import certify_sequence
from audit.fast.layout import profile_knobs
from audit.fast.units import UNIT_BYTES, Plan, plan_units
from audit.fast.worker import (
    D_BYTE_END,
    D_BYTE_START,
    D_DEAL,
    D_FIRST_LINE,
    D_FLAGS,
    D_HAND,
    D_J_DONE,
    D_LOCAL_PREVIOUS,
    D_TABLE,
    D_TIME,
    UnitResult,
    check_unit,
    reference_pairs,
    warm_pool,
)
from audit.profiles import Profile
from audit.registry import sequence_rules
from ingest.chunks import Chunk
from ingest.reader import QuarantineItem, read_chunk
from ingest.scan.scanner import scan
from schemas.records import HandRecord

Key = tuple[int, int]  # (file number, first line): a hand's place in the input
T = TypeVar("T")
R = TypeVar("R")
#: Deal pairs per task of the reference J round.
PAIRS_PER_TASK = 200


class _Runner:
    """Runs tasks in this process, or on one warm pool kept for both rounds of a check."""

    def __init__(self, workers: int, profile: Profile) -> None:
        self.workers, self.profile = workers, profile
        self.pool: ProcessPoolExecutor | None = None

    def map(self, fn: Callable[[T, Profile], R], tasks: Sequence[T]) -> list[R]:
        if self.workers <= 1 or len(tasks) <= 1:
            with no_cyclic_gc():
                return [fn(task, self.profile) for task in tasks]
        if self.pool is None:
            self.pool = warm_pool(self.workers)
        return list(self.pool.map(fn, tasks, [self.profile] * len(tasks), chunksize=1))

    def __enter__(self) -> _Runner:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.shutdown()


def fast_check_paths(paths: Iterable[str | Path], profile: Profile, workers: int,
                     unit_bytes: int = UNIT_BYTES) -> CheckReport:
    """Audit every hand of ``paths``; the same report as the reference path."""
    with tempfile.TemporaryDirectory(prefix="openers-check-") as spill, \
            _Runner(workers, profile) as run:
        plan = plan_units(paths, unit_bytes, Path(spill))
        return _check(plan, run, profile, workers)


def _check(plan: Plan, run: _Runner, profile: Profile, workers: int) -> CheckReport:
    parts = run.map(check_unit, plan.units)
    others = list(plan.others)
    report = CheckReport()
    by_key: dict[Key, AuditResult] = {}
    # A file none of whose units holds a hand (empty, or unreadable) is the reference's.
    with_hands = {part.unit.file for part in parts if not part.empty}
    for part in parts:
        if part.empty:
            if part.unit.file not in with_hands and part.unit.path not in others:
                others.append(part.unit.path)
            continue
        report.problems.extend(part.problems)
        report.hands += int(part.deals[:, D_DEAL].sum())
        for row, result in part.results.items():
            by_key[(part.unit.file, int(part.deals[row, D_FIRST_LINE]))] = result
    if sequence_rules(profile):
        _pair_across_units(plan.files, parts, run, by_key, plan.sources)
    for (file, first_line), result in by_key.items():
        result.file, result.first_line = plan.files[file], first_line
    results = [by_key[k] for k in sorted(by_key)]
    report.results = [r for r in results if r.findings or r.unverifiable or r.errors]
    position = {name: i for i, name in enumerate(plan.files)}
    report.problems.sort(key=lambda q: (position.get(q.file, len(position)), q.first_line))
    if others:
        others.sort(key=plan.position.__getitem__)
        rest = reference_check_paths(others, profile, workers)
        report.results.extend(rest.results)
        report.problems.extend(rest.problems)
        report.hands += rest.hands
    return report


def _add(by_key: dict[Key, AuditResult], key: Key, extra: AuditResult) -> None:
    mine = by_key.get(key)
    if mine is None:
        by_key[key] = extra
    else:
        merge([mine], [extra])


class _Files:
    """Hands re-read from their files by the main process (a .gz from its plain copy)."""

    def __init__(self, names: list[str], sources: list[str]) -> None:
        self.names, self.sources = names, sources

    def _bytes(self, file: int, start: int, end: int) -> bytes:
        with open(self.sources[file], "rb") as f:
            f.seek(start)
            return f.read(end - start)

    def text(self, file: int, deal: np.ndarray) -> bytes:
        """The hand's chunk, as the file holds it."""
        return self._bytes(file, int(deal[D_BYTE_START]), int(deal[D_BYTE_END]))

    def chunk(self, file: int, deal: np.ndarray) -> Chunk:
        start, end = int(deal[D_BYTE_START]), int(deal[D_BYTE_END])
        flags = int(deal[D_FLAGS])
        return Chunk(self._bytes(file, start, end), int(deal[D_FIRST_LINE]), start, end,
                     bool(flags & 1), bool(flags & 2))

    def record(self, file: int, deal: np.ndarray) -> HandRecord | None:
        got = read_chunk(self.names[file], self.chunk(file, deal))
        return None if isinstance(got, QuarantineItem) else got.record


def _pair_across_units(files: list[str], parts: list[UnitResult], run: _Runner,
                       by_key: dict[Key, AuditResult], sources: list[str]) -> None:
    """Keep each worker's J outcome where its pairing is the global one; redo the rest."""
    live = [(u, part) for u, part in enumerate(parts) if not part.empty]
    if not live:
        return
    deals = np.concatenate([part.deals for _, part in live])
    unit = np.concatenate([np.full(len(part.deals), u) for u, part in live])
    row = np.concatenate([np.arange(len(part.deals)) for _, part in live])
    keep = deals[:, D_DEAL] == 1
    deals, unit, row = deals[keep], unit[keep], row[keep]
    if not len(deals):
        return
    # A hand given twice is one deal, its earliest copy (as the reference keeps it):
    # the other copies take no part in the sequence and get no J result.
    by_time = np.lexsort((np.arange(len(deals)), deals[:, D_TIME]))
    _, first = np.unique(deals[by_time][:, [D_TABLE, D_HAND]], axis=0, return_index=True)
    once = np.sort(by_time[first])
    deals, unit, row = deals[once], unit[once], row[once]
    order = np.lexsort((np.arange(len(deals)), deals[:, D_TIME], deals[:, D_TABLE]))
    table, time = deals[order, D_TABLE], deals[order, D_TIME]
    same_table = np.concatenate(([False], table[1:] == table[:-1]))
    tie = same_table & np.concatenate(([False], time[1:] == time[:-1]))
    before = np.full(len(deals), -1)
    before[order[1:]] = np.where(same_table[1:], order[:-1], -1)
    # Distinct deals at one time: ordered by hand id, as the reference orders them.
    tied_tables = np.unique(table[tie])
    tied = np.isin(deals[:, D_TABLE], tied_tables)
    local = deals[:, D_LOCAL_PREVIOUS]
    safe = np.maximum(before, 0)
    agrees = np.where(before < 0, local == -1,
                      (unit[safe] == unit) & (row[safe] == local))
    settled = agrees & (deals[:, D_J_DONE] == 1) & ~tied
    reread = _Files(files, sources)

    def key(g: int) -> Key:
        return (parts[int(unit[g])].unit.file, int(deals[g, D_FIRST_LINE]))

    profile = run.profile
    def record(g: int) -> HandRecord | None:
        return reread.record(parts[int(unit[g])].unit.file, deals[g])

    redo = np.flatnonzero(~settled & ~tied)
    files_of = np.array([part.unit.file for part in parts], dtype=np.int64)[unit]
    redo = redo[~_certify_read_again(reread, deals, files_of, redo, before[redo], profile)]

    def chunk(g: int) -> tuple[str, Chunk]:
        return files[int(files_of[g])], reread.chunk(int(files_of[g]), deals[g])

    pairs = [(g, chunk(g), chunk(int(before[g])) if before[g] >= 0 else None)
             for g in redo.tolist()]
    tasks = [pairs[i:i + PAIRS_PER_TASK] for i in range(0, len(pairs), PAIRS_PER_TASK)]
    for part in run.map(reference_pairs, tasks):
        for g, extra in part:
            _add(by_key, key(g), extra)
    _redo_tied_tables(set(tied_tables.tolist()), table, order, record, key, profile, by_key)


def _certify_read_again(reread: _Files, deals: np.ndarray, files: np.ndarray,
                        current: np.ndarray, before: np.ndarray, profile: Profile
                        ) -> np.ndarray:
    """Certify pairs no worker saw together: their hands are read again and scanned here.

    Only the J rules are in question (each hand's own rules were settled in its
    worker), and a scan costs a few microseconds a hand, so a log split by dealer
    rather than by table still has its pairs certified, not audited one by one.
    True where the pair ``(before[k], current[k])`` is certified.
    """
    if not len(current):
        return np.zeros(0, dtype=bool)
    needed = np.unique(np.concatenate((current, before[before >= 0])))
    texts = [reread.text(int(files[g]), deals[g]) for g in needed.tolist()]
    scanned = scan(np.frombuffer(b"\n\n".join(texts), dtype=np.uint8)).arrays
    if len(scanned) != len(needed):  # a text that does not stand alone as one hand
        return np.zeros(len(current), dtype=bool)
    place = np.searchsorted(needed, current)
    previous = np.where(before >= 0, np.searchsorted(needed, np.maximum(before, 0)), -1)
    knobs, progression = profile_knobs(profile)
    return certify_sequence(scanned.hands, scanned.seats, scanned.events, scanned.cards,
                            knobs, progression, place, previous) == 1


def _redo_tied_tables(tied: set[int], table: np.ndarray, order: np.ndarray,
                      record: Callable[[int], HandRecord | None], key: Callable[[int], Key],
                      profile: Profile, by_key: dict[Key, AuditResult]) -> None:
    """Tables with equal times or a repeated hand: every deal re-read, a repeated hand
    counted once (its first copy), and paired by (time, hand id) as the reference does."""
    for t in tied:
        first: dict[str, tuple[int, HandRecord]] = {}
        for g in sorted(int(g) for g in order[table == t]):
            r = record(g)
            if r is not None and r.hand_id not in first:
                first[r.hand_id] = (g, r)
        place = {id(r): g for g, r in first.values()}
        for previous, current in sequence_pairs(r for _, r in first.values()):
            pair = [current] if previous is None else [previous, current]
            for extra in audit_sequences(pair, profile):
                if extra.hand_id == current.hand_id:
                    _add(by_key, key(place[id(current)]), extra)
