"""The nightly report's integrity section."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
from typer.testing import CliRunner

from openers.cli import app
from tests.integrity.conftest import Room
from tests.integrity.test_dashboard_page import analysed

__all__ = ["analysed"]


def _report(store: Path, out: Path) -> tuple[str, dict[str, object]]:
    result = CliRunner().invoke(app, ["report", "--db", str(store), "--out", str(out)])
    assert result.exit_code == 0, result.output
    html = (out / "report.html").read_text(encoding="utf-8")
    return html, json.loads((out / "summary.json").read_text(encoding="utf-8"))


def test_the_report_lists_the_top_alerts(analysed: Path, tmp_path: Path) -> None:
    html, summary = _report(analysed, tmp_path)
    con = duckdb.connect(str(analysed), read_only=True)
    try:
        alerts, first = con.execute(
            "SELECT count(*), min_by(code || ' ' || name, rank) FROM integrity_alerts_latest"
        ).fetchall()[0]
    finally:
        con.close()
    assert 'id="integrity"' in html and first in html
    integrity = summary["integrity"]
    assert isinstance(integrity, dict)
    assert integrity["alerts"] == alerts and integrity["new_alerts"] == alerts
    assert len(integrity["top"]) == min(alerts, 10)


def test_a_store_never_analysed_says_so(cheat_room: Room, tmp_path: Path) -> None:
    html, summary = _report(cheat_room.store, tmp_path)
    assert "No integrity analysis in the store yet." in html
    assert summary["integrity"] is None
