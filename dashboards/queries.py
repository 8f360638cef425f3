"""Every question the pages ask the store, as parameterised DuckDB queries.

Rules the functions keep:

- user input only ever travels as a bound parameter (``$name``); the only text
  spliced into SQL is an ORDER BY column picked from :data:`SORTS` by key;
- figures come from the ``mart_*`` views (``schemas/ddl/50_marts.sql``); the
  queries here filter, join and order them;
- the review state comes from the review file (:mod:`dashboards.reviews`) and is
  registered on the query's own cursor as ``review_state`` when a query needs it.

Functions take a :class:`Context` and keyword parameters and return a pandas
frame; :func:`dashboards.state.load` calls them by name and caches the result.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd

from dashboards import reviews
from schemas.office import DEFAULT_DUE_DAYS

#: Sort keys the Findings page offers, mapped to the column they order by.
SORTS: dict[str, str] = {
    "severity": "severity_rank",
    "time": "time",
    "code": "code",
    "table": "table_id",
    "dealer": "dealer_id",
    "player": "player_id",
    "hand": "hand_id",
    "review status": "review_status",
    "due date": "due_date",
    "assignee": "assignee",
}
FAMILIES: dict[str, str] = {
    "B": "Betting",
    "O": "Openers",
    "D": "Deal and draw",
    "P": "Pot and showdown",
    "J": "Deal sequences",
}
SEVERITIES: tuple[str, ...] = ("critical", "major", "minor")
REVIEW_STATUSES: tuple[str, ...] = tuple(s.value for s in reviews.CaseStatus)
#: The queue's "assignee" filter value for cases nobody is assigned to.
UNASSIGNED = "(unassigned)"


@dataclass
class Context:
    """One query's cursor and the review file it may read."""

    con: duckdb.DuckDBPyConnection
    reviews_path: Path
    #: Days a case may stay undecided, by severity (the house file's ``review.due_days``).
    due_days: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_DUE_DAYS))

    def frame(self, sql: str, params: dict[str, Any] | None = None) -> pd.DataFrame:
        """Run ``sql`` with bound ``params`` and return the result as a frame.

        DATE columns come back as ``datetime.date`` (pandas would make them
        midnight timestamps, which the pages would print with a time).
        """
        cursor = self.con.execute(sql, params or {})
        dates = [d[0] for d in cursor.description or () if str(d[1]) == "DATE"]
        frame = cursor.df()
        for column in dates:
            frame[column] = [None if pd.isna(v) else v.date() for v in frame[column]]
        return frame

    def register_reviews(self) -> None:
        """Make each case's latest event visible as ``review_state``, and the due days
        as ``due_days`` (severity, days)."""
        self.con.register("review_state", reviews.latest(self.reviews_path))
        self.con.register(
            "due_days",
            pd.DataFrame({"severity": list(self.due_days), "days": list(self.due_days.values())}),
        )


@dataclass(frozen=True)
class Query:
    """A registered query: the function and whether it reads the review file."""

    fn: Callable[..., pd.DataFrame]
    uses_reviews: bool

    def __call__(self, ctx: Context, **params: Any) -> pd.DataFrame:
        """Run the query (registering the review state first when it needs it)."""
        if self.uses_reviews:
            ctx.register_reviews()
        return self.fn(ctx, **params)


QUERIES: dict[str, Query] = {}

#: A case's due date: the one set on it, else its hand's day plus the severity's days.
DUE_SQL = (
    "coalesce(CAST(r.due_date AS DATE), CAST(f.day + to_days(CAST((SELECT days FROM due_days d"
    " WHERE d.severity = f.severity) AS INTEGER)) AS DATE))"
)


def query(
    uses_reviews: bool = False,
) -> Callable[[Callable[..., pd.DataFrame]], Callable[..., pd.DataFrame]]:
    """Register a query function under its name."""

    def register(fn: Callable[..., pd.DataFrame]) -> Callable[..., pd.DataFrame]:
        QUERIES[fn.__name__] = Query(fn, uses_reviews)
        return fn

    return register


# --------------------------------------------------------------------------- overview
@query()
def totals(ctx: Context) -> pd.DataFrame:
    """Hands, tables, findings by severity, coverage: one row."""
    return ctx.frame("SELECT * FROM mart_totals")


@query()
def daily(ctx: Context) -> pd.DataFrame:
    """Hands and findings by severity per day."""
    return ctx.frame("SELECT * FROM mart_daily ORDER BY day")


@query()
def by_code(ctx: Context) -> pd.DataFrame:
    """Findings per code, worst severity first (every critical code leads), then most first."""
    return ctx.frame(
        "SELECT * FROM mart_findings_by_code ORDER BY CASE severity WHEN 'critical' THEN 0"
        " WHEN 'major' THEN 1 ELSE 2 END, findings DESC, code"
    )


@query(uses_reviews=True)
def open_cases(ctx: Context) -> pd.DataFrame:
    """Cases nobody has decided, by severity: (severity, cases, overdue)."""
    return ctx.frame(
        f"""
        SELECT f.severity, count(*) AS cases,
               count(*) FILTER (WHERE {DUE_SQL} < current_date) AS overdue
        FROM mart_findings AS f LEFT JOIN review_state AS r USING (finding_key)
        WHERE coalesce(r.review_status, 'open') IN ('open', 'escalated')
        GROUP BY f.severity
        """
    )


@query()
def by_table(ctx: Context) -> pd.DataFrame:
    """Findings per table, most first."""
    return ctx.frame("SELECT * FROM mart_findings_by_table ORDER BY findings DESC, table_id")


