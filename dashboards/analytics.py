"""Queries of the Tables, Dealers, Players and Data quality pages.

Same rules as :mod:`dashboards.queries` (bound parameters only, figures from the
marts); registered in the same :data:`~dashboards.queries.QUERIES` table.
"""

from __future__ import annotations

from datetime import date

import pandas as pd

from dashboards.queries import Context, query

# --------------------------------------------------------------------------- tables


@query()
def table_days(ctx: Context) -> pd.DataFrame:
    """Every (table, day) with its number of deals, newest day first."""
    return ctx.frame("SELECT * FROM mart_table_days ORDER BY day DESC, table_id")


@query()
def table_deals(ctx: Context, table_id: str, day: date) -> pd.DataFrame:
    """One table's deals on one day, in time order, with their sequence findings."""
    return ctx.frame(
        "SELECT * FROM mart_table_deals WHERE table_id = $table_id AND day = $day"
        " ORDER BY time, hand_id",
        {"table_id": table_id, "day": day},
    )


# --------------------------------------------------------------------------- dealers
_RANGE = "day >= $start AND day <= $end"


@query()
def date_bounds(ctx: Context) -> pd.DataFrame:
    """First and last day of the store."""
    return ctx.frame("SELECT first_day, last_day FROM mart_totals")


@query()
def dealer_codes(ctx: Context, dealer_id: str, start: date, end: date) -> pd.DataFrame:
    """One dealer's findings per family and code against the room, per 1,000 hands."""
    return ctx.frame(
        f"""
        WITH hd AS (SELECT sum(hands) AS hands FROM mart_dealer_hands_daily
                    WHERE dealer_id = $dealer AND {_RANGE}),
             hr AS (SELECT sum(hands) AS hands FROM mart_dealer_hands_daily WHERE {_RANGE}),
             fd AS (SELECT family, code, sum(findings) AS findings
                    FROM mart_dealer_findings_daily
                    WHERE dealer_id = $dealer AND {_RANGE} GROUP BY family, code),
             fr AS (SELECT family, code, sum(findings) AS findings
                    FROM mart_dealer_findings_daily WHERE {_RANGE} GROUP BY family, code)
        SELECT fr.family, fr.code, coalesce(fd.findings, 0) AS findings,
               round(coalesce(fd.findings, 0) * 1000.0 / nullif(hd.hands, 0), 2) AS per_1000,
               round(fr.findings * 1000.0 / nullif(hr.hands, 0), 2) AS room_per_1000
        FROM fr LEFT JOIN fd USING (family, code) CROSS JOIN hd CROSS JOIN hr
        ORDER BY per_1000 DESC NULLS LAST, fr.code
        """,
        {"dealer": dealer_id, "start": start, "end": end},
    )


@query()
def dealer_trend(ctx: Context, dealer_id: str, start: date, end: date) -> pd.DataFrame:
    """Per day: the dealer's findings per 1,000 hands and the room's."""
    return ctx.frame(
        f"""
        WITH h AS (SELECT day, sum(hands) FILTER (WHERE dealer_id = $dealer) AS dealer_hands,
                          sum(hands) AS room_hands
                   FROM mart_dealer_hands_daily WHERE {_RANGE} GROUP BY day),
             f AS (SELECT day, sum(findings) FILTER (WHERE dealer_id = $dealer) AS dealer_findings,
                          sum(findings) AS room_findings
                   FROM mart_dealer_findings_daily WHERE {_RANGE} GROUP BY day)
        SELECT h.day, coalesce(h.dealer_hands, 0) AS hands,
               coalesce(f.dealer_findings, 0) AS findings,
               round(coalesce(f.dealer_findings, 0) * 1000.0 / nullif(h.dealer_hands, 0), 2)
                   AS dealer_per_1000,
               round(coalesce(f.room_findings, 0) * 1000.0 / h.room_hands, 2) AS room_per_1000
        FROM h LEFT JOIN f USING (day) ORDER BY h.day
        """,
        {"dealer": dealer_id, "start": start, "end": end},
    )


# --------------------------------------------------------------------------- players
@query()
def player_search(ctx: Context, text: str, limit: int = 50) -> pd.DataFrame:
    """Players whose id contains ``text`` (case-insensitive), most hands first."""
    return ctx.frame(
        "SELECT player_id, hands FROM mart_player_hands"
        " WHERE contains(lower(player_id), lower($text)) ORDER BY hands DESC, player_id"
        " LIMIT $limit",
        {"text": text.strip(), "limit": limit},
    )


@query()
def players_most_findings(ctx: Context, limit: int = 20) -> pd.DataFrame:
    """The players whose seat is named in most findings."""
    return ctx.frame(
        "SELECT player_id, sum(findings) AS findings,"
        " coalesce(sum(findings) FILTER (WHERE severity = 'critical'), 0) AS critical"
        " FROM mart_player_findings GROUP BY player_id"
        " ORDER BY findings DESC, player_id LIMIT $limit",
        {"limit": limit},
    )


