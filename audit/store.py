"""Audit the hands in the store from its staging tables, and write the audit layer.

The hands to audit (all, or some ids) and the deals of their tables the J rules need
with them (from the last deal before them that carries nothing forward: a night's audit
reads its own hands and a few deals before them, not each table's history) are read
from ``stg_hands``, ``stg_seats`` and ``stg_actions`` by the main process
(:func:`audit.facts.staging.read_rows`, one join of each table per ``READ_HANDS``
hands, written as it comes to files the workers map: :mod:`audit.facts.shared_reads`);
batches of about ``BATCH_HANDS`` hands, cut anywhere in a table with the deals before
them the J rules need as context (:func:`_batches`), go to the workers, which take their
rows, make their arrays
(:func:`audit.facts.staging.staging_arrays`), replay them into facts and run the hand
rules and the J rules, and send back their audit rows as Arrow tables
(:func:`audit.results.result_rows`); :func:`audit.results.write_rows` replaces the
hands' rows as they come back. A stored hand with no
staging rows cannot be audited: it is counted (``StoreSummary.unaudited``) and gets an
error for every rule in ``audit_unverifiable``, never a silent pass.

``fast=False`` (``openers audit --reference``) reads each hand's raw text with the
reference parser and replays it in Python instead: the slower, independent path.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from audit.engine import AuditResult, merge, run_rules, run_sequence_rules
from audit.facts.arrays import TableMemory, process_memory
from audit.facts.columns import warm_up as columns_warm_up
from audit.facts.context import Batch
from audit.facts.deals import deals_of, pair
from audit.facts.labels import Labels, RecordLabels
from audit.facts.reference import reference_facts
from audit.facts.replay import replay_facts, warm_up
from audit.facts.sequence import Run
from audit.facts.shared_reads import SharedReads, StagedGroup, shared_reads
from audit.facts.staging import staging_arrays
from audit.facts.staging import warm_up as staging_warm_up
from audit.profiles import Profile
from audit.registry import hand_rules, sequence_rules
from audit.results import UNAUDITED, WRITE_HANDS, ResultRows, batch_rows, write_rows
from audit.stored_deals import HandIds, _batches, _stored
from audit.workers import default_workers, no_cyclic_gc, pool
from ingest.errors import HandParseError
from ingest.parser import parse_hand
from schemas.findings import Unverifiable
from schemas.raw import raw_rows_of
from schemas.records import HandRecord

#: Hands per batch (and their context: :func:`_batches`): a worker replays and checks a
#: batch at a time, in memory of its size.
BATCH_HANDS = 2000
#: Hands read from the store at a time (whole batches): each read joins every staging
#: table once (over the row groups of its id range), so few large reads cost less than one
#: per batch; the main process holds a read's Arrow tables while it writes them to the files
#: the workers map, and the reads in flight (about 3 KB a hand), so a read is kept to 10,000
#: hands.
READ_HANDS = 10000


@dataclass(frozen=True, slots=True)
class StoreSummary:
    """What ``audit_store`` did."""

    hands: int
    findings: int
    unverifiable: int
    #: Rules that crashed on a hand (counted in ``unverifiable`` too, reason "internal error").
    errors: int = 0
    #: Stored hands that could not be audited at all (no staging rows, unreadable text).
    unaudited: int = 0




def _unaudited(hand_id: str, table_id: str | None, profile: Profile, why: str
               ) -> AuditResult:
    out = AuditResult(hand_id, table_id or "")
    codes = [r.code for r in hand_rules(profile)] + [r.code for r in sequence_rules(profile)]
    for code in codes:
        u = Unverifiable.model_construct(code=code, hand_id=hand_id, table_id=table_id or "",
                                         seat=None, reason=f"{UNAUDITED}: {why}")
        out.unverifiable.append(u)
        out.errors.append(u)
    return out


def _unaudited_of(items: pa.Table, profile: Profile, why: str) -> list[AuditResult]:
    """The results of the hands asked for among ``items`` (not their context) that
    cannot be audited (few: a Python object each is no cost)."""
    return [_unaudited(h, t, profile, why) for h, t, c in zip(
        items.column("hand_id").to_pylist(), items.column("table_id").to_pylist(),
        items.column("context").to_pylist(), strict=True) if not c]


def _records(con: duckdb.DuckDBPyConnection, ids: list[str]
             ) -> list[HandRecord | None]:
    """The reference parser's records of stored hands (their raw text), None if unreadable."""
    con.register("_audit_text", pa.table({"hand_id": pa.array(ids, pa.string()),
                                           "ordinal": pa.array(np.arange(len(ids)))}))
    try:
        rows = con.execute("SELECT r.raw_text, r.first_line, r.form FROM _audit_text o JOIN "
                           "(SELECT hand_id, raw_text, first_line, form FROM raw_hands WHERE "
                           f"{raw_rows_of('_audit_text')}) r USING (hand_id) "
                           "ORDER BY o.ordinal").fetchall()
    finally:
        con.unregister("_audit_text")
    out: list[HandRecord | None] = []
    for text, first_line, form in rows:
        try:
            out.append(HandRecord.model_validate_json(text) if form == "jsonl"
                       else parse_hand(text, first_line=first_line))
        except (HandParseError, ValueError):
            out.append(None)
    return out


