"""The report on stores at the edges: a hand in year 1, formulas and payloads in log fields."""

from __future__ import annotations

import csv
import json
from datetime import datetime, timedelta, timezone

from typer.testing import CliRunner

from openers.cli import app
from tests.nightly.handmaker import hand_text

PACIFIC = timezone(timedelta(hours=-8))


def _ingest(tmp_path, text: str):
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "t01.log").write_text(text, encoding="utf-8")
    store = tmp_path / "store.duckdb"
    runner = CliRunner()
    for args in (["ingest", str(inbox), "--db", str(store)], ["audit", "--db", str(store)]):
        done = runner.invoke(app, args)
        assert done.exit_code in (0, 1), done.output
    return store


def test_report_when_the_newest_hand_is_at_the_oldest_time_allowed(tmp_path):
    """Issue 15 obs 13: `openers report` crashed (OverflowError) on a hand dated in year 1.

    Times are now bounded by the grammar (docs/limits.md: 1900-01-02 to 9999-12-30 in
    UTC), so the edge a report can meet is the oldest allowed day, in its local time.
    """
    text = hand_text("T01", 1, over_cap=True, when=datetime(1900, 1, 2, 0, 10, tzinfo=PACIFIC))
    store = _ingest(tmp_path, text + "\n")
    done = CliRunner().invoke(app, ["report", "--db", str(store), "--out", str(tmp_path / "r")])
    assert done.exit_code == 0, done.output
    html = (tmp_path / "r" / "report.html").read_text()
    assert "1900-01-02 00:10:00 -08:00" in html
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["dates_of_play"] == ["1900-01-02", "1900-01-02"]
    assert summary["findings_per_day"][-1]["day"] == "1900-01-02"


def test_report_when_a_hand_is_dated_in_year_one(tmp_path):
    """The year-1 hand of observation 13 is quarantined as out of range; the report runs."""
    text = hand_text("T01", 1, over_cap=True, when=datetime(1, 1, 1, 0, 10, tzinfo=PACIFIC))
    store = _ingest(tmp_path, text + "\n")
    done = CliRunner().invoke(app, ["report", "--db", str(store), "--out", str(tmp_path / "r")])
    assert done.exit_code == 0, done.output
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["quarantined"] == 1, summary
    html = (tmp_path / "r" / "report.html").read_text()
    assert "Time outside 1900-01-02 .. 9999-12-30" in html


def test_findings_csv_neutralises_formulas_from_the_logs(tmp_path):
    """Issue 15 obs 9: a dealer or player id starting with = + - @ went into findings.csv."""
    text = hand_text("T01", 1, over_cap=True)
    text = text.replace("Dealer: D-4401", "Dealer: =HYPERLINK(\"http://evil.example\")")
    text = text.replace("P-30988", "@SUM(1+1)")
    store = _ingest(tmp_path, text + "\n")
    done = CliRunner().invoke(app, ["report", "--db", str(store), "--out", str(tmp_path / "r")])
    assert done.exit_code == 0, done.output
    with (tmp_path / "r" / "findings.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    b101 = next(r for r in rows if r["code"] == "B101")
    assert b101["dealer_id"] == "'=HYPERLINK(\"http://evil.example\")"
    assert b101["player_id"] == "'@SUM(1+1)"
    assert not [c for r in rows for c in r.values() if c[:1] in ("=", "+", "-", "@")]


def test_links_and_currency_come_from_the_house_or_the_command(tmp_path):
    store = _ingest(tmp_path, hand_text("T01", 1, over_cap=True) + "\n")
    house = tmp_path / "house.toml"
    house.write_text('extends = "robert"\n[report]\ncurrency = "€"\n'
                     'dashboard_url = "https://audit.example/"\n', encoding="utf-8")  # fmt: skip
    runner = CliRunner()
    done = runner.invoke(app, ["report", "--db", str(store), "--out", str(tmp_path / "a"),
                               "--house", str(house)])  # fmt: skip
    assert done.exit_code == 0, done.output
    html = (tmp_path / "a" / "report.html").read_text()
    assert 'href="https://audit.example/hand?hand_id=BCY-T01-000001"' in html
    assert "<th>amount</th>" not in html or "€" in html
    assert "amounts in €" in html
    done = runner.invoke(app, ["report", "--db", str(store), "--out", str(tmp_path / "b"),
                               "--house", str(house), "--dashboard-url", "http://floor:8501"])
    assert done.exit_code == 0, done.output
    assert 'href="http://floor:8501/hand?hand_id=' in (tmp_path / "b" / "report.html").read_text()
    bad = tmp_path / "bad.toml"
    bad.write_text("[report]\ncolour = 1\n", encoding="utf-8")
    done = runner.invoke(app, ["report", "--db", str(store), "--out", str(tmp_path / "c"),
                               "--house", str(bad)])  # fmt: skip
    assert done.exit_code == 2 and "report.colour" in done.output
