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
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any
from urllib.parse import quote

import duckdb

from audit.integrity.summary import integrity_summary
from openers.nightly.runs import QUARANTINE_KEY_SQL
from openers.report.charts import DayCounts
from openers.report.decisions import LOCAL_DAY_SQL, changes, needs_decision, with_cases
from openers.report.model import (
    SEVERITIES,
    CountRow,
    DataQualityRow,
    FindingRow,
    QuarantineRow,
    Report,
    RuleDoc,
    Totals,
)
from openers.report.rules import rule_docs
from schemas.display import evidence_lines, local_time_text
from schemas.office import Office
from schemas.raw import raw_rows_of

#: Log lines shown before and after the offending line of a finding under review.
EXCERPT_BEFORE, EXCERPT_AFTER = 4, 2
#: Quarantine rows listed on the page (all are in findings.csv's sibling table in the store).
QUARANTINE_LIMIT = 200
CHART_DAYS = 30


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
            "USING (finding_key) WHERE r.run_id = $run"
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


def _line_columns(con: duckdb.DuckDBPyConnection) -> str:
    """``f.lines`` when the findings view lists every line of a finding, else ``[f.line]``."""
    columns = {row[0] for row in con.execute("DESCRIBE findings").fetchall()}
    return "f.lines" if "lines" in columns else "[f.line]"


def _findings(con: duckdb.DuckDBPyConnection, scope: Scope, docs: Mapping[str, RuleDoc],
              dashboard_url: str) -> list[FindingRow]:  # fmt: skip
    sql = f"""
        WITH sf AS ({scope.findings})
        SELECT f.code, f.severity, f.hand_id, f.table_id, h.dealer_id, h.time,
               h.utc_offset_minutes, f.line, f.action_index, f.seat, s.player_id, f.message,
               CAST(f.evidence AS VARCHAR), f.source, h.source_file, {_line_columns(con)}
        FROM sf f LEFT JOIN hands h ON h.hand_id = f.hand_id
        LEFT JOIN stg_seats s ON s.hand_id = f.hand_id AND s.seat = f.seat
        ORDER BY CASE f.severity WHEN 'critical' THEN 0 WHEN 'major' THEN 1 ELSE 2 END,
                 h.time, f.hand_id, f.line, f.code
    """
    base = dashboard_url.rstrip("/")
    found = []
    for (code, severity, hand_id, table_id, dealer_id, when, offset, line, action_index, seat,
         player_id, message, evidence, source, source_file, lines) in _rows(con, sql, scope.params):
        doc = docs.get(code)
        details = _evidence(evidence)
        found.append(FindingRow(
            code=code, name=doc.name if doc else "", severity=severity, hand_id=hand_id,
            table_id=table_id, dealer_id=dealer_id, time_text=local_time_text(when, offset),
            line=line, action_index=action_index, seat=seat, player_id=player_id,
            message=message, evidence=details, source=source, source_file=source_file,
            link=f"{base}/hand?hand_id={quote(hand_id, safe='')}",
            highlight=frozenset(n for n in (*(lines or ()), *evidence_lines(details))
                                if isinstance(n, int)),
        ))  # fmt: skip
    return found


def _hand_texts(cursor: duckdb.DuckDBPyConnection,
                findings: list[FindingRow]) -> dict[str, tuple[int, str]]:
    """The first line and stored text of each hand a finding highlights lines of."""
    ids = sorted({f.hand_id for f in findings if f.highlight})
    if not ids:
        return {}
    rows = cursor.execute(
        "SELECT hand_id, first_line, raw_text FROM raw_hands WHERE "
        + raw_rows_of("(SELECT unnest(?::VARCHAR[]) AS hand_id)"),
        [ids],
    ).fetchall()
    return {hand_id: (first_line, text) for hand_id, first_line, text in rows}


def _with_excerpts(findings: list[FindingRow],
                   texts: Mapping[str, tuple[int, str]]) -> list[FindingRow]:
    """Attach to each finding the lines of its hand's log (``texts``: :func:`_hand_texts`)
    from before its first highlighted line to after its last (the whole hand when they are
    far apart)."""
    out = []
    for f in findings:
        stored = texts.get(f.hand_id)
        if stored is None or not f.highlight:
            out.append(f)
            continue
        first_line, text = stored
        lines = text.split("\n")
        lo = max(0, min(f.highlight) - first_line - EXCERPT_BEFORE)
        hi = min(len(lines), max(f.highlight) - first_line + EXCERPT_AFTER + 1)
        excerpt = tuple((first_line + i, lines[i]) for i in range(lo, hi))
        out.append(dataclasses.replace(f, excerpt=excerpt))
    return out


def _evidence(raw: str | None) -> dict[str, Any]:
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        return {"text": raw}
    return value if isinstance(value, dict) else {"value": value}


