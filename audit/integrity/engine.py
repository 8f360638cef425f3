"""Run the integrity tests over the store and turn the significant cells into alerts.

One pass over the stored hands (:func:`audit.integrity.frames.read_batches`, in table
order, a batch at a time so memory stays flat): each batch is replayed once by the
compiled pass and shown to every test. Then every test gives its cells, the
Benjamini-Hochberg procedure runs over all of them together at the house's false
discovery rate, and the cells that pass become ranked :class:`Alert` objects whose
hands are named. The per-dealer PIT histograms for the dashboard's fairness plots
are gathered in the same pass.

What the tests keep between batches is per-key sums (bounded by the players, dealers,
tables and pairs, not the hands); what grows with the hands (the pair tests' decision
log, the evidence events) goes to temporary files, read back only for the linked
players and the alerted cells. Cells are kept as compact rows, whole only when they
could become alerts (:class:`_Cells`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, closing, contextmanager, suppress
from dataclasses import dataclass, field, replace
from datetime import date
from functools import partial

import duckdb
import numpy as np
import numpy.typing as npt

from audit.integrity.ahead import read_ahead
from audit.integrity.checks._common import unique_inverse
from audit.integrity.checks._sums import Sums
from audit.integrity.features import BatchView, Lookup, view
from audit.integrity.frames import BATCH_HANDS, Names, count_hands, read_batches
from audit.integrity.heap import kept_heap, trim_heap
from audit.integrity.laws import hand_law
from audit.integrity.model import Alert, Cell, Evidence, Family, Level, alert_key
from audit.integrity.parallel import (
    IntegrityWorker,
    forked_worker,
    lean,
    use_worker,
    worker_share,
)
from audit.integrity.registry import TESTS, instances
from audit.integrity.replay import replay
from audit.integrity.rows import Compact, Row, compact
from audit.integrity.stats import benjamini_hochberg
from audit.integrity.test import IntegrityTest, Settings
from audit.profiles import Profile, load_profile
from audit.workers import no_cyclic_gc

#: DuckDB's memory limit while the analysis reads the store (see :func:`_bounded_cache`).
READ_MEMORY = "256MB"
#: DuckDB's memory limit for a moment once the batches are read: its cache emptied.
DROP_MEMORY = "16MB"
#: Bins of the per-dealer PIT histograms.
PIT_BINS = 20
KINDS = ("dealt", "draw")


@dataclass(frozen=True)
class Options:
    """What to analyse and how."""

    since: date | None = None
    until: date | None = None
    settings: Settings = field(default_factory=Settings)
    #: Codes or prefixes of the tests to run (None: all).
    tests: tuple[str, ...] | None = None
    profile: Profile = field(default_factory=lambda: load_profile("robert"))
    batch_hands: int = BATCH_HANDS
    #: Worker processes for a share of the tests (:mod:`audit.integrity.parallel`): 0 or 1,
    #: None for one when this process may use two cores or more.
    workers: int | None = None


@dataclass(frozen=True)
class Tested:
    """One cell as stored in ``integrity_tests`` (every cell, flagged or not)."""

    code: str
    level: Level
    subject_key: str
    dealer_id: str | None
    table_id: str | None
    player_id: str | None
    partner_id: str | None
    n: int
    observed: float
    expected: float
    effect: float
    ci_low: float
    ci_high: float
    p_value: float
    q_value: float
    flagged: bool


@dataclass(frozen=True)
class PitBins:
    """Histogram of one dealer's PITs of one kind (``dealt`` or ``draw``)."""

    kind: str
    dealer_id: str
    n: int
    mean: float
    counts: tuple[int, ...]


@dataclass
class IntegrityResult:
    """Everything one run found."""

    options: Options
    alerts: list[Alert]
    tested: list[Tested]
    bins: list[PitBins]
    hands: int = 0
    draws: int = 0
    decisions: int = 0
    irregular: int = 0
    seconds: float = 0.0

    def cells_by_code(self) -> dict[str, int]:
        """How many cells each test judged."""
        out: dict[str, int] = {}
        for t in self.tested:
            out[t.code] = out.get(t.code, 0) + 1
        return out


class _Bins:
    """Per (kind, dealer) PIT histograms and sums of PITs, accumulated batch by batch."""

    def __init__(self) -> None:
        self.sums = {kind: Sums(1, fractional=(0,)) for kind in KINDS}
        self.counts = {kind: Sums(PIT_BINS) for kind in KINDS}

    def add(self, v: BatchView) -> None:
        ok = ~np.isnan(v.dealt_u)
        self._add("dealt", v.seat_dealer[ok], v.dealt_u[ok])
        self._add("draw", v.draw_dealer, v.replayed.draws.u)

    def _add(self, kind: str, dealer: npt.NDArray[np.int32], u: npt.NDArray[np.float64]) -> None:
        if not len(u):
            return
        which = np.minimum((u * PIT_BINS).astype(np.int64), PIT_BINS - 1)
        unique, inverse = unique_inverse(dealer)
        self.counts[kind].add_block(unique, np.bincount(
            inverse * PIT_BINS + which, minlength=len(unique) * PIT_BINS
        ).reshape(len(unique), PIT_BINS))
        self.sums[kind].add(dealer.astype(np.int64), u)

    def result(self, lookup: Lookup) -> list[PitBins]:
        out = []
        for kind in KINDS:
            keys, counts = self.counts[kind].totals()
            summed_keys, sums = self.sums[kind].totals()
            assert np.array_equal(keys, summed_keys)  # a dealer's PITs fall in some bin
            for key, row, total in zip(keys.tolist(), counts, sums[:, 0], strict=True):
                name = lookup.dealer(key)
                n = int(row.sum())
                if name and n:
                    out.append(PitBins(kind, name, n, float(total / n),
                                       tuple(int(c) for c in row)))
        return out