@dataclass(slots=True)
class _Work:
    """One batch as a worker gets it: its hands that can be audited (columns ``hand_id``,
    ``table_id``, ``context``: Arrow buffers, not an object a hand, cross to the worker)
    and their staging rows or their records (the worker makes the arrays: the main
    process only reads the store), and the results of those that cannot."""

    size: int  #: every hand of the batch, context included
    staged: pa.Table
    rows: StagedGroup | None = None
    records: list[HandRecord] | None = None
    results: list[AuditResult] = field(default_factory=list)


def _prepare(con: duckdb.DuckDBPyConnection, items: pa.Table, profile: Profile,
             fast: bool) -> _Work:
    """A batch without its rows: those it cannot audit are given their results."""
    has_rows = pc.is_valid(items.column("table_id"))
    work = _Work(items.num_rows, items.filter(has_rows).combine_chunks())
    if work.staged.num_rows < items.num_rows:
        work.results = _unaudited_of(items.filter(pc.invert(has_rows)), profile,
                                     "it has no staging rows (ingest it again)")
    if fast:
        return work
    parsed = _records(con, work.staged.column("hand_id").to_pylist())
    readable = pa.array([r is not None for r in parsed], pa.bool_())
    work.results += _unaudited_of(work.staged.filter(pc.invert(readable)), profile,
                                  "its raw text no longer parses")
    work.staged = work.staged.filter(readable)
    work.records = [r for r in parsed if r is not None]
    return work


def _works(con: duckdb.DuckDBPyConnection, items: pa.Table, profile: Profile,
           fast: bool, reads: SharedReads) -> Iterator[_Work]:
    """The batches of ``items`` with their rows, read from the store (the main process
    holds the connection) about ``READ_HANDS`` hands at a time."""
    read: list[_Work] = []
    for part in _batches(items, BATCH_HANDS):
        read.append(_prepare(con, part, profile, fast))
        if not fast:
            yield read.pop()
        elif sum(w.size for w in read) >= READ_HANDS:
            yield from _fetched(con, read, reads)
            read = []
    if read:
        yield from _fetched(con, read, reads)


def _fetched(con: duckdb.DuckDBPyConnection, works: list[_Work], reads: SharedReads
             ) -> list[_Work]:
    rows = reads.stage(con, [_array(w.staged.column("hand_id")) for w in works])
    for work, part in zip(works, rows, strict=True):
        work.rows = part
    return works


def _array(column: pa.ChunkedArray) -> pa.Array:
    return column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)


def _audit_batch(work: _Work, profile: Profile, memory: TableMemory | None = None
                 ) -> ResultRows:
    """Replay and check one batch (runs in a worker, in the worker's
    memory: see :class:`TableMemory`); its audit rows."""
    with no_cyclic_gc():
        labels: Labels
        if work.records is None:
            assert work.rows is not None
            memory = memory or process_memory()
            arrays, labels = staging_arrays(work.rows.rows(), memory)
            facts = replay_facts(arrays, profile, memory)
        else:
            memory = None
            facts = reference_facts(work.records, profile)
            labels = RecordLabels(work.records)
        ctx = Batch(facts, profile, labels, memory)
        found = run_rules(ctx, hand_rules(profile))
        rules = sequence_rules(profile)
        if rules:
            deals = deals_of(ctx, np.arange(work.staged.num_rows))
            previous = pair(deals, labels.hand_id)
            for deal, extra in run_sequence_rules(
                    Run(deals, previous, profile, labels), rules).items():
                mine = found.get(deal)
                if mine is None:
                    found[deal] = extra
                else:
                    merge([mine], [extra])
        return batch_rows(work.staged, found, work.results, profile.name)


