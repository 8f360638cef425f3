"""Quiet nights that are not fine: missing data is a finding of the run.

An audit of nothing finds nothing. A night when the inbox was empty, when a table
that dealt the night before sent no hand, or when far fewer hands arrived than
usual is reported as a *data-quality finding* of the run, with a severity the
scheduler can fail on (``--fail-on-quality``), and stored in ``ops_data_quality``
(public view ``data_quality``, ``schemas/ddl/76_data_quality.sql``).

What is expected is learned from the store's history of runs (a run is a night):

- the tables expected tonight are those that sent hands to the last earlier run
  that received any ("dealt yesterday"), and those the house file names;
- the usual volume is the median of the hands received by the last
  ``history_runs`` runs that received any (needing ``min_history`` of them), or
  the house file's ``hands``; fewer than ``low_volume_ratio`` of it is low.

The house file (the ``--profile`` TOML) may set them in a ``[nightly]`` table::

    [nightly]
    tables = ["T01", "T02"]      # expected every night, besides the learned ones
    hands = 2400                 # the usual hands per night (else learned)
    low_volume_ratio = 0.5
    history_runs = 14
    min_history = 3
    severity = { silent-table = "critical" }
"""

from __future__ import annotations

import json
import statistics
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

import duckdb

from audit.house import BUILTIN, ProfileError
from schemas.findings import Severity


class QualityCode(StrEnum):
    """What is wrong with the night's data."""

    NO_NEW_HANDS = "no-new-hands"  # the run stored no new hand (empty inbox, nothing new)
    SILENT_TABLE = "silent-table"  # an expected table sent no hand
    LOW_VOLUME = "low-volume"  # far fewer hands than usual


DEFAULT_SEVERITY: Mapping[QualityCode, Severity] = {
    QualityCode.NO_NEW_HANDS: Severity.CRITICAL,
    QualityCode.SILENT_TABLE: Severity.MAJOR,
    QualityCode.LOW_VOLUME: Severity.MAJOR,
}


@dataclass(frozen=True)
class Expectations:
    """What a night should bring (the house file's ``[nightly]`` table, else defaults)."""

    tables: frozenset[str] = frozenset()
    hands: int | None = None
    low_volume_ratio: float = 0.5
    history_runs: int = 14
    min_history: int = 3
    severity: Mapping[QualityCode, Severity] = field(
        default_factory=lambda: dict(DEFAULT_SEVERITY))


@dataclass(frozen=True)
class QualityFinding:
    """One data-quality finding of a run."""

    code: QualityCode
    severity: Severity
    message: str
    table_id: str | None = None
    observed: int | None = None
    expected: int | None = None
    evidence: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Intake:
    """What the run received: files seen and skipped, hands stored, hands quarantined."""

    files_seen: int
    files_skipped: int
    hands: int
    quarantined: int


def load_expectations(profile: str) -> Expectations:
    """The ``[nightly]`` table of the house file ``profile`` (defaults for a built-in).

    Raises :class:`ProfileError` naming a bad key, as the profile itself does.
    """
    if profile in BUILTIN or not Path(profile).is_file():
        return Expectations()
    try:
        data = tomllib.loads(Path(profile).read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError) as exc:
        raise ProfileError(f"{profile}: cannot be read: {exc}") from exc
    section = data.get("nightly", {})
    where = f"{profile}: [nightly]"
    if not isinstance(section, dict):
        raise ProfileError(f"{where} must be a table")
    return _expectations(section, where)


def _expectations(section: Mapping[str, Any], where: str) -> Expectations:
    known = {"tables", "hands", "low_volume_ratio", "history_runs", "min_history", "severity"}
    for key in section:
        if key not in known:
            raise ProfileError(f"{where}: unknown key {key!r} (keys: {', '.join(sorted(known))})")
    changes: dict[str, Any] = {}
    tables = section.get("tables", [])
    if not isinstance(tables, list) or not all(isinstance(t, str) and t for t in tables):
        raise ProfileError(f"{where}: key 'tables' must be a list of table ids")
    changes["tables"] = frozenset(tables)
    for key, low in (("hands", 1), ("history_runs", 1), ("min_history", 1)):
        if key in section:
            value = section[key]
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ProfileError(f"{where}: key {key!r} must be a whole number >= {low}")
            changes[key] = value
    if "low_volume_ratio" in section:
        ratio = section["low_volume_ratio"]
        if isinstance(ratio, bool) or not isinstance(ratio, int | float) or not 0 < ratio <= 1:
            raise ProfileError(f"{where}: key 'low_volume_ratio' must be a number in (0, 1]")
        changes["low_volume_ratio"] = float(ratio)
    severity = dict(DEFAULT_SEVERITY)
    given = section.get("severity", {})
    if not isinstance(given, dict):
        raise ProfileError(f"{where}: key 'severity' must be a table")
    for code, value in given.items():
        try:
            severity[QualityCode(code)] = Severity(value)
        except ValueError:
            raise ProfileError(
                f"{where}: key 'severity.{code}' must name a data-quality code "
                f"({', '.join(QualityCode)}) and a severity ({', '.join(Severity)})"
            ) from None
    changes["severity"] = severity
    return Expectations(**changes)


