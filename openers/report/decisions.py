"""What needs a decision, and what changed: the box at the top of the report.

- Each finding gets its case from the review file beside the store
  (:mod:`schemas.reviews`): open until an officer decides.
- **Needs a decision**: the critical and major findings whose case is still open,
  grouped by table and dealer, worst group first.
- **Changes**: the findings by severity against the previous run (a run's report)
  or the previous period of the same length (a period's report), and against the
  daily average of the 30 days before the first day of play; the codes, dealers and
  players in critical or major findings that no finding named in those 30 days.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Iterable, Mapping
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import duckdb

from openers.report.model import Case, Changes, Comparison, DecisionGroup, FindingRow
from schemas.display import iso_instant_text
from schemas.reviews import FindingKey, latest_rows, reviews_path_for

#: How far back "new" and the daily average look.
BASELINE_DAYS = 30
LOCAL_DAY_SQL = "CAST(timezone('UTC', h.time) + to_minutes(h.utc_offset_minutes) AS DATE)"


def store_path(con: duckdb.DuckDBPyConnection) -> Path | None:
    """The file of the store ``con`` is open on (None for an in-memory store)."""
    row = con.execute(
        "SELECT path FROM duckdb_databases() WHERE database_name = current_database()"
    ).fetchone()
    return Path(row[0]) if row and row[0] else None


def with_cases(
    con: duckdb.DuckDBPyConnection, findings: list[FindingRow], offset_minutes: int
) -> list[FindingRow]:
    """Each finding with its case from the review file beside the store (decision times on
    the room's clock)."""
    store = store_path(con)
    if store is None:
        return findings
    cases = {
        key: Case(status, reason, assignee, due, reviewer,
                  iso_instant_text(at, offset_minutes), note)
        for key, status, reason, assignee, due, reviewer, note, at, _ in latest_rows(
            reviews_path_for(store)
        )
    }
    return [dataclasses.replace(f, case=cases[k]) if (k := _key(f)) in cases else f
            for f in findings]  # fmt: skip


def _key(f: FindingRow) -> str:
    return FindingKey(f.hand_id, f.code, f.action_index, f.seat).text()


def needs_decision(findings: Iterable[FindingRow]) -> list[DecisionGroup]:
    """Open critical and major findings by (table, dealer), most critical group first."""
    groups: dict[tuple[str, str | None], list[FindingRow]] = defaultdict(list)
    for f in findings:
        if f.severity in ("critical", "major") and f.case.status == "open":
            groups[(f.table_id, f.dealer_id)].append(f)
    out = [DecisionGroup(t, d, tuple(rows)) for (t, d), rows in groups.items()]
    out.sort(key=lambda g: (-g.critical, -len(g.findings), g.table_id, g.dealer_id or ""))
    return out


def _counts(con: duckdb.DuckDBPyConnection, where: str, params: Mapping[str, Any]) -> list[int]:
    row = con.execute(
        "SELECT count(*) FILTER (WHERE f.severity = 'critical'),"
        " count(*) FILTER (WHERE f.severity = 'major'),"
        " count(*) FILTER (WHERE f.severity = 'minor')"
        f" FROM findings f JOIN hands h ON h.hand_id = f.hand_id WHERE {where}",
        dict(params),
    ).fetchone()
    return [int(v or 0) for v in (row or (0, 0, 0))]


def _previous_run(con: duckdb.DuckDBPyConnection, run_id: int) -> Comparison | None:
    row = con.execute(
        "SELECT run_id, findings_critical, findings_major, findings_minor FROM runs"
        " WHERE run_id < ? AND status IN ('ok', 'findings') ORDER BY run_id DESC LIMIT 1",
        [run_id],
    ).fetchone()
    if row is None:
        return None
    return Comparison(f"run #{row[0]}", row[1], row[2], row[3])


def _shifted(day: date, days: int) -> date | None:
    try:
        return day - timedelta(days=days)
    except OverflowError:  # before year 1: there is no earlier period
        return None


def changes(
    con: duckdb.DuckDBPyConnection,
    findings: list[FindingRow],
    first_day: date | None,
    last_day: date | None,
    run_id: int | None,
    scope_hands: tuple[str, Mapping[str, Any]] = ("SELECT NULL AS hand_id", {}),
) -> Changes:
    """This report's findings against the previous run or period and the 30 days before.

    "New" means named by no finding of the hands played from 30 days before the first
    day of play to the last, other than this report's own hands (``scope_hands``: their
    SQL and its parameters), so an earlier run of the same day counts as before.
    """
    if first_day is None or last_day is None:
        return Changes()
    span = (last_day - first_day).days + 1
    against: list[Comparison] = []
    if run_id is not None:
        previous = _previous_run(con, run_id)
        if previous is not None:
            against.append(previous)
    else:
        start, end = _shifted(first_day, span), _shifted(first_day, 1)
        if start is not None and end is not None:
            c, m, n = _counts(con, f"{LOCAL_DAY_SQL} BETWEEN $a AND $b", {"a": start, "b": end})
            against.append(Comparison(f"{start.isoformat()} to {end.isoformat()}", c, m, n))
    start, end = _shifted(first_day, BASELINE_DAYS), _shifted(first_day, 1)
    if start is None or end is None:
        return Changes(tuple(against))
    c, m, n = _counts(con, f"{LOCAL_DAY_SQL} BETWEEN $a AND $b", {"a": start, "b": end})
    scale = span / BASELINE_DAYS
    against.append(Comparison(f"30-day average ({start.isoformat()} to {end.isoformat()})",
                              round(c * scale, 1), round(m * scale, 1), round(n * scale, 1)))
    columns = ("f.code", "h.dealer_id", "s.player_id")
    seen = con.execute(  # one pass over the period's findings for the three columns
        "SELECT " + ", ".join(f"list(DISTINCT {c}) FILTER (WHERE {c} IS NOT NULL)"
                              for c in columns)
        + " FROM findings f JOIN hands h ON h.hand_id = f.hand_id"
        " LEFT JOIN stg_seats s ON s.hand_id = f.hand_id AND s.seat = f.seat"
        f" WHERE {LOCAL_DAY_SQL} BETWEEN $a AND $b AND f.hand_id NOT IN ({scope_hands[0]})",
        {**scope_hands[1], "a": start, "b": last_day},
    ).fetchall()[0]
    seen_codes, seen_dealers, seen_players = (set(values or ()) for values in seen)
    serious = [f for f in findings if f.severity in ("critical", "major")]
    return Changes(
        against=tuple(against),
        new_codes=tuple(sorted({f.code for f in serious} - seen_codes)),
        new_dealers=tuple(sorted({f.dealer_id for f in serious if f.dealer_id} - seen_dealers)),
        new_players=tuple(sorted({f.player_id for f in serious if f.player_id} - seen_players)),
    )
