"""The audit layer of the store: findings replace earlier ones, views are public."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from audit.engine import AuditResult
from audit.profiles import load_profile
from audit.results import result_rows, write_rows
from audit.store import audit_store
from ingest.load import ingest_paths
from schemas.store import connect
from tests.audit.harness import FIXTURES


def _store(tmp_path: Path) -> duckdb.DuckDBPyConnection:
    db = tmp_path / "s.duckdb"
    ingest_paths([str(FIXTURES / "B105.log"), str(FIXTURES / "B106.log")], str(db))
    return connect(db)


def _count(con: duckdb.DuckDBPyConnection, sql: str) -> int:
    row = con.execute(sql).fetchone()
    assert row is not None
    return int(row[0])


def test_audit_store_writes_and_reaudit_replaces(tmp_path: Path) -> None:
    con = _store(tmp_path)
    robert = load_profile("robert").with_selection(select=["B"])
    first = audit_store(con, robert, workers=1)
    assert (first.hands, first.findings) == (6, 3)
    again = audit_store(con, robert, workers=1)
    assert again == first
    assert _count(con, "SELECT count(*) FROM findings") == 3
    assert _count(con, "SELECT count(*) FROM audit_hands") == 6
    row = con.execute(
        "SELECT code, severity, table_id, line, lines, seat, evidence->>'owed_cents', source "
        "FROM findings WHERE hand_id = 'B105-overcall'").fetchone()
    assert row == ("B105", "major", "B105-overcall-T", 28, [28], 1, "1000", "—")


def test_a_store_from_before_lines_gains_the_column(tmp_path: Path) -> None:
    """An older store's audit_findings has no `lines`: the DDL adds it, old rows read
    their own line, and a new audit writes the column."""
    db = tmp_path / "old.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE audit_findings (hand_id VARCHAR NOT NULL, table_id VARCHAR NOT "
                "NULL, code VARCHAR NOT NULL, name VARCHAR NOT NULL, severity VARCHAR NOT "
                "NULL, line INTEGER, action_index INTEGER, seat INTEGER, message VARCHAR NOT "
                "NULL, evidence JSON NOT NULL, source VARCHAR NOT NULL, profile VARCHAR NOT "
                "NULL)")
    con.execute("INSERT INTO audit_findings VALUES ('old', 'T', 'B101', 'x', 'major', 7, 0, 1, "
                "'m', '{}', 'R-DH 1', 'robert')")
    con.close()
    ingest_paths([str(FIXTURES / "B105.log")], str(db))
    con = connect(db)
    assert con.execute("SELECT lines FROM findings WHERE hand_id = 'old'").fetchone() == ([7],)
    audit_store(con, load_profile("robert").with_selection(select=["B105"]), workers=1)
    lines = con.execute("SELECT lines FROM findings WHERE hand_id = 'B105-overcall'").fetchone()
    assert lines == ([28],)


def test_audit_of_some_hands_touches_only_them(tmp_path: Path) -> None:
    con = _store(tmp_path)
    betting = load_profile("robert").with_selection(select=["B"])
    audit_store(con, betting, workers=1)
    quiet = betting.with_selection(ignore=["B105"])
    summary = audit_store(con, quiet, ["B105-overcall"], workers=1)
    assert (summary.hands, summary.findings) == (1, 0)
    assert _count(con, "SELECT count(*) FROM findings WHERE code = 'B105'") == 1
    profiles = dict(con.execute("SELECT hand_id, profile FROM audit_hands").fetchall())
    assert profiles["B105-overcall"] == "robert" and len(profiles) == 6


def test_reaudit_of_one_deal_still_compares_it_with_the_deal_before(tmp_path: Path) -> None:
    db = tmp_path / "j.duckdb"
    ingest_paths([str(FIXTURES / "J504.log")], str(db))
    con = connect(db)
    robert = load_profile("robert")
    audit_store(con, robert, workers=1)
    before = con.execute("SELECT hand_id, code, line FROM findings ORDER BY ALL").fetchall()
    flagged = sorted({h for h, code, _ in before if code == "J504"})
    assert flagged
    summary = audit_store(con, robert, flagged[:1], workers=1)
    assert summary.hands == 1
    assert con.execute("SELECT hand_id, code, line FROM findings ORDER BY ALL").fetchall() == before


def _findings(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, int]]:
    return con.execute("SELECT hand_id, code, line FROM findings ORDER BY ALL").fetchall()


def test_new_deals_are_compared_with_the_stored_deal_before_them(
    tmp_path: Path, monkeypatch
) -> None:
    """Auditing only a table's later deals (the nightly's new hands) reads the stored
    earlier deal as their previous one, never None, even when a batch starts inside the
    table; a table's really-first deal is judged alone (J501 on J501-T4-4)."""
    import audit.store

    db = tmp_path / "j.duckdb"
    ingest_paths([str(FIXTURES / "J504.log"), str(FIXTURES / "J501.log")], str(db))
    con = connect(db)
    robert = load_profile("robert")
    audit_store(con, robert, workers=1)
    whole = _findings(con)
    assert ("J501-T4-4", "J501", 438) in whole
    firsts = {h for (h,) in con.execute(
        "SELECT hand_id FROM (SELECT hand_id, row_number() OVER (PARTITION BY table_id "
        "ORDER BY time, hand_id) AS n FROM stg_hands) WHERE n = 1").fetchall()}
    later = [h for (h,) in con.execute("SELECT hand_id FROM stg_hands").fetchall()
             if h not in firsts]
    con.execute("DELETE FROM audit_findings")
    monkeypatch.setattr(audit.store, "BATCH_HANDS", 2)  # batches start inside tables
    audit_store(con, robert, later, workers=1)
    assert _findings(con) == [f for f in whole if f[0] not in firsts]
    assert any(code in {"J504", "J502"} for _, code, _ in _findings(con))


