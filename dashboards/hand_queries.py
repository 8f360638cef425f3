"""The Hand page's queries: one hand, its findings and checks, its neighbours, search.

Registered in :data:`dashboards.queries.QUERIES` like every other page query.
"""

from __future__ import annotations

from datetime import date

import pandas as pd

from dashboards.queries import DUE_SQL, Context, query


@query()
def hand(ctx: Context, hand_id: str) -> pd.DataFrame:
    """One hand's header row with its raw log (no row if the id is unknown)."""
    return ctx.frame(
        "SELECT h.*, t.raw_text, t.form FROM mart_hands AS h"
        " JOIN mart_hand_text AS t USING (hand_id) WHERE h.hand_id = $hand_id",
        {"hand_id": hand_id},
    )


@query(uses_reviews=True)
def hand_findings(ctx: Context, hand_id: str) -> pd.DataFrame:
    """The findings of one hand with their review state, in line order."""
    return ctx.frame(
        "SELECT f.*, coalesce(r.review_status, 'open') AS review_status,"
        f" r.reason, r.assignee, {DUE_SQL} AS due_date, r.reviewer, r.note, r.decided_at"
        " FROM mart_findings AS f LEFT JOIN review_state AS r USING (finding_key)"
        " WHERE f.hand_id = $hand_id ORDER BY f.line NULLS FIRST, f.code",
        {"hand_id": hand_id},
    )


@query()
def hand_unverifiable(ctx: Context, hand_id: str) -> pd.DataFrame:
    """Rules that could not be checked on one hand."""
    return ctx.frame(
        "SELECT code, seat, reason FROM unverifiable WHERE hand_id = $hand_id ORDER BY code",
        {"hand_id": hand_id},
    )


@query()
def hand_search(ctx: Context, text: str, limit: int = 20) -> pd.DataFrame:
    """Hand ids containing ``text`` (for the Hand page's search box)."""
    return ctx.frame(
        "SELECT hand_id, table_id, time FROM hands WHERE contains(hand_id, $text)"
        " ORDER BY hand_id LIMIT $limit",
        {"text": text.strip(), "limit": limit},
    )


@query()
def hand_neighbours(ctx: Context, hand_id: str) -> pd.DataFrame:
    """The deal before and after a hand at its table (time order): ``previous``, ``next``."""
    return ctx.frame(
        """
        WITH me AS (SELECT table_id, time FROM mart_hands WHERE hand_id = $hand_id)
        SELECT
          (SELECT hand_id FROM mart_hands h WHERE h.table_id = me.table_id
             AND (h.time, h.hand_id) < (me.time, $hand_id)
           ORDER BY h.time DESC, h.hand_id DESC LIMIT 1) AS previous,
          (SELECT hand_id FROM mart_hands h WHERE h.table_id = me.table_id
             AND (h.time, h.hand_id) > (me.time, $hand_id)
           ORDER BY h.time, h.hand_id LIMIT 1) AS next
        FROM me
        """,
        {"hand_id": hand_id},
    )


@query()
def hand_find(
    ctx: Context,
    player: str = "",
    dealer: str = "",
    table: str = "",
    code: str = "",
    start: date | None = None,
    end: date | None = None,
    min_pot: int | None = None,
    max_pot: int | None = None,
    limit: int = 200,
) -> pd.DataFrame:
    """Hands matching every criterion given (ids contain the text; pots in cents)."""
    return ctx.frame(
        """
        WITH m AS (
            SELECT h.hand_id, h.time, h.time_text, h.table_id, h.dealer_id, h.pot
            FROM mart_hands AS h
            WHERE ($table = '' OR contains(lower(h.table_id), lower($table)))
              AND ($dealer = '' OR contains(lower(h.dealer_id), lower($dealer)))
              AND ($start IS NULL OR h.day >= $start) AND ($end IS NULL OR h.day <= $end)
              AND ($min_pot IS NULL OR h.pot >= $min_pot)
              AND ($max_pot IS NULL OR h.pot <= $max_pot)
              AND ($player = '' OR h.hand_id IN (
                       SELECT hand_id FROM stg_seats
                       WHERE contains(lower(player_id), lower($player))))
              AND ($code = '' OR h.hand_id IN (SELECT hand_id FROM mart_findings
                                               WHERE code = upper($code)))),
             page AS (SELECT * FROM m ORDER BY time DESC, hand_id LIMIT $limit)
        -- The codes and the count are asked of the page and the matches only, never of a
        -- window over every match (a broad search matches a million hands).
        SELECT p.hand_id, p.time_text, p.table_id, p.dealer_id, p.pot,
               (SELECT string_agg(DISTINCT f.code, ' ' ORDER BY f.code) FROM mart_findings f
                WHERE f.hand_id = p.hand_id) AS codes,
               (SELECT count(*) FROM m) AS total
        FROM page AS p ORDER BY p.time DESC, p.hand_id
        """,
        {
            "player": player.strip(), "dealer": dealer.strip(), "table": table.strip(),
            "code": code.strip(), "start": start, "end": end, "min_pot": min_pot,
            "max_pot": max_pot, "limit": limit,
        },
    )  # fmt: skip