@contextmanager
def _bounded_cache(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """DuckDB's memory limit at :data:`READ_MEMORY` while the batches are read; then the
    blocks cached meanwhile dropped, the heap's free pages given back, and the limit set
    as it was.

    Each batch reads its seats and lines from the store's tables; DuckDB keeps the table
    blocks it has read cached up to its limit (80% of the machine by default), so without
    a bound the cache, and the process, grows with the store. Those blocks are never read
    twice here, and what a batch's queries need beyond them is small (or spills to disk).
    Lowering the limit evicts at once. Entered before the worker is forked, what the
    job's earlier stages (ingest, audit) left cached is dropped first: the worker would
    start with it, and keep it as its own once the main process evicts it (on a million
    hands ~220 MiB). And what the reading cached is dropped before the process waits
    for the worker and judges the cells.
    """
    before = con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
    _drop_cache(con)
    con.execute(f"SET memory_limit = '{READ_MEMORY}'")
    try:
        yield
    finally:
        _drop_cache(con)
        con.execute(f"SET memory_limit = '{before}'")
        trim_heap()


def _drop_cache(con: duckdb.DuckDBPyConnection) -> None:
    """Evict DuckDB's cached blocks (the limit at :data:`DROP_MEMORY`; set another after)."""
    with suppress(duckdb.Error):  # blocks still pinned: they stay
        con.execute(f"SET memory_limit = '{DROP_MEMORY}'")


def _feed(tests: Iterable[IntegrityTest], v: BatchView | None) -> None:
    if v is not None:
        for test in tests:
            test.feed(v)


@contextmanager
def _laws_ahead() -> Iterator[threading.Thread]:
    """The hand laws (:func:`audit.integrity.laws.hand_law`, a few tenths of a second of
    compiled and sorting work that releases the interpreter) built in a thread while the
    first batch is read; join it before the first view. The thread only fills the laws'
    cache: should it fail, the view builds them again and raises."""
    ahead = threading.Thread(target=_build_laws, name="openers-hand-laws", daemon=True)
    ahead.start()
    try:
        yield ahead
    finally:
        ahead.join()


def _build_laws() -> None:
    with suppress(Exception):  # the view builds them again, and raises
        for joker in (False, True):
            hand_law(joker)


def run_integrity(con: duckdb.DuckDBPyConnection, options: Options | None = None,
                  progress: Callable[[int], None] | None = None) -> IntegrityResult:
    """Analyse the stored hands in ``options``' window; ``progress`` gets the hands done."""
    # the cells are many small acyclic objects: nothing to collect; each batch's arrays
    # reuse the last one's memory (audit.integrity.heap)
    with no_cyclic_gc(), kept_heap():
        return _run(con, options or Options(), progress)


def _run(con: duckdb.DuckDBPyConnection, options: Options,
         progress: Callable[[int], None] | None) -> IntegrityResult:
    started = time.perf_counter()
    tests = instances(options.settings, options.tests)
    fdr = options.settings.fdr
    names = Names()
    lookup = Lookup(names)
    bins = _Bins()
    result = IntegrityResult(options, [], [], [])
    with ExitStack() as stack:
        codes = [test.code for test in tests]
        # DuckDB's cache bounded before the worker is forked (see _bounded_cache), and
        # emptied once the batches are read (when `reading` closes).
        reading = stack.enter_context(ExitStack())
        reading.enter_context(_bounded_cache(con))
        share: list[str] = []
        if use_worker(options.workers):
            hands = count_hands(con, since=options.since, until=options.until)
            share = worker_share(codes, -(-hands // options.batch_hands))
        worker = stack.enter_context(forked_worker(share, options.settings)) if share else None
        local = [test for test in tests if worker is None or test.code not in worker.codes]
        laws = stack.enter_context(_laws_ahead())  # after the fork: no thread is forked
        held: BatchView | None = None
        batches = read_ahead(read_batches(con, options.profile, names, since=options.since,
                                          until=options.until, batch_hands=options.batch_hands))
        reading.enter_context(closing(batches))
        with reading:
            for batch in batches:
                replayed = replay(batch, bobtail=options.profile.bobtail)
                laws.join()
                v = view(batch, replayed, names)
                lookup.add_batch(batch)
                bins.add(v)
                if worker is None:
                    for test in local:
                        test.feed(v)
                else:
                    worker.feed(v)
                    # This process's tests take the previous batch: the worker gets each
                    # batch as soon as it is read (its lines dropped, as the worker's).
                    _feed(local, held)
                    held = lean(v) if local else None
                result.hands += len(batch)
                result.draws += len(replayed.draws.u)
                result.decisions += len(replayed.decisions.hand)
                result.irregular += int(replayed.irregular.sum())
                if progress is not None:
                    progress(result.hands)
                # not held while the next batch is read, nor the last one to the end
                del batch, replayed, v
        if worker is not None:  # every batch sent, every name known: the worker judges its
            worker.ask_cells(names, fdr)  # tests while this process feeds and judges its own
        _feed(local, held)
        del held
        lookup.freeze()
        found = {test.code: compact(test.cells(lookup), fdr) for test in local}
        remote = worker.cells() if worker is not None else {}
        cells = _Cells([(remote[code], worker) if code in remote else (found[code], None)
                        for code in codes])
        result.alerts, result.tested = _judge(cells, options.settings, lookup)
    result.bins = bins.result(lookup)
    result.seconds = time.perf_counter() - started
    return result


class _Cells:
    """Every cell of a run, as a compact row (:mod:`audit.integrity.rows`), in the
    registry's order; whole :class:`Cell` objects (their message, details and evidence)
    only for those that may pass the false discovery control.

    The cells of the worker's tests come without their evidence: :meth:`alerted` brings
    it for those that became alerts, in one request.
    """

    def __init__(self, tests: Iterable[tuple[Compact, IntegrityWorker | None]]) -> None:
        self.rows: list[Row] = []
        self.whole: dict[int, Cell] = {}
        #: Cells of the worker's tests: row -> (code, index among its test's cells).
        self._remote: dict[int, tuple[str, int]] = {}
        self._worker: IntegrityWorker | None = None
        for (rows, whole), worker in tests:
            for index, cell in whole.items():
                self.whole[len(self.rows) + index] = cell
                if worker is not None:
                    self._remote[len(self.rows) + index] = (cell.code, index)
                    self._worker = worker
            self.rows.extend(rows)

    def alerted(self, rows: list[int]) -> list[Cell]:
        """The whole cells of ``rows``, with their evidence."""
        remote = [i for i in rows if i in self._remote]
        if remote and self._worker is not None:
            found = self._worker.evidence([self._remote[i] for i in remote])
            for i, evidence in zip(remote, found, strict=True):
                self.whole[i] = replace(self.whole[i], evidence=partial(_given, evidence))
                del self._remote[i]
        return [self.whole[i] for i in rows]


def _given(evidence: Evidence) -> Evidence:
    return evidence


def _judge(cells: _Cells, settings: Settings, lookup: Lookup
           ) -> tuple[list[Alert], list[Tested]]:
    p = np.array([row[-1] for row in cells.rows], dtype=np.float64)
    q = benjamini_hochberg(p, dependent=settings.dependent)
    flagged = q <= settings.fdr
    tested = [Tested(*row, float(qv), bool(f))
              for row, qv, f in zip(cells.rows, q, flagged, strict=True)]
    order = sorted(np.nonzero(flagged)[0].tolist(), key=lambda i: (q[i], p[i], cells.rows[i][0]))
    alerts = [_alert(cell, float(q[i]), rank, lookup)
              for rank, (i, cell) in enumerate(zip(order, cells.alerted(order), strict=True), 1)]
    return alerts, tested


def _alert(cell: Cell, q: float, rank: int, lookup: Lookup) -> Alert:
    evidence = cell.evidence()
    rows = evidence.rows
    times = [lookup.time_ms(r) for r in rows]
    test = TESTS[cell.code]
    return Alert(
        alert_key=alert_key(cell.code, cell.subject), rank=rank, code=cell.code, name=test.name,
        family=Family(test.family), level=cell.level, subject=cell.subject, n=cell.n,
        statistic=cell.statistic, observed=float(cell.observed), expected=float(cell.expected),
        effect=float(cell.effect), effect_label=cell.effect_label, ci_low=float(cell.ci_low),
        ci_high=float(cell.ci_high), p_value=float(cell.p_value), q_value=q,
        message=cell.message,
        hands=tuple(lookup.hand_id(r) for r in rows),
        hand_notes=tuple(evidence.notes),
        hands_total=evidence.count,
        first_time=lookup.time_text(rows[int(np.argmin(times))]) if len(rows) else None,
        last_time=lookup.time_text(rows[int(np.argmax(times))]) if len(rows) else None,
        details=cell.details,
    )


def flagged_codes(alerts: Iterable[Alert]) -> dict[str, int]:
    """Alerts per test code."""
    out: dict[str, int] = {}
    for a in alerts:
        out[a.code] = out.get(a.code, 0) + 1
    return out
