"""Bring the rows of a store made by an earlier version up to the current schema.

The DDL files add missing columns (``ALTER TABLE ... ADD COLUMN IF NOT EXISTS``); what a
new column holds on old rows, when SQL alone cannot say it without a second definition
of something, is filled here, in Python, from the one definition. Every step is
idempotent and cheap on a current store (it looks for rows left to fill and finds none).

- ``audit_findings.finding_key`` and ``integrity_alerts.finding_key`` (added with the
  finding key stored once): filled with :func:`schemas.findings.finding_key`.
- ``ops_run_findings``: a store of that time keyed the findings a run first saw by a
  SHA-256 of their fields, message included. Each such key is translated to the
  finding's key, so a store's history of runs survives the upgrade; a key whose finding
  was since replaced by a re-audit (no row matches it any more) names nothing and goes.
"""

from __future__ import annotations

import duckdb
import pyarrow as pa

from schemas.findings import finding_key

__all__ = ["upgrade_rows"]

#: The retired run-claim key (before the finding key was stored): kept only to translate
#: the rows of a store written then. Nothing computes new keys with it.
_RETIRED_RUN_KEY_SQL = (
    "sha256(concat_ws('|', code, hand_id, table_id, coalesce(CAST(line AS VARCHAR), ''),"
    " coalesce(CAST(action_index AS VARCHAR), ''), coalesce(CAST(seat AS VARCHAR), ''),"
    " message))"
)


def upgrade_rows(con: duckdb.DuckDBPyConnection) -> None:
    """Fill what the current schema expects on rows written by an earlier version."""
    _fill_keys(con, "audit_findings", "hand_id", "action_index", "seat")
    _fill_keys(con, "integrity_alerts", "alert_key", "NULL", "NULL")
    _translate_run_keys(con)


def _fill_keys(con: duckdb.DuckDBPyConnection, table: str, subject: str, index: str,
               seat: str) -> None:
    rows = con.execute(
        f"SELECT rowid, {subject}, code, {index}, {seat} FROM {table} "
        "WHERE finding_key IS NULL").fetchall()
    if not rows:
        return
    keys = pa.table({
        "row": pa.array([r[0] for r in rows], pa.int64()),
        "key": pa.array([finding_key(r[1], r[2], r[3], r[4]) for r in rows], pa.string()),
    })
    con.register("_upgrade_keys", keys)
    try:
        con.execute(f"UPDATE {table} SET finding_key = k.key FROM _upgrade_keys AS k "
                    f"WHERE {table}.rowid = k.row")
    finally:
        con.unregister("_upgrade_keys")


def _translate_run_keys(con: duckdb.DuckDBPyConnection) -> None:
    retired = con.execute(
        "SELECT count(*) FROM ops_run_findings r WHERE NOT EXISTS "
        "(SELECT 1 FROM audit_findings f WHERE f.finding_key = r.finding_key)").fetchone()
    if not retired or retired[0] == 0:
        return
    con.execute(f"""
        CREATE TEMP TABLE _run_keys AS
        SELECT r.finding_key AS old, min(r.run_id) AS run_id, f.finding_key AS new
        FROM ops_run_findings AS r
        JOIN (SELECT {_RETIRED_RUN_KEY_SQL} AS old, finding_key FROM audit_findings) AS f
          ON f.old = r.finding_key
        GROUP BY r.finding_key, f.finding_key
    """)
    try:
        con.execute("""
            DELETE FROM ops_run_findings r WHERE NOT EXISTS
                (SELECT 1 FROM audit_findings f WHERE f.finding_key = r.finding_key)
        """)
        con.execute("""
            INSERT INTO ops_run_findings (finding_key, run_id)
            SELECT new, min(run_id) FROM _run_keys
            WHERE NOT EXISTS (SELECT 1 FROM ops_run_findings o WHERE o.finding_key = new)
            GROUP BY new
        """)
    finally:
        con.execute("DROP TABLE IF EXISTS _run_keys")
