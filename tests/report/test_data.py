"""The report's content from a real store: a nightly run's report and ``openers report``."""

from __future__ import annotations

import json
from datetime import date

import duckdb
import pytest
from typer.testing import CliRunner

from openers.cli import app
from openers.report import report_since
from openers.report.data import build_report, run_scope, since_scope
from tests.nightly.handmaker import broken_hand_text, write_day
from tests.nightly.jobtools import run_in_process

OVER_CAP = {f"BCY-T0{t}-{n:06d}" for t in (1, 2) for n in (0, 7, 14)}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = tmp_path_factory.mktemp("store")
    inbox = root / "inbox"
    write_day(inbox, ("T01", "T02"), range(20))
    with (inbox / "t02.log").open("a", encoding="utf-8") as handle:
        handle.write(broken_hand_text("T02", 20) + "\n")
    result = run_in_process(root, reports=root / "reports")
    return root, result


def _con(root):
    return duckdb.connect(str(root / "store.duckdb"), read_only=True)


def test_run_report_counts_what_the_run_added(store):
    root, result = store
    con = _con(root)
    try:
        report = build_report(con, run_scope(result.run_id), title="t")
    finally:
        con.close()
    assert (report.totals.hands, report.totals.tables, report.totals.quarantined) == (40, 2, 1)
    b101 = [f for f in report.findings if f.code == "B101"]
    assert {f.hand_id for f in b101} == OVER_CAP
    assert report.totals.findings["major"] >= len(b101)
    by_code = {row.key: row for row in report.by_code}
    assert by_code["B101"].major == len(b101) and by_code["B101"].label == "over-cap-raise"
    assert {row.key for row in report.by_table} <= {"T01", "T02"}
    # Every finding, worst first; B101's rule text comes from the registry docstring.
    ranks = [("critical", "major", "minor").index(f.severity) for f in report.findings]
    assert ranks == sorted(ranks)
    assert "What it does:" in report.rules["B101"].text
    # Each finding shows its hand's log around the offending line, highlighted.
    reviewed = next(f for f in report.findings if f.code == "B101")
    assert reviewed.line is not None and reviewed.line in reviewed.highlight
    assert dict(reviewed.excerpt)[reviewed.line] == "Seat 3: raises 10 to 60"
    assert reviewed.time_text.endswith(" -08:00") and reviewed.time_text.startswith("2026-11-28")
    assert reviewed.link.startswith("http://localhost:8501/hand?hand_id=BCY-T0")
    # Nobody decided anything: every critical and major finding needs a decision.
    assert report.undecided == report.totals.findings["critical"] + report.totals.findings["major"]
    assert report.status_word in ("CRITICAL", "MAJOR")
    assert report.rooms == ("Bay City Card Club",) and report.profile == "robert"
    assert (report.first_day, report.last_day) == (date(2026, 11, 28), date(2026, 11, 28))
    assert report.quarantine[0].hand_id == "BCY-T02-000020"
    # The hands were played on the evening of 2026-11-28 (local), after midnight UTC.
    days = {d.day: d.total for d in report.daily}
    assert days[date(2026, 11, 28)] == report.totals.findings_total
    assert report.daily[-1].day == date(2026, 11, 28) and len(report.daily) == 30


def test_period_report_matches_and_filters_by_local_day(store):
    root, result = store
    con = _con(root)
    try:
        whole = build_report(con, since_scope(date(2026, 11, 28)), title="t")
        later = build_report(con, since_scope(date(2026, 11, 29)), title="t")
    finally:
        con.close()
    assert whole.totals.hands == 40
    assert whole.totals.findings == {s: n for s, n in result.counts.findings.items()}
    assert later.totals.hands == 0 and later.findings == []


def test_nightly_wrote_the_run_report_folder(store):
    root, result = store
    assert result.report_dir is not None
    summary = json.loads((result.report_dir / "summary.json").read_text())
    assert summary["run_id"] == result.run_id and summary["totals"]["hands"] == 40
    con = _con(root)
    try:
        stored = con.execute("SELECT report_dir FROM runs WHERE run_id = ?",
                             [result.run_id]).fetchone()[0]
    finally:
        con.close()
    assert stored == str(result.report_dir.resolve())


def test_openers_report_command(store, tmp_path):
    root, result = store
    out = tmp_path / "on-demand"
    done = CliRunner().invoke(app, ["report", "--db", str(root / "store.duckdb"),
                                    "--since", "2026-11-28", "--out", str(out)])
    assert done.exit_code == 0, done.output
    assert f"report: {(out / 'report.html').resolve()}" in done.output
    lines = (out / "findings.csv").read_text().splitlines()
    assert len(lines) - 1 == sum(result.counts.findings.values())
    by_run = CliRunner().invoke(app, ["report", "--db", str(root / "store.duckdb"),
                                      "--run", str(result.run_id), "--out", str(tmp_path / "r")])
    assert by_run.exit_code == 0, by_run.output
    missing = CliRunner().invoke(app, ["report", "--db", str(tmp_path / "none.duckdb")])
    assert missing.exit_code == 2
    no_run = CliRunner().invoke(app, ["report", "--db", str(root / "store.duckdb"),
                                      "--run", "999", "--out", str(tmp_path / "x")])
    assert no_run.exit_code == 2 and not (tmp_path / "x").exists()


def test_report_since_none_covers_every_hand(store, tmp_path):
    root, _ = store
    con = _con(root)
    try:
        files = report_since(con, None, tmp_path / "all")
    finally:
        con.close()
    assert json.loads(files.summary.read_text())["totals"]["hands"] == 40
