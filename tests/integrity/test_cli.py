"""``openers integrity`` and ``openers integrity-tests``; the store tables and marts."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from audit.integrity.output import CSV_FIELDS
from audit.integrity.registry import codes
from openers.cli import app
from tests.integrity.conftest import Room


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def test_text_ranks_the_alerts(cheat_room: Room) -> None:
    code, out = invoke("integrity", "--db", str(cheat_room.store))
    assert code == 0, out
    assert "4,000 hands" in out and "false discovery rate of 0.05" in out
    assert "  1. " in out and "hands (" in out


def test_json_has_every_alert_with_its_hands(cheat_room: Room) -> None:
    code, out = invoke("integrity", "--db", str(cheat_room.store), "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["hands"] == 4000 and data["alerts"]
    first = data["alerts"][0]
    assert first["rank"] == 1 and first["hands"] and first["evidence"]["hands"][0]["hand_id"]
    assert set(data["cells_by_code"]) <= set(codes())


def test_csv_one_alert_a_row(cheat_room: Room) -> None:
    code, out = invoke("integrity", "--db", str(cheat_room.store), "--format", "csv",
                       "--tests", "C")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rows and tuple(rows[0]) == CSV_FIELDS
    assert all(r["code"].startswith("C") for r in rows)
    assert all(json.loads(r["evidence"])["hands"] for r in rows)


def test_store_keeps_runs_and_the_marts_read_them(cheat_room: Room, tmp_path: Path) -> None:
    store = tmp_path / "copy.duckdb"
    shutil.copyfile(cheat_room.store, store)
    for _ in range(2):
        code, out = invoke("integrity", "--db", str(store), "--store", "--format", "json")
        assert code == 0, out
    con = duckdb.connect(str(store), read_only=True)
    try:
        runs = con.execute("SELECT count(*), max(alerts) FROM integrity_runs").fetchall()[0]
        assert runs[0] == 2 and runs[1] > 0
        history = con.execute("SELECT count(DISTINCT integrity_run_id) FROM integrity_alerts"
                              ).fetchall()[0][0]
        assert history == 2
        latest = con.execute("SELECT count(*), min(rank), count(DISTINCT integrity_run_id) "
                             "FROM integrity_alerts_latest").fetchall()[0]
        assert latest[0] == runs[1] and latest[1] == 1 and latest[2] == 1
        assert con.execute("SELECT count(DISTINCT integrity_run_id) FROM integrity_tests"
                           ).fetchall()[0][0] == 1
        fairness = con.execute("SELECT kind, dealer_id, n, mean, band_low, band_high "
                               "FROM mart_integrity_fairness").fetchall()
        assert {k for k, *_ in fairness} == {"dealt", "draw"}
        assert all(lo < 0.5 < hi for *_, lo, hi in fairness)
        bins = con.execute("SELECT sum(count) = any_value(n) FROM mart_integrity_pit_bins "
                           "GROUP BY kind, dealer_id").fetchall()
        assert bins and all(ok for (ok,) in bins)
        links = con.execute("SELECT player_a < player_b, alerts FROM mart_integrity_links "
                            "WHERE alerts > 0").fetchall()
        assert links and all(ordered for ordered, _ in links)
        evidence = json.loads(con.execute(
            "SELECT evidence FROM integrity_alerts_latest WHERE rank = 1").fetchall()[0][0])
        assert evidence["hands"] and "ci95" in evidence["effect"]
    finally:
        con.close()


@pytest.mark.parametrize("args", [
    ("--db", "/nonexistent/store.duckdb"),
    ("--tests", "X9"),
    ("--fdr", "1.5"),
    ("--profile", "nosuchhouse"),
])
def test_usage_errors_exit_2(cheat_room: Room, args: tuple[str, ...]) -> None:
    full = ["integrity", *args] if "--db" in args else ["integrity", "--db",
                                                        str(cheat_room.store), *args]
    code, out = invoke(*full)
    assert code == 2, out


def test_the_tests_are_listed_and_explained() -> None:
    code, out = invoke("integrity-tests")
    assert code == 0 and all(c in out for c in codes())
    code, out = invoke("integrity-tests", "f104")
    assert code == 0 and "Assumes" in out and "Not valid when" in out
    code, _ = invoke("integrity-tests", "Z999")
    assert code == 2
