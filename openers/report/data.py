"""Fill a :class:`~openers.report.model.Report` from the store's public views.

Two scopes: one nightly run (what that run added: the hands, findings and
quarantine rows ``ops_run_*`` attribute to it) or a period (hands played since a
date). Both read only the public views (``hands``, ``findings``,
``unverifiable``, ``quarantine``, ``runs``), so the report works on any store.

Days are the cardroom's local days: a hand's ``time`` shifted by the UTC offset
its log wrote, so a session from 21:00 to 03:00 is not cut at midnight UTC.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any

import duckdb

from audit.integrity.summary import integrity_summary
from openers.nightly.runs import FINDING_KEY_SQL, QUARANTINE_KEY_SQL
from openers.report.charts import DayCounts
from openers.report.model import (
    SEVERITIES,
    CountRow,
    FindingRow,
    QuarantineRow,
    Report,
    RuleDoc,
    Totals,
)
from openers.report.rules import rule_docs

#: The hands to review first: this many, worst first.
REVIEW_LIMIT = 25
#: Log lines shown before and after the offending line of a finding under review.
EXCERPT_BEFORE, EXCERPT_AFTER = 4, 2
#: Quarantine rows listed on the page (all are in findings.csv's sibling table in the store).
QUARANTINE_LIMIT = 200
CHART_DAYS = 30
LOCAL_DAY_SQL = "CAST(timezone('UTC', h.time) + to_minutes(h.utc_offset_minutes) AS DATE)"


@dataclass(frozen=True)
class Scope:
    """Which hands, findings and quarantine rows a report covers (SQL over the views)."""

    label: str
    hands: str
    findings: str
    quarantine: str
    params: Mapping[str, Any]
    run_id: int | None = None


def run_scope(run_id: int) -> Scope:
    """What nightly run ``run_id`` added to the store."""
    return Scope(
        label=f"nightly run #{run_id}",
        hands="SELECT hand_id FROM ops_run_hands WHERE run_id = $run",
        findings=(
            "SELECT f.* FROM findings f JOIN ops_run_findings r "
            f"ON r.finding_key = {FINDING_KEY_SQL} WHERE r.run_id = $run"
        ),
        quarantine=(
            "SELECT q.* FROM quarantine q JOIN ops_run_quarantine r "
            f"ON r.quarantine_key = {QUARANTINE_KEY_SQL} WHERE r.run_id = $run"
        ),
        params={"run": run_id},
        run_id=run_id,
    )


def since_scope(since: date | None) -> Scope:
    """Every hand played on or after ``since`` (local day), or the whole store."""
    day = since or date(1, 1, 1)
    return Scope(
        label=f"hands since {since.isoformat()}" if since else "every stored hand",
        hands=f"SELECT h.hand_id FROM hands h WHERE {LOCAL_DAY_SQL} >= $since",
        findings=(
            "SELECT f.* FROM findings f JOIN hands h ON h.hand_id = f.hand_id "
            f"WHERE {LOCAL_DAY_SQL} >= $since"
        ),
        quarantine="SELECT q.* FROM quarantine q WHERE CAST(q.ingested_at AS DATE) >= $since",
        params={"since": day},
    )


def _rows(con: duckdb.DuckDBPyConnection, sql: str, params: Mapping[str, Any]) -> list[Any]:
    return con.execute(sql, dict(params)).fetchall()


def _one(con: duckdb.DuckDBPyConnection, sql: str, params: Mapping[str, Any]) -> Any:
    rows = con.execute(sql, dict(params)).fetchall()
    return rows[0][0] if rows else None


def _breakdown(
    con: duckdb.DuckDBPyConnection, scope: Scope, key_sql: str, labels: Mapping[str, str]
) -> list[CountRow]:
    """Findings counted by ``key_sql`` (over ``f`` and its hand ``h``) and severity."""
    sql = f"""
        WITH sf AS ({scope.findings})
        SELECT coalesce(CAST({key_sql} AS VARCHAR), '(none)') AS k,
               count(*) FILTER (WHERE f.severity = 'critical'),
               count(*) FILTER (WHERE f.severity = 'major'),
               count(*) FILTER (WHERE f.severity = 'minor')
        FROM sf f LEFT JOIN hands h ON h.hand_id = f.hand_id
        GROUP BY k
    """
    rows = [
        CountRow(key=k, label=labels.get(k, k), critical=c, major=m, minor=n)
        for k, c, m, n in _rows(con, sql, scope.params)
    ]
    rows.sort(key=lambda r: (-r.critical, -r.major, -r.total, r.key))
    return rows


def _findings(con: duckdb.DuckDBPyConnection, scope: Scope,
              docs: Mapping[str, RuleDoc]) -> list[FindingRow]:
    sql = f"""
        WITH sf AS ({scope.findings})
        SELECT f.code, f.severity, f.hand_id, f.table_id, h.dealer_id, h.time,
               h.utc_offset_minutes, f.line, f.action_index, f.seat, f.message,
               CAST(f.evidence AS VARCHAR), f.source, h.source_file
        FROM sf f LEFT JOIN hands h ON h.hand_id = f.hand_id
        ORDER BY CASE f.severity WHEN 'critical' THEN 0 WHEN 'major' THEN 1 ELSE 2 END,
                 h.time, f.hand_id, f.line, f.code
    """
    found = []
    for (code, severity, hand_id, table_id, dealer_id, when, offset, line, action_index, seat,
         message, evidence, source, source_file) in _rows(con, sql, scope.params):
        doc = docs.get(code)
        found.append(FindingRow(
            code=code, name=doc.name if doc else "", severity=severity, hand_id=hand_id,
            table_id=table_id, dealer_id=dealer_id, time=_local(when, offset), line=line,
            action_index=action_index, seat=seat, message=message,
            evidence=_evidence(evidence), source=source, source_file=source_file,
        ))
    return found


def _with_excerpts(con: duckdb.DuckDBPyConnection,
                   findings: list[FindingRow]) -> list[FindingRow]:
    """Attach to each finding the lines of its hand's log around its offending line."""
    ids = sorted({f.hand_id for f in findings if f.line})
    if not ids:
        return findings
    texts = {
        hand_id: (first_line, text)
        for hand_id, first_line, text in con.execute(
            "SELECT hand_id, first_line, raw_text FROM raw_hands WHERE list_contains(?, hand_id)",
            [ids],
        ).fetchall()
    }
    out = []
    for f in findings:
        stored = texts.get(f.hand_id)
        if stored is None or not f.line:
            out.append(f)
            continue
        first_line, text = stored
        lines = text.split("\n")
        at = f.line - first_line
        lo, hi = max(0, at - EXCERPT_BEFORE), min(len(lines), at + EXCERPT_AFTER + 1)
        excerpt = tuple((first_line + i, lines[i]) for i in range(lo, hi))
        out.append(dataclasses.replace(f, excerpt=excerpt))
    return out


