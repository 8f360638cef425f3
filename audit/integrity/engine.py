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

import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date

import duckdb
import numpy as np
import numpy.typing as npt

from audit.integrity.checks._common import Sums, unique_inverse
from audit.integrity.features import BatchView, Lookup, view
from audit.integrity.frames import BATCH_HANDS, Names, read_batches
from audit.integrity.model import Alert, Cell, Family, Level, alert_key
from audit.integrity.registry import TESTS, instances
from audit.integrity.replay import replay
from audit.integrity.stats import benjamini_hochberg
from audit.integrity.test import IntegrityTest, Settings
from audit.profiles import Profile, load_profile
from audit.workers import no_cyclic_gc

#: DuckDB's memory limit while the analysis reads the store (see :func:`_bounded_cache`).
READ_MEMORY = "256MB"
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
    """Per (kind, dealer) PIT histograms, accumulated batch by batch."""

    def __init__(self) -> None:
        self.sums = {kind: Sums(PIT_BINS + 2) for kind in KINDS}

    def add(self, v: BatchView) -> None:
        ok = ~np.isnan(v.dealt_u)
        self._add("dealt", v.seat_dealer[ok], v.dealt_u[ok])
        self._add("draw", v.draw_dealer, v.replayed.draws.u)

    def _add(self, kind: str, dealer: npt.NDArray[np.int32], u: npt.NDArray[np.float64]) -> None:
        if not len(u):
            return
        which = np.minimum((u * PIT_BINS).astype(np.int64), PIT_BINS - 1)
        unique, inverse = unique_inverse(dealer)
        block = np.empty((len(unique), PIT_BINS + 2))
        block[:, 0] = np.bincount(inverse, minlength=len(unique))
        block[:, 1] = np.bincount(inverse, weights=u, minlength=len(unique))
        block[:, 2:] = np.bincount(inverse * PIT_BINS + which, minlength=len(unique) * PIT_BINS
                                   ).reshape(len(unique), PIT_BINS)
        self.sums[kind].add_block(unique, block)

    def result(self, lookup: Lookup) -> list[PitBins]:
        out = []
        for kind in KINDS:
            keys, sums = self.sums[kind].totals()
            for key, row in zip(keys.tolist(), sums, strict=True):
                name = lookup.dealer(key)
                if name and row[0]:
                    out.append(PitBins(kind, name, int(row[0]), float(row[1] / row[0]),
                                       tuple(int(c) for c in row[2:])))
        return out


@contextmanager
def _bounded_cache(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """DuckDB's memory limit at :data:`READ_MEMORY` while the batches are read, then as it was.

    Each batch reads its seats and lines from the store's tables; DuckDB keeps the table
    blocks it has read cached up to its limit (80% of the machine by default), so without
    a bound the cache, and the process, grows with the store. Those blocks are never read
    twice here, and what a batch's queries need beyond them is small (or spills to disk).
    """
    before = con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]
    con.execute(f"SET memory_limit = '{READ_MEMORY}'")
    try:
        yield
    finally:
        con.execute(f"SET memory_limit = '{before}'")


def run_integrity(con: duckdb.DuckDBPyConnection, options: Options | None = None,
                  progress: Callable[[int], None] | None = None) -> IntegrityResult:
    """Analyse the stored hands in ``options``' window; ``progress`` gets the hands done."""
    with no_cyclic_gc():  # the cells are many small acyclic objects: nothing to collect
        return _run(con, options or Options(), progress)


def _run(con: duckdb.DuckDBPyConnection, options: Options,
         progress: Callable[[int], None] | None) -> IntegrityResult:
    started = time.perf_counter()
    tests = instances(options.settings, options.tests)
    names = Names()
    lookup = Lookup(names)
    bins = _Bins()
    result = IntegrityResult(options, [], [], [])
    with _bounded_cache(con):
        for batch in read_batches(con, options.profile, names, since=options.since,
                                  until=options.until, batch_hands=options.batch_hands):
            replayed = replay(batch, bobtail=options.profile.bobtail)
            v = view(batch, replayed, names)
            lookup.add_batch(batch)
            for test in tests:
                test.feed(v)
            bins.add(v)
            result.hands += len(batch)
            result.draws += len(replayed.draws.u)
            result.decisions += len(replayed.decisions.hand)
            result.irregular += int(replayed.irregular.sum())
            if progress is not None:
                progress(result.hands)
    lookup.freeze()
    result.alerts, result.tested = _judge(_Cells(tests, lookup, options.settings.fdr),
                                          options.settings, lookup)
    result.bins = bins.result(lookup)
    result.seconds = time.perf_counter() - started
    return result


#: A cell as ``integrity_tests`` keeps it, before its q-value: the fields of :class:`Tested`
#: up to ``p_value``.
_Row = tuple[str, Level, str, str | None, str | None, str | None, str | None, int, float, float,
             float, float, float, float]


class _Cells:
    """Every cell of a run, as a compact row; whole :class:`Cell` objects (their message,
    details and evidence) only for those that may pass the false discovery control.

    A cell is flagged when its q-value is at most the rate, and a Benjamini-Hochberg (or
    Yekutieli) q-value is never below its p-value: a cell whose p-value is above the rate
    cannot become an alert, so its message and details are not kept (the run judges
    hundreds of thousands of cells on a large store; a few become alerts).
    """

    #: Margin over the rate for the cells kept whole (rounding in the q-values).
    MARGIN = 2.0

    def __init__(self, tests: Iterable[IntegrityTest], lookup: Lookup, fdr: float) -> None:
        self.rows: list[_Row] = []
        self.whole: dict[int, Cell] = {}
        for test in tests:
            for c in test.cells(lookup):
                if c.p_value <= fdr * self.MARGIN:
                    self.whole[len(self.rows)] = c
                s = c.subject
                self.rows.append((c.code, c.level, s.key(), s.dealer_id, s.table_id, s.player_id,
                                  s.partner_id, c.n, float(c.observed), float(c.expected),
                                  float(c.effect), float(c.ci_low), float(c.ci_high),
                                  float(c.p_value)))


def _judge(cells: _Cells, settings: Settings, lookup: Lookup
           ) -> tuple[list[Alert], list[Tested]]:
    p = np.array([row[-1] for row in cells.rows], dtype=np.float64)
    q = benjamini_hochberg(p, dependent=settings.dependent)
    flagged = q <= settings.fdr
    tested = [Tested(*row, float(qv), bool(f))
              for row, qv, f in zip(cells.rows, q, flagged, strict=True)]
    order = sorted(np.nonzero(flagged)[0].tolist(), key=lambda i: (q[i], p[i], cells.rows[i][0]))
    alerts = [_alert(cells.whole[i], float(q[i]), rank, lookup) for rank, i in enumerate(order, 1)]
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