@query()
def player_stats(ctx: Context, player_id: str) -> pd.DataFrame:
    """One player's hands, opens, false and split openers, pots won, findings (one row)."""
    return ctx.frame(
        """
        SELECT h.player_id, h.hands, h.tables, h.first_day, h.last_day,
               coalesce(a.opens, 0) AS opens,
               coalesce(fo.false_openers, 0) AS false_openers,
               coalesce(a.split_openers, 0) AS split_openers,
               coalesce(a.pots_won, 0) AS pots_won,
               coalesce(a.chips_won, 0) AS chips_won,
               coalesce((SELECT sum(findings) FROM mart_player_findings
                         WHERE player_id = $player), 0) AS findings
        FROM mart_player_hands AS h
        LEFT JOIN mart_player_actions AS a USING (player_id)
        LEFT JOIN mart_player_false_openers AS fo USING (player_id)
        WHERE h.player_id = $player
        """,
        {"player": player_id},
    )


@query()
def player_findings(ctx: Context, player_id: str) -> pd.DataFrame:
    """The findings naming one player's seat, per code."""
    return ctx.frame(
        "SELECT code, family, severity, findings FROM mart_player_findings"
        " WHERE player_id = $player ORDER BY findings DESC, code",
        {"player": player_id},
    )


@query(uses_reviews=True)
def player_finding_rows(ctx: Context, player_id: str, limit: int = 500) -> pd.DataFrame:
    """The findings naming one player's seat, newest first, with review state."""
    return ctx.frame(
        "SELECT f.time_text AS time, f.severity, f.code, f.hand_id, f.table_id, f.seat, f.message,"
        " coalesce(r.review_status, 'open') AS review_status"
        " FROM mart_findings AS f LEFT JOIN review_state AS r USING (finding_key)"
        " WHERE f.player_id = $player ORDER BY f.time DESC LIMIT $limit",
        {"player": player_id, "limit": limit},
    )


# --------------------------------------------------------------------------- data quality
@query()
def quarantine_rows(
    ctx: Context, kind: str = "", text: str = "", limit: int = 1000
) -> pd.DataFrame:
    """Quarantined items, optionally of one kind and with ``text`` in the file or error."""
    return ctx.frame(
        "SELECT file, line, hand_id, kind, error, error_line, raw_text, count(*) OVER () AS total"
        " FROM quarantine WHERE ($kind = '' OR kind = $kind)"
        " AND ($text = '' OR contains(lower(file), lower($text))"
        "      OR contains(lower(error), lower($text)))"
        " ORDER BY file, line LIMIT $limit",
        {"kind": kind, "text": text.strip(), "limit": limit},
    )


@query()
def quarantine_kinds(ctx: Context) -> pd.DataFrame:
    """How many quarantined items of each kind (``quarantine`` is created after the marts)."""
    return ctx.frame(
        "SELECT kind, count(*) AS items FROM quarantine GROUP BY kind ORDER BY items DESC"
    )


# --------------------------------------------------------------------------- dealers and tables
@query()
def unit_rates(ctx: Context, unit: str, start: date, end: date, family: str = "") -> pd.DataFrame:
    """Per dealer or table (``unit``): hands, hands with a finding (of ``family``, or any),
    findings by severity (``dashboards.rates.compare_with_room`` compares them)."""
    return ctx.frame(
        f"""
        WITH h AS (SELECT unit_id, CAST(sum(hands) AS BIGINT) AS hands FROM mart_unit_hands_daily
                   WHERE unit = $unit AND {_RANGE} GROUP BY unit_id),
             f AS (SELECT unit_id, CAST(sum(hands_with_findings) AS BIGINT) AS flagged,
                          CAST(sum(critical) AS BIGINT) AS critical,
                          CAST(sum(major) AS BIGINT) AS major, CAST(sum(minor) AS BIGINT) AS minor
                   FROM mart_unit_flagged_daily
                   WHERE unit = $unit AND {_RANGE} AND family = (CASE WHEN $family = '' THEN '*'
                                                                  ELSE $family END)
                   GROUP BY unit_id)
        SELECT h.unit_id, h.hands, coalesce(f.flagged, 0) AS flagged,
               coalesce(f.critical, 0) AS critical, coalesce(f.major, 0) AS major,
               coalesce(f.minor, 0) AS minor
        FROM h LEFT JOIN f USING (unit_id) ORDER BY h.unit_id
        """,
        {"unit": unit, "start": start, "end": end, "family": family},
    )


DATA_QUALITY_COLUMNS = [
    "run_id", "started", "severity", "code", "table_id", "observed", "expected", "message",
]  # fmt: skip


@query()
def data_quality_findings(ctx: Context, last_run_only: bool = False) -> pd.DataFrame:
    """Missing data found by the nightly runs (the ``data_quality`` view; none on a store
    written before the job recorded them), worst first, the latest run's or all."""
    present = ctx.frame(
        "SELECT count(*) AS n FROM duckdb_views() WHERE view_name = 'data_quality'"
        " AND database_name = current_database()"
    )
    if not int(present["n"].iloc[0]):
        return pd.DataFrame(columns=DATA_QUALITY_COLUMNS)
    return ctx.frame(
        """
        WITH o AS (SELECT coalesce((SELECT utc_offset_minutes FROM mart_hands
                                    ORDER BY time DESC LIMIT 1), 0) AS off)
        SELECT q.run_id,
               local_time_text(timezone('UTC', q.started_at) + to_minutes(o.off), o.off)
                   AS started, q.severity, q.code, q.table_id, q.observed, q.expected, q.message
        FROM data_quality AS q, o
        WHERE NOT $last OR q.run_id = (SELECT max(run_id) FROM runs)
        ORDER BY q.run_id DESC, CASE q.severity WHEN 'critical' THEN 0 WHEN 'major' THEN 1
                 ELSE 2 END, q.code, q.table_id
        """,
        {"last": last_run_only},
    )
