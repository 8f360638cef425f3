"""The Browse page (every relation, faceted) and the SQL page (read-only, bounded)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import duckdb
import pytest

from dashboards import browser, queries
from dashboards.connection import signature, take_snapshot
from dashboards.sandbox import QueryRefused, run_query
from tests.dashboards.conftest import open_page, sql

assert browser  # registers its queries


def test_every_relation_pages_and_facets(store: Path, tmp_path: Path) -> None:
    con = duckdb.connect(str(store), read_only=True)
    ctx = queries.Context(con, tmp_path / "none.sqlite")
    q = queries.QUERIES
    try:
        names = q["relations"](ctx)["name"].tolist()
        assert {"hands", "findings", "actions", "quarantine", "runs", "mart_findings",
                "stg_hands", "raw_hands", "audit_findings"} <= set(names)  # fmt: skip
        for name in names:
            columns = q["relation_columns"](ctx, relation=name)["column"].tolist()
            page = q["browse_page"](ctx, relation=name, rows=5)
            (rows,) = sql(store, f'SELECT count(*) FROM "{name}"')[0]
            assert len(page) == min(5, rows), name
            facet = q["facet_values"](ctx, relation=name, column=columns[0])
            assert facet["rows"].sum() <= rows
        with pytest.raises(KeyError):
            q["browse_page"](ctx, relation='findings" ; DROP TABLE hands; --')
    finally:
        con.close()


@pytest.mark.usefixtures("app_env")
def test_browse_page_filters_by_facet_and_text(store: Path) -> None:
    at = open_page("browse", {"table": "findings", "f.severity": "critical"})
    (critical,) = sql(store, "SELECT count(*) FROM findings WHERE severity = 'critical'")[0]
    assert f"**{critical:,} rows** of findings match" in "\n".join(m.value for m in at.markdown)
    assert set(at.dataframe[0].value["severity"]) == {"critical"}
    at.selectbox(key="b_text_col_findings").set_value("code")
    at.text_input(key="b_text_findings").input("p4").run()
    (both,) = sql(store, "SELECT count(*) FROM findings WHERE severity = 'critical'"
                         " AND code ILIKE '%p4%'")[0]  # fmt: skip
    assert f"**{both:,} rows**" in "\n".join(m.value for m in at.markdown)
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == ["Download CSV", "Download JSON"]
    assert at.query_params["table"] == "findings"


def test_export_is_json_and_safe_csv(store: Path, tmp_path: Path) -> None:
    con = duckdb.connect(str(store), read_only=True)
    try:
        frame = queries.QUERIES["browse_export"](
            queries.Context(con, tmp_path / "x"), relation="hands", facets={}, text_column="",
            text="",
        )  # fmt: skip
    finally:
        con.close()
    records = json.loads(frame.to_json(orient="records", date_format="iso"))
    assert len(records) == sql(store, "SELECT count(*) FROM hands")[0][0]


@pytest.fixture
def snapshot(store: Path, tmp_path: Path):
    copy = tmp_path / "store.duckdb"
    copy.write_bytes(store.read_bytes())
    snap = take_snapshot(copy, signature(copy))
    yield snap
    snap.close()


WRITES = (
    "CREATE TABLE evil (x INTEGER)",
    "INSERT INTO quarantine SELECT * FROM quarantine LIMIT 1",
    "UPDATE ops_runs SET status = 'ok'",
    "DELETE FROM ops_runs",
    "DROP VIEW hands",
    "ALTER TABLE ops_runs ADD COLUMN x INTEGER",
    "COPY (SELECT * FROM hands) TO '{dir}/leak.csv'",
    "EXPORT DATABASE '{dir}/export'",
    "ATTACH '{dir}/new.duckdb' AS other",
    "ATTACH '{store}' AS writable",
    "SET enable_external_access = true",
    "INSTALL httpfs",
    "LOAD httpfs",
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM read_text('{store}')",
    "USE memory; ATTACH '{dir}/new2.duckdb' AS n2",
)


def test_the_sql_page_cannot_write(snapshot, store: Path, tmp_path: Path) -> None:
    before = hashlib.sha256(snapshot.path.read_bytes()).hexdigest()
    store_before = hashlib.sha256(store.read_bytes()).hexdigest()
    for statement in WRITES:
        text = statement.format(dir=tmp_path, store=snapshot.path)
        with pytest.raises(QueryRefused):
            run_query(snapshot.path, text)
    assert hashlib.sha256(snapshot.path.read_bytes()).hexdigest() == before
    assert hashlib.sha256(store.read_bytes()).hexdigest() == store_before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store.duckdb"]
    # What it may do changes nothing: a checkpoint of a read-only database is a no-op, and
    # what it creates lives in its own throw-away memory, gone with the query.
    run_query(snapshot.path, "CHECKPOINT store")
    run_query(snapshot.path, "CREATE TABLE memory.scratch AS SELECT 1 AS x")
    assert hashlib.sha256(snapshot.path.read_bytes()).hexdigest() == before
    with pytest.raises(QueryRefused):
        run_query(snapshot.path, "SELECT * FROM memory.scratch")


def test_the_sql_page_has_a_row_limit_and_a_timeout(snapshot) -> None:
    result = run_query(snapshot.path, "SELECT * FROM range(50000)", max_rows=123)
    assert len(result.frame) == 123 and result.truncated
    with pytest.raises(QueryRefused, match="timeout"):
        run_query(snapshot.path, "SELECT count(*) FROM range(1000000000000) a", seconds=0.5)


@pytest.mark.usefixtures("app_env")
def test_sql_page(store: Path) -> None:
    at = open_page("sql", {"sql": "SELECT count(*) AS n FROM hands"})
    (hands,) = sql(store, "SELECT count(*) FROM hands")[0]
    assert at.dataframe[0].value["n"].tolist() == [hands]
    at = open_page("sql", {"sql": "DELETE FROM ops_runs"})
    assert any("refused" in e.value for e in at.error)
    assert sql(store, "SELECT count(*) FROM ops_runs")[0][0] > 0
