"""Keep an analysis run in the store (``schemas/ddl/40_integrity.sql``) and read alerts back.

A run is written in one transaction: its ``integrity_runs`` row, its alerts (kept for
every run: the history of each alert key), and, replacing the previous run's, every
cell judged and the per-dealer PIT histograms. A crash leaves the previous run whole.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import duckdb
import pyarrow as pa

from audit.integrity.engine import PIT_BINS, IntegrityResult, Options, run_integrity
from audit.integrity.test import Settings
from audit.profiles import Profile
from schemas.findings import finding_key
from schemas.store import transaction

METHODS = {False: "benjamini-hochberg", True: "benjamini-yekutieli"}


def store_result(con: duckdb.DuckDBPyConnection, result: IntegrityResult,
                 nightly_run_id: int | None = None) -> int:
    """Write ``result`` as a new integrity run; returns its id."""
    options = result.options
    settings = options.settings
    codes = sorted({t.code for t in result.tested})
    with transaction(con):
        row = con.execute(
            "INSERT INTO integrity_runs (computed_at, nightly_run_id, since, until, fdr, method, "
            "tail_share, tests, hands, draws, decisions, irregular, cells, alerts, seconds) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING integrity_run_id",
            [datetime.now(UTC), nightly_run_id, options.since, options.until, settings.fdr,
             METHODS[settings.dependent], settings.tail_share, ",".join(codes), result.hands,
             result.draws, result.decisions, result.irregular, len(result.tested),
             len(result.alerts), result.seconds],
        ).fetchall()
        run_id = int(row[0][0])
        con.execute("DELETE FROM integrity_tests")
        con.execute("DELETE FROM integrity_pit_bins")
        _insert(con, "integrity_alerts", _alerts_table(result, run_id))
        _insert(con, "integrity_tests", _tests_table(result, run_id))
        _insert(con, "integrity_pit_bins", _bins_table(result, run_id))
    return run_id


def _insert(con: duckdb.DuckDBPyConnection, name: str, table: pa.Table) -> None:
    if table.num_rows == 0:
        return
    con.register("_integrity_rows", table)
    try:
        columns = ", ".join(table.column_names)
        con.execute(f"INSERT INTO {name} ({columns}) SELECT {columns} FROM _integrity_rows")
    finally:
        con.unregister("_integrity_rows")


def _alerts_table(result: IntegrityResult, run_id: int) -> pa.Table:
    rows = [{
        "integrity_run_id": run_id, "alert_key": a.alert_key, "rank": a.rank, "code": a.code,
        "finding_key": finding_key(a.alert_key, a.code, None, None),
        "name": a.name, "family": a.family.value, "level": a.level.value,
        "dealer_id": a.subject.dealer_id, "table_id": a.subject.table_id,
        "player_id": a.subject.player_id, "partner_id": a.subject.partner_id,
        "sample": a.n, "statistic": a.statistic, "observed": a.observed,
        "expected": a.expected, "effect": a.effect, "effect_label": a.effect_label,
        "ci_low": a.ci_low, "ci_high": a.ci_high, "p_value": a.p_value, "q_value": a.q_value,
        "message": a.message, "hands": list(a.hands), "hands_total": a.hands_total,
        "first_time": _time(a.first_time), "last_time": _time(a.last_time),
        "evidence": json.dumps(a.evidence(), default=json_default),
    } for a in result.alerts]
    return pa.Table.from_pylist(rows, schema=_ALERTS) if rows else _ALERTS.empty_table()


#: ``integrity_tests`` column <- :class:`Tested` field.
_TESTS_COLUMNS = {
    "code": "code", "level": "level", "subject": "subject_key", "dealer_id": "dealer_id",
    "table_id": "table_id", "player_id": "player_id", "partner_id": "partner_id",
    "sample": "n", "observed": "observed", "expected": "expected", "effect": "effect",
    "ci_low": "ci_low", "ci_high": "ci_high", "p_value": "p_value", "q_value": "q_value",
    "flagged": "flagged",
}


def _tests_table(result: IntegrityResult, run_id: int) -> pa.Table:
    """Every cell judged, a column at a time (a run judges tens of thousands)."""
    tested = result.tested
    if not tested:
        return pa.table({})
    columns = {name: [getattr(t, field) for t in tested] for name, field in
               _TESTS_COLUMNS.items()}
    columns["level"] = [level.value for level in columns["level"]]
    return pa.table({"integrity_run_id": pa.array([run_id] * len(tested), pa.int64()),
                     **{name: pa.array(values) for name, values in columns.items()}})


def _bins_table(result: IntegrityResult, run_id: int) -> pa.Table:
    rows = [{
        "integrity_run_id": run_id, "kind": b.kind, "dealer_id": b.dealer_id, "n": b.n,
        "mean": b.mean, "bin": i, "bins": PIT_BINS, "count": c,
    } for b in result.bins for i, c in enumerate(b.counts)]
    return pa.Table.from_pylist(rows) if rows else pa.table({})


def _time(text: str | None) -> datetime | None:
    """An alert's local time text (``2026-11-28 21:04:12 -08:00``) as an instant."""
    return datetime.strptime(text, "%Y-%m-%d %H:%M:%S %z") if text else None


def json_default(value: object) -> object:
    """``json.dumps`` default: numpy scalars as plain numbers."""
    if hasattr(value, "item"):
        return value.item()  # numpy scalars
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


_ALERTS = pa.schema([
    ("integrity_run_id", pa.int64()), ("alert_key", pa.string()), ("rank", pa.int32()),
    ("code", pa.string()), ("name", pa.string()), ("family", pa.string()),
    ("level", pa.string()), ("dealer_id", pa.string()), ("table_id", pa.string()),
    ("player_id", pa.string()), ("partner_id", pa.string()), ("sample", pa.int64()),
    ("statistic", pa.string()), ("observed", pa.float64()), ("expected", pa.float64()),
    ("effect", pa.float64()), ("effect_label", pa.string()), ("ci_low", pa.float64()),
    ("ci_high", pa.float64()), ("p_value", pa.float64()), ("q_value", pa.float64()),
    ("message", pa.string()), ("hands", pa.list_(pa.string())), ("hands_total", pa.int64()),
    ("first_time", pa.timestamp("us", tz="UTC")), ("last_time", pa.timestamp("us", tz="UTC")),
    ("evidence", pa.string()), ("finding_key", pa.string()),
])


def latest_alerts(con: duckdb.DuckDBPyConnection) -> list[dict[str, object]]:
    """The latest run's alerts as dicts, best ranked first (for reports and scripts)."""
    cursor = con.execute("SELECT * FROM integrity_alerts_latest ORDER BY rank")
    names = [d[0] for d in cursor.description or ()]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def analyse_store(con: duckdb.DuckDBPyConnection, profile: Profile,
                  nightly_run_id: int | None = None, workers: int | None = None) -> IntegrityResult:
    """Analyse every stored hand at the house's false discovery rate and keep the run
    (``workers``: see :class:`audit.integrity.engine.Options`)."""
    result = run_integrity(con, Options(profile=profile, workers=workers,
                                        settings=Settings(fdr=profile.integrity_fdr)))
    store_result(con, result, nightly_run_id)
    return result