def _local(when: datetime | None, offset: int | None) -> datetime | None:
    """The hand's time as its log wrote it (with its own UTC offset)."""
    if when is None:
        return None
    return when.astimezone(timezone(timedelta(minutes=offset or 0)))


def _evidence(raw: str | None) -> dict[str, Any]:
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        return {"text": raw}
    return value if isinstance(value, dict) else {"value": value}


def _daily(con: duckdb.DuckDBPyConnection, last_day: date) -> list[DayCounts]:
    """Findings per local day over the ``CHART_DAYS`` days ending ``last_day`` (every run)."""
    first_day = last_day - timedelta(days=CHART_DAYS - 1)
    sql = f"""
        SELECT {LOCAL_DAY_SQL} AS day,
               count(*) FILTER (WHERE f.severity = 'critical'),
               count(*) FILTER (WHERE f.severity = 'major'),
               count(*) FILTER (WHERE f.severity = 'minor')
        FROM findings f JOIN hands h ON h.hand_id = f.hand_id
        WHERE {LOCAL_DAY_SQL} BETWEEN $first AND $last
        GROUP BY day
    """
    counts = {day: (c, m, n) for day, c, m, n in
              _rows(con, sql, {"first": first_day, "last": last_day})}
    return [
        DayCounts(day, *counts.get(day, (0, 0, 0)))
        for day in (first_day + timedelta(days=i) for i in range(CHART_DAYS))
    ]


def build_report(con: duckdb.DuckDBPyConnection, scope: Scope, *, title: str) -> Report:
    """Query everything the report shows for ``scope``."""
    con.execute("SET TimeZone = 'UTC'")
    docs = rule_docs()
    params = scope.params
    hands_cte = f"WITH sh AS ({scope.hands}) "
    hand_count = _one(con, hands_cte + "SELECT count(*) FROM sh", params)
    files, tables, last_day = con.execute(
        hands_cte + f"SELECT count(DISTINCT h.source_file), count(DISTINCT h.table_id), "
        f"max({LOCAL_DAY_SQL}) FROM hands h JOIN sh USING (hand_id)",
        dict(params),
    ).fetchall()[0]
    unverifiable = _one(
        con, hands_cte + "SELECT count(*) FROM unverifiable u JOIN sh USING (hand_id)", params
    )
    quarantine_total = _one(con, f"SELECT count(*) FROM ({scope.quarantine})", params)
    quarantine = [
        QuarantineRow(file=f, line=line, hand_id=hand_id, error=error)
        for f, line, hand_id, error in _rows(
            con,
            f"SELECT file, line, hand_id, error FROM ({scope.quarantine}) "
            f"ORDER BY file, line LIMIT {QUARANTINE_LIMIT}",
            params,
        )
    ]
    run_status, duplicates, run_files = None, 0, None
    if scope.run_id is not None:
        rows = con.execute(
            "SELECT status, duplicates, files_new + files_grown FROM runs WHERE run_id = ?",
            [scope.run_id],
        ).fetchall()
        if rows:
            run_status, duplicates, run_files = rows[0]
    findings = _findings(con, scope, docs)
    by_severity = {s: sum(1 for f in findings if f.severity == s) for s in SEVERITIES}
    names = {code: doc.name for code, doc in docs.items()}
    cited = {f.code for f in findings}
    return Report(
        title=title,
        scope=scope.label,
        generated_at=datetime.now(UTC),
        run_id=scope.run_id,
        run_status=run_status,
        totals=Totals(
            files=int(run_files if run_files is not None else files or 0),
            hands=int(hand_count or 0),
            duplicates=int(duplicates or 0),
            quarantined=int(quarantine_total or 0),
            unverifiable=int(unverifiable or 0),
            findings=by_severity,
            tables=int(tables or 0),
        ),
        by_code=_breakdown(con, scope, "f.code", names),
        by_table=_breakdown(con, scope, "f.table_id", {}),
        by_dealer=_breakdown(con, scope, "h.dealer_id", {}),
        findings=findings,
        review=_with_excerpts(con, findings[:REVIEW_LIMIT]),
        quarantine=quarantine,
        quarantine_total=int(quarantine_total or 0),
        daily=_daily(con, last_day or datetime.now(UTC).date()),
        rules={code: doc for code, doc in docs.items() if code in cited},
        integrity=integrity_summary(con),
    )
