"""The finding key is defined once (schemas.findings.finding_key) and stored, never rebuilt.

The audit stores it with every finding, the integrity analysis with every alert; the
marts, the runs' claims, the report and the reviews read that column. A store written
before the column existed is filled in from the same function when it is opened, and its
runs' claims, keyed then by a SHA-256 of each finding's fields, are translated.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from openers.nightly.job import ExitCode
from schemas.findings import finding_key
from schemas.reviews import FindingKey
from schemas.store import connect
from schemas.upgrade import _RETIRED_RUN_KEY_SQL
from tests.nightly.handmaker import write_day
from tests.nightly.jobtools import run_in_process

TABLES = ("K1", "K2")


def _night(tmp_path: Path) -> Path:
    write_day(tmp_path / "inbox", TABLES, range(15))
    assert run_in_process(tmp_path).exit_code is ExitCode.OK
    return tmp_path / "store.duckdb"


def test_every_reader_sees_the_key_the_function_makes(tmp_path: Path) -> None:
    db = _night(tmp_path)
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute(
        "SELECT f.hand_id, f.code, f.action_index, f.seat, f.finding_key, m.finding_key, "
        "r.finding_key FROM findings f JOIN mart_findings m USING (finding_key) "
        "LEFT JOIN ops_run_findings r USING (finding_key)").fetchall()
    assert rows, "the day has over-cap raises"
    for hand, code, index, seat, stored, in_mart, claimed in rows:
        assert stored == in_mart == claimed == finding_key(hand, code, index, seat)
        assert FindingKey(hand, code, index, seat).text() == stored
    assert finding_key("H-1", "B101", None, 3) == "H-1|B101|-|3"


def _as_before_the_column(db: Path) -> int:
    """Turn a current store into one written before the key was stored; the runs' claims
    keyed as they were then. Returns the number of claims."""
    con = duckdb.connect(str(db))
    claims = con.execute("SELECT count(*) FROM ops_run_findings").fetchone()
    assert claims is not None and claims[0] > 0
    con.execute("DELETE FROM ops_run_findings")
    con.execute(f"INSERT INTO ops_run_findings SELECT DISTINCT {_RETIRED_RUN_KEY_SQL}, 1 "
                "FROM audit_findings")
    con.execute("INSERT INTO ops_run_findings VALUES (repeat('ab', 32), 1)")  # re-audited away
    con.execute("ALTER TABLE audit_findings ALTER COLUMN finding_key DROP NOT NULL")
    con.execute("UPDATE audit_findings SET finding_key = NULL")
    con.close()
    return int(claims[0])


def test_a_store_from_before_the_column_is_filled_from_the_one_function(tmp_path: Path) -> None:
    db = _night(tmp_path)
    with duckdb.connect(str(db), read_only=True) as con:
        before = con.execute("SELECT finding_key, run_id FROM ops_run_findings "
                             "ORDER BY 1").fetchall()
    claims = _as_before_the_column(db)
    con = connect(db)  # opened for writing: the schema and its rows are brought up to date
    assert con.execute("SELECT count(*) FROM audit_findings "
                       "WHERE finding_key IS NULL").fetchone() == (0,)
    after = con.execute("SELECT finding_key, run_id FROM ops_run_findings ORDER BY 1").fetchall()
    assert after == before and len(after) == claims
    for hand, code, index, seat, key in con.execute(
            "SELECT hand_id, code, action_index, seat, finding_key FROM findings").fetchall():
        assert key == finding_key(hand, code, index, seat)
    con.close()
    write_day(tmp_path / "inbox", TABLES, range(15, 23), append=True)  # 21 is over the cap
    second = run_in_process(tmp_path)
    assert second.exit_code is ExitCode.OK
    assert second.counts.hands == 16
    with duckdb.connect(str(db), read_only=True) as con:
        new = con.execute("SELECT count(*) FROM findings f JOIN ops_run_findings r "
                          "USING (finding_key) WHERE r.run_id = ?",
                          [second.run_id]).fetchone()
        hands_new = con.execute("SELECT count(DISTINCT hand_id) FROM findings f JOIN "
                                "ops_run_findings r USING (finding_key) WHERE r.run_id = ? "
                                "AND f.hand_id NOT IN (SELECT hand_id FROM ops_run_hands "
                                "WHERE run_id = ?)", [second.run_id, second.run_id]).fetchone()
    assert new is not None and new[0] >= 1  # the new day's over-cap raises, not the old ones
    assert hands_new == (0,)