@query()
def unverifiable_by_code(ctx: Context) -> pd.DataFrame:
    """Checks that could not be made, per rule."""
    return ctx.frame("SELECT * FROM mart_unverifiable_by_code ORDER BY checks DESC, code")


@query()
def room_offset(ctx: Context) -> pd.DataFrame:
    """The room's UTC offset in minutes (its newest hand's), for instants shown on its clock."""
    return ctx.frame(
        "SELECT coalesce((SELECT utc_offset_minutes FROM mart_hands ORDER BY time DESC LIMIT 1),"
        " 0) AS minutes"
    )


@query()
def runs(ctx: Context, limit: int = 50) -> pd.DataFrame:
    """The latest runs of the nightly job, newest first, with their start and end as the
    room's clock shows them (the offset of the newest hand). ``status`` never says "ok"
    beside critical findings (the job's own word is ``job_status``)."""
    return ctx.frame(
        """
        WITH o AS (SELECT coalesce((SELECT utc_offset_minutes FROM mart_hands
                                    ORDER BY time DESC LIMIT 1), 0) AS off)
        SELECT local_time_text(timezone('UTC', r.started_at) + to_minutes(o.off), o.off)
                   AS started, local_time_text(timezone('UTC', r.ended_at) + to_minutes(o.off),
                   o.off) AS ended,
               CASE WHEN r.status = 'ok' AND r.findings_critical > 0 THEN 'critical findings'
                    ELSE r.status END AS status, r.status AS job_status,
               r.* EXCLUDE (started_at, ended_at, status)
        FROM runs AS r, o ORDER BY r.run_id DESC LIMIT $limit
        """,
        {"limit": limit},
    )


# --------------------------------------------------------------------------- findings
@query()
def filter_values(ctx: Context) -> pd.DataFrame:
    """Every table, dealer and code that has a finding, as (kind, value) rows."""
    return ctx.frame(
        "SELECT DISTINCT 'table' AS kind, table_id AS value FROM mart_findings"
        " UNION SELECT DISTINCT 'dealer', dealer_id FROM mart_findings WHERE dealer_id IS NOT NULL"
        " UNION SELECT DISTINCT 'code', code FROM mart_findings ORDER BY kind, value"
    )


_QUEUE_WHERE = f"""
    WHERE ($start IS NULL OR f.day >= $start) AND ($end IS NULL OR f.day <= $end)
      AND (len($tables) = 0 OR list_contains($tables, f.table_id))
      AND (len($dealers) = 0 OR list_contains($dealers, f.dealer_id))
      AND (len($codes) = 0 OR list_contains($codes, f.code))
      AND (len($families) = 0 OR list_contains($families, f.family))
      AND (len($severities) = 0 OR list_contains($severities, f.severity))
      AND (len($statuses) = 0
           OR list_contains($statuses, coalesce(r.review_status, 'open')))
      AND (len($assignees) = 0
           OR list_contains($assignees, coalesce(r.assignee, '(unassigned)')))
      AND ($player = '' OR contains(lower(f.player_id), lower($player)))
      AND (NOT $overdue OR (coalesce(r.review_status, 'open') IN ('open', 'escalated')
                            AND {DUE_SQL} < current_date))
"""


def _queue_params(
    start: date | None,
    end: date | None,
    tables: Sequence[str],
    dealers: Sequence[str],
    player: str,
    codes: Sequence[str],
    families: Sequence[str],
    severities: Sequence[str],
    statuses: Sequence[str],
    assignees: Sequence[str],
    overdue: bool,
) -> dict[str, Any]:
    return {
        "start": start,
        "end": end,
        "tables": list(tables),
        "dealers": list(dealers),
        "player": player.strip(),
        "codes": list(codes),
        "families": list(families),
        "severities": list(severities),
        "statuses": list(statuses),
        "assignees": list(assignees),
        "overdue": overdue,
    }


@query(uses_reviews=True)
def findings_queue(
    ctx: Context,
    start: date | None = None,
    end: date | None = None,
    tables: Sequence[str] = (),
    dealers: Sequence[str] = (),
    player: str = "",
    codes: Sequence[str] = (),
    families: Sequence[str] = (),
    severities: Sequence[str] = (),
    statuses: Sequence[str] = (),
    assignees: Sequence[str] = (),
    overdue: bool = False,
    sort: str = "severity",
    descending: bool = True,
    limit: int | None = 2000,
) -> pd.DataFrame:
    """The filtered queue with each finding's review state; ``total`` counts all matches."""
    column = SORTS.get(sort, "severity_rank")
    direction = "DESC" if descending else "ASC"
    params = _queue_params(
        start, end, tables, dealers, player, codes, families, severities, statuses,
        assignees, overdue,
    )
    params["limit"] = limit
    sql = f"""
        SELECT f.finding_key, f.time, f.day, f.severity, f.code, f.name, f.family,
               f.hand_id, f.table_id, f.dealer_id, f.seat, f.player_id, f.line,
               f.action_index, f.message, f.source, f.evidence, f.severity_rank,
               f.time_text, coalesce(r.review_status, 'open') AS review_status,
               r.reason, r.assignee, {DUE_SQL} AS due_date, r.reviewer, r.note, r.decided_at,
               coalesce(r.decisions, 0) AS decisions,
               count(*) OVER () AS total
        FROM mart_findings AS f LEFT JOIN review_state AS r USING (finding_key)
        {_QUEUE_WHERE}
        ORDER BY {column} {direction} NULLS LAST, f.time DESC, f.hand_id, f.action_index
        LIMIT $limit
    """
    return ctx.frame(sql, params)