def audit_store(con: duckdb.DuckDBPyConnection, profile: Profile,
                hand_ids: HandIds | None = None, *, workers: int | None = None,
                fast: bool = True, progress: Callable[[int], None] | None = None,
                ) -> StoreSummary:
    """Audit the stored hands (all, or ``hand_ids``) and replace their audit rows.

    The main process reads each batch from the store; ``workers``
    forked processes replay and check them while it reads the next. ``progress(n)``
    is called as each batch of ``n`` hands is checked.
    """
    workers = workers or default_workers()
    # The audit reads and writes through a connection of its own to the same store: a
    # result the caller left unread on ``con`` (DuckDB then refuses new relations) is
    # none of its business. ``con`` must not be inside a transaction.
    own = con.cursor()
    try:
        return _audit(own, profile, hand_ids, workers, fast, progress)
    finally:
        own.close()


def _audit(con: duckdb.DuckDBPyConnection, profile: Profile, hand_ids: HandIds | None,
           workers: int, fast: bool, progress: Callable[[int], None] | None) -> StoreSummary:
    with shared_reads() as reads:
        parts = _works(con, _stored(con, hand_ids), profile, fast, reads)
        results = _Collected(con, profile, progress)
        first = next(parts, None)
        second = next(parts, None) if first is not None else None
        if second is None or workers <= 1:
            # One batch (a nightly run of new hands, usually): no pool to start or to orphan.
            memory = TableMemory()  # this audit's, not kept in the caller's process after it
            for work in itertools.chain((w for w in (first, second) if w is not None), parts):
                results.extend(_audit_batch(work, profile, memory))
                _done(reads, work)
        else:
            if fast:  # the workers are forked with the compiled code loaded
                warm_up()
                staging_warm_up()
                columns_warm_up()
            with pool(workers) as executor:
                # Batches in flight are bounded (two per worker: one running, one queued
                # behind it while the main process reads): memory stays a few batches
                # whatever the store.
                pending: deque[tuple[_Work, Future[ResultRows]]] = deque(
                    (w, executor.submit(_audit_batch, w, profile)) for w in (first, second)
                    if w)
                for work in parts:
                    if len(pending) > 2 * workers:
                        _collect(results, reads, *pending.popleft())
                    pending.append((work, executor.submit(_audit_batch, work, profile)))
                while pending:
                    _collect(results, reads, *pending.popleft())
        results.write()
        return results.summary


def _collect(results: _Collected, reads: SharedReads, work: _Work,
             future: Future[ResultRows]) -> None:
    results.extend(future.result())
    _done(reads, work)


def _done(reads: SharedReads, work: _Work) -> None:
    if work.rows is not None:
        reads.done(work.rows)


class _Collected:
    """The audit rows of the batches as they come back: told to ``progress``, counted, and
    written about ``WRITE_HANDS`` hands at a time (memory holds counts, not every hand's
    result; a hand audited again has its rows replaced, so a run killed after some writes
    and redone ends the same)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, profile: Profile,
                 progress: Callable[[int], None] | None) -> None:
        self.con, self.profile, self.progress = con, profile, progress
        self.waiting: list[ResultRows] = []
        self.waiting_hands = 0
        self.summary = StoreSummary(0, 0, 0)

    def extend(self, part: ResultRows) -> None:
        self.waiting.append(part)
        self.waiting_hands += part.hands.num_rows
        if self.progress is not None:
            self.progress(part.hands.num_rows)
        if self.waiting_hands >= WRITE_HANDS:
            self.write()

    def write(self) -> None:
        done, self.waiting, self.waiting_hands = self.waiting, [], 0
        write_rows(self.con, done)
        s = self.summary
        self.summary = StoreSummary(
            s.hands + sum(p.hands.num_rows for p in done),
            s.findings + sum(p.findings.num_rows for p in done),
            s.unverifiable + sum(p.unverifiable.num_rows for p in done),
            s.errors + sum(p.errors for p in done),
            s.unaudited + sum(p.unaudited for p in done))