def assess(con: duckdb.DuckDBPyConnection, run_id: int, intake: Intake,
           expect: Expectations) -> list[QualityFinding]:
    """The data-quality findings of run ``run_id``, whose claimed hands are in
    ``ops_run_hands`` (call after :func:`openers.nightly.runs.claim_new`)."""
    if intake.hands == 0:
        return [_no_new_hands(intake, expect)]
    history = _history(con, run_id, expect.history_runs)
    tonight = _tables_of(con, run_id)
    found = [_silent(table, history, expect) for table in _expected_tables(history, expect)
             if table not in tonight]
    low = _low_volume(intake.hands, history, expect)
    return found + ([low] if low is not None else [])


def _no_new_hands(intake: Intake, expect: Expectations) -> QualityFinding:
    if intake.files_seen == 0:
        why = "the inbox holds no hand log"
    elif intake.quarantined:
        why = f"{intake.quarantined} hand(s) arrived and every one was quarantined"
    else:
        why = f"all {intake.files_seen} file(s) in the inbox were read by earlier runs"
    return QualityFinding(
        QualityCode.NO_NEW_HANDS, expect.severity[QualityCode.NO_NEW_HANDS],
        f"no new hand this run: {why}", observed=0,
        evidence={"files_seen": intake.files_seen, "files_skipped": intake.files_skipped,
                  "quarantined": intake.quarantined},
    )


@dataclass(frozen=True)
class _Run:
    run_id: int
    started: str
    hands: int
    tables: Mapping[str, int]


def _history(con: duckdb.DuckDBPyConnection, run_id: int, limit: int) -> list[_Run]:
    """The last ``limit`` finished runs before ``run_id`` that received hands, newest first."""
    rows = con.execute(
        "SELECT run_id, CAST(started_at AS VARCHAR), hands FROM ops_runs "
        "WHERE run_id < ? AND status IN ('ok', 'findings') AND hands > 0 "
        "ORDER BY run_id DESC LIMIT ?", [run_id, limit],
    ).fetchall()
    return [_Run(int(r), str(s), int(h), _tables_of(con, int(r))) for r, s, h in rows]


def _tables_of(con: duckdb.DuckDBPyConnection, run_id: int) -> dict[str, int]:
    """Hands claimed by ``run_id``, per table."""
    rows = con.execute(
        "SELECT h.table_id, count(*) FROM ops_run_hands r JOIN hands h USING (hand_id) "
        "WHERE r.run_id = ? GROUP BY h.table_id", [run_id],
    ).fetchall()
    return {str(table): int(n) for table, n in rows}


def _expected_tables(history: Sequence[_Run], expect: Expectations) -> list[str]:
    learned = set(history[0].tables) if history else set()
    return sorted(learned | expect.tables)


def _silent(table: str, history: Sequence[_Run], expect: Expectations) -> QualityFinding:
    last = history[0] if history else None
    dealt = last.tables.get(table, 0) if last is not None else 0
    if last is not None and dealt:
        why = f"it sent {dealt} hand(s) to run {last.run_id} (started {last.started})"
    else:
        why = "the house file expects it every night"
    return QualityFinding(
        QualityCode.SILENT_TABLE, expect.severity[QualityCode.SILENT_TABLE],
        f"table {table} sent no hand this run; {why}", table_id=table, observed=0,
        expected=dealt or None,
        evidence={"previous_run": last.run_id if last else None, "previous_hands": dealt,
                  "house_file": table in expect.tables},
    )


def _low_volume(hands: int, history: Sequence[_Run],
                expect: Expectations) -> QualityFinding | None:
    if expect.hands is not None:
        usual, basis = expect.hands, "the house file's expected hands per night"
    elif len(history) >= expect.min_history:
        usual = int(statistics.median(run.hands for run in history))
        basis = f"the median of the last {len(history)} runs that received hands"
    else:
        return None
    if hands >= expect.low_volume_ratio * usual:
        return None
    return QualityFinding(
        QualityCode.LOW_VOLUME, expect.severity[QualityCode.LOW_VOLUME],
        f"{hands} new hand(s) this run, far fewer than usual: {usual} ({basis}); "
        f"the threshold is {expect.low_volume_ratio:.0%} of it",
        observed=hands, expected=usual,
        evidence={"usual": usual, "basis": basis, "ratio": expect.low_volume_ratio,
                  "history_runs": [run.run_id for run in history]},
    )


def record(con: duckdb.DuckDBPyConnection, run_id: int,
           findings: Sequence[QualityFinding]) -> dict[Severity, int]:
    """Store the run's data-quality findings; returns how many of each severity."""
    for f in findings:
        con.execute(
            "INSERT INTO ops_data_quality (run_id, code, severity, table_id, observed, expected,"
            " message, evidence) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [run_id, f.code.value, f.severity.value, f.table_id, f.observed, f.expected,
             f.message, json.dumps(dict(f.evidence), sort_keys=True)],
        )
    tally = {severity: 0 for severity in Severity}
    for f in findings:
        tally[f.severity] += 1
    return tally