def test_each_deal_audited_alone_reads_the_deals_its_findings_need(tmp_path: Path) -> None:
    """A nightly audit reads only a few deals before its hands (back to the last deal that
    carries nothing forward), not each table's history: auditing every deal of the J
    fixtures alone -- carried pots, forfeited money (J506), the button, antes -- finds
    exactly what auditing them all together does."""
    from audit.store import _stored

    db = tmp_path / "j.duckdb"
    ingest_paths(sorted(str(p) for p in FIXTURES.glob("J5*.log")), str(db))
    con = connect(db)
    robert = load_profile("robert")
    audit_store(con, robert, workers=1)
    whole = _findings(con)
    assert {code for _, code, _ in whole} >= {"J501", "J504", "J506"}
    ids = [h for (h,) in con.execute("SELECT hand_id FROM stg_hands ORDER BY ALL").fetchall()]
    con.execute("DELETE FROM audit_findings")
    for hand_id in ids:
        audit_store(con, robert, [hand_id], workers=1)
    assert _findings(con) == whole
    # The context is bounded: the last deal of a table whose pots were all won reads only
    # the deals from the last one that carried nothing forward.
    last = con.execute(
        "SELECT hand_id, table_id FROM stg_hands ORDER BY time DESC, hand_id DESC LIMIT 1"
    ).fetchone()
    assert last is not None
    read = _stored(con.cursor(), [last[0]])
    table = _count(con, f"SELECT count(*) FROM stg_hands WHERE table_id = '{last[1]}'")
    assert 1 < read.num_rows <= table


def test_audit_hands_keeps_one_row_a_hand_without_a_key(tmp_path: Path) -> None:
    """audit_hands has no primary key (its index cost a re-audit seconds at commit): a
    re-audit, of all hands or some, replaces each hand's row, and a write naming a hand
    twice is refused with nothing written."""
    con = _store(tmp_path)
    keys = con.execute("SELECT count(*) FROM duckdb_constraints() WHERE table_name = "
                       "'audit_hands' AND constraint_type = 'PRIMARY KEY'").fetchone()
    assert keys == (0,)
    robert = load_profile("robert")
    audit_store(con, robert, workers=1)
    audit_store(con, robert, workers=1)
    audit_store(con, robert, ["B105-overcall"], workers=1)
    assert _count(con, "SELECT count(*) FROM audit_hands") == 6
    assert _count(con, "SELECT count(DISTINCT hand_id) FROM audit_hands") == 6
    row = result_rows([AuditResult("B105-overcall", "B105-overcall-T")], "robert")
    before = con.execute("SELECT * FROM audit_hands ORDER BY hand_id").fetchall()
    with pytest.raises(ValueError, match="names a hand twice"):
        write_rows(con, [row, row])
    assert con.execute("SELECT * FROM audit_hands ORDER BY hand_id").fetchall() == before
