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

import gzip
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np

from audit.batch import CheckReport, no_cyclic_gc, reference_check_paths
from audit.engine import AuditResult, audit_sequences, merge, sequence_pairs
from audit.fast.units import UNIT_BYTES, Unit, plan_units
from audit.fast.worker import (
    D_AMBIGUOUS,
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
    warm_pool,
)
from audit.profiles import Profile
from audit.registry import sequence_rules
from ingest.chunks import Chunk
from ingest.reader import QuarantineItem, read_chunk
from schemas.records import HandRecord

Key = tuple[int, int]  # (file number, first line): a hand's place in the input


def _map(units: Sequence[Unit], profile: Profile, workers: int) -> Iterator[UnitResult]:
    if workers <= 1 or len(units) <= 1:
        with no_cyclic_gc():
            yield from (check_unit(u, profile) for u in units)
        return
    with warm_pool(workers) as pool:
        yield from pool.map(check_unit, units, [profile] * len(units), chunksize=1)


def fast_check_paths(paths: Iterable[str | Path], profile: Profile, workers: int,
                     unit_bytes: int = UNIT_BYTES) -> CheckReport:
    """Audit every hand of ``paths``; the same report as the reference path."""
    plan = plan_units(paths, unit_bytes)
    parts = list(_map(plan.units, profile, workers))
    others = list(plan.others)
    report = CheckReport()
    by_key: dict[Key, AuditResult] = {}
    for part in parts:
        if part.empty:
            others.append(part.unit.path)
            continue
        report.problems.extend(part.problems)
        report.hands += int(part.deals[:, D_DEAL].sum())
        for row, result in part.results.items():
            by_key[(part.unit.file, int(part.deals[row, D_FIRST_LINE]))] = result
    if sequence_rules(profile):
        _pair_across_units(plan.files, parts, profile, by_key)
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
    """Hands re-read from their files by the main process (a .gz decompressed once)."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.unpacked: dict[int, bytes] = {}

    def _bytes(self, file: int, start: int, end: int) -> bytes:
        name = self.names[file]
        if not name.lower().endswith(".gz"):
            with open(name, "rb") as f:
                f.seek(start)
                return f.read(end - start)
        if file not in self.unpacked:
            with gzip.open(name, "rb") as f:
                self.unpacked[file] = f.read()
        return self.unpacked[file][start:end]

    def record(self, file: int, deal: np.ndarray) -> HandRecord | None:
        start, end = int(deal[D_BYTE_START]), int(deal[D_BYTE_END])
        flags = int(deal[D_FLAGS])
        chunk = Chunk(self._bytes(file, start, end), int(deal[D_FIRST_LINE]), start, end,
                      bool(flags & 1), bool(flags & 2))
        got = read_chunk(self.names[file], chunk)
        return None if isinstance(got, QuarantineItem) else got.record


def _pair_across_units(files: list[str], parts: list[UnitResult], profile: Profile,
                       by_key: dict[Key, AuditResult]) -> None:
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
    order = np.lexsort((np.arange(len(deals)), deals[:, D_TIME], deals[:, D_TABLE]))
    table, time = deals[order, D_TABLE], deals[order, D_TIME]
    same_table = np.concatenate(([False], table[1:] == table[:-1]))
    tie = same_table & np.concatenate(([False], time[1:] == time[:-1]))
    before = np.full(len(deals), -1)
    before[order[1:]] = np.where(same_table[1:], order[:-1], -1)
    # Equal times, or a hand id given twice: paired as the reference pairs them.
    _, first = np.unique(deals[:, [D_TABLE, D_HAND]], axis=0, return_index=True)
    repeated = np.ones(len(deals), dtype=bool)
    repeated[first] = False
    tied_tables = np.unique(np.concatenate((
        table[tie], deals[(deals[:, D_AMBIGUOUS] == 1) | repeated, D_TABLE])))
    tied = np.isin(deals[:, D_TABLE], tied_tables)
    local = deals[:, D_LOCAL_PREVIOUS]
    safe = np.maximum(before, 0)
    agrees = np.where(before < 0, local == -1,
                      (unit[safe] == unit) & (row[safe] == local))
    settled = agrees & (deals[:, D_J_DONE] == 1) & ~tied

    def key(g: int) -> Key:
        return (parts[int(unit[g])].unit.file, int(deals[g, D_FIRST_LINE]))

    for g in np.flatnonzero(settled).tolist():
        extra = parts[int(unit[g])].sequence_results.get(int(row[g]))
        if extra is not None:
            _add(by_key, key(g), extra)
    reread = _Files(files)

    def record(g: int) -> HandRecord | None:
        return reread.record(parts[int(unit[g])].unit.file, deals[g])

    for g in np.flatnonzero(~settled & ~tied).tolist():
        current = record(g)
        previous = record(int(before[g])) if before[g] >= 0 else None
        if current is None:
            continue
        pair = [current] if previous is None else [previous, current]
        for extra in audit_sequences(pair, profile):
            if extra.hand_id == current.hand_id:
                _add(by_key, key(g), extra)
    _redo_tied_tables(set(tied_tables.tolist()), table, order, record, key, profile, by_key)


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
