"""Missing data found by the nightly job shows on the Overview, the Data quality page and
in the report (issue 12: quiet nights that are not fine)."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from openers.report import report_for_run
from tests.dashboards.conftest import open_page


@pytest.fixture
def missing_env(store_missing_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OPENERS_DB", str(store_missing_data))
    monkeypatch.setenv("OPENERS_REVIEWS", str(tmp_path / "r.sqlite"))
    return store_missing_data


def test_overview_and_data_quality_page_show_the_silent_table(missing_env: Path) -> None:
    at = open_page("overview")
    assert any("Missing data" in e.value and "T09" in e.value for e in at.error)
    last_run = [w.value for w in (*at.warning, *at.success) if "Last run" in w.value]
    assert last_run and "**ok**" not in last_run[0]
    at = open_page("data_quality")
    table = at.dataframe[0].value
    assert table[["code", "table_id", "observed", "expected"]].values.tolist() == [
        ["silent-table", "T09", 0, 240]
    ]


def test_the_report_says_data_is_missing(missing_env: Path, tmp_path: Path) -> None:
    con = duckdb.connect(str(missing_env), read_only=True)
    try:
        (run_id,) = con.execute("SELECT max(run_id) FROM runs").fetchone() or (0,)
        files = report_for_run(con, run_id, tmp_path / "report")
    finally:
        con.close()
    html = files.html.read_text()
    header = html[html.index("<header>"): html.index("</header>")]
    assert "MISSING DATA" in header
    box = html[html.index('id="decision"'): html.index('id="totals"')]
    assert "Missing data" in box and "table T09 dealt 240 hands" in box
    summary = json.loads(files.summary.read_text())
    assert summary["data_quality"][0]["code"] == "silent-table"