def _daily(con: duckdb.DuckDBPyConnection, last_day: date) -> list[DayCounts]:
    """Findings per local day over the ``CHART_DAYS`` days ending ``last_day`` (every run);
    fewer days when the calendar starts before that (a hand dated in year 1)."""
    first_day = date.fromordinal(max(1, last_day.toordinal() - CHART_DAYS + 1))
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
    days = (last_day - first_day).days + 1
    return [
        DayCounts(day, *counts.get(day, (0, 0, 0)))
        for day in (first_day + timedelta(days=i) for i in range(days))
    ]


def _data_quality(con: duckdb.DuckDBPyConnection, scope: Scope) -> list[DataQualityRow]:
    """The run's data-quality findings (``data_quality``, written by the nightly job), or
    those of the runs started since the period's first day; none on a store without them."""
    present = con.execute(
        "SELECT count(*) FROM duckdb_views() WHERE view_name = 'data_quality'"
        " AND database_name = current_database()"
    ).fetchone()
    if not present or not present[0]:
        return []
    if scope.run_id is not None:
        where, params = "run_id = $run", {"run": scope.run_id}
    else:
        where, params = "CAST(started_at AS DATE) >= $since", {"since": scope.params["since"]}
    rows = con.execute(
        "SELECT run_id, code, severity, table_id, observed, expected, message FROM data_quality"
        f" WHERE {where} ORDER BY CASE severity WHEN 'critical' THEN 0 WHEN 'major' THEN 1"
        " ELSE 2 END, run_id, code, table_id",
        params,
    ).fetchall()
    return [DataQualityRow(*row) for row in rows]


def _profile(con: duckdb.DuckDBPyConnection, scope: Scope) -> str | None:
    """The house profile the findings were judged under (the run's, else the findings')."""
    if scope.run_id is not None:
        row = con.execute("SELECT profile FROM runs WHERE run_id = ?", [scope.run_id]).fetchone()
        if row and row[0]:
            return str(row[0])
    names = [p for (p,) in _rows(con, f"SELECT DISTINCT profile FROM ({scope.findings}) "
                                      "WHERE profile IS NOT NULL ORDER BY 1", scope.params)]
    return ", ".join(names) or None


def build_report(
    con: duckdb.DuckDBPyConnection, scope: Scope, *, title: str, office: Office | None = None
) -> Report:
    """Query everything the report shows for ``scope``."""
    office = office or Office()
    con.execute("SET TimeZone = 'UTC'")
    docs = rule_docs()
    found = _findings(con, scope, docs, office.dashboard_url)
    # DuckDB reads and decompresses the hands' texts without Python's lock, on a cursor of
    # its own in a thread: beside the other queries rather than before them (0.3 to 0.5 s
    # of CPU for the 1,800 hands with findings of a 100,000-hand night).
    with con.cursor() as cursor, ThreadPoolExecutor(1, "report-texts") as reader:
        texts = reader.submit(_hand_texts, cursor, found)
        report, offset = _report(con, scope, docs, found, title, office.currency)
        findings = with_cases(con, _with_excerpts(found, texts.result()), offset)
    return dataclasses.replace(report, findings=findings, needs_decision=needs_decision(findings))


def _report(con: duckdb.DuckDBPyConnection, scope: Scope, docs: Mapping[str, RuleDoc],
            found: list[FindingRow], title: str, currency: str) -> tuple[Report, int]:
    """The report of ``found`` (the findings without their excerpts and cases, which change
    none of the fields counted or compared here), and the UTC offset of its last hand."""
    params = scope.params
    hands_cte = f"WITH sh AS ({scope.hands}) "
    hand_count = _one(con, hands_cte + "SELECT count(*) FROM sh", params)
    files, tables, first_day, last_day, rooms = con.execute(
        hands_cte + f"SELECT count(DISTINCT h.source_file), count(DISTINCT h.table_id), "
        f"min({LOCAL_DAY_SQL}), max({LOCAL_DAY_SQL}), "
        "list(DISTINCT h.room ORDER BY h.room) FILTER (WHERE h.room IS NOT NULL) "
        "FROM hands h JOIN sh USING (hand_id)",
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
    (offset,) = con.execute(
        hands_cte + "SELECT coalesce(arg_max(h.utc_offset_minutes, h.time), 0)"
        " FROM hands h JOIN sh USING (hand_id)", dict(params),
    ).fetchone() or (0,)  # fmt: skip
    by_severity = {s: sum(1 for f in found if f.severity == s) for s in SEVERITIES}
    names = {code: doc.name for code, doc in docs.items()}
    cited = {f.code for f in found}
    report = Report(
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
        findings=found,
        quarantine=quarantine,
        quarantine_total=int(quarantine_total or 0),
        daily=_daily(con, last_day or datetime.now(UTC).date()),
        rules={code: doc for code, doc in docs.items() if code in cited},
        first_day=first_day,
        last_day=last_day,
        rooms=tuple(rooms or ()),
        profile=_profile(con, scope),
        currency=currency,
        changes=changes(con, found, first_day, last_day, scope.run_id,
                        (scope.hands, scope.params)),
        data_quality=_data_quality(con, scope),
        integrity=integrity_summary(con),
    )
    return report, int(offset)
