"""The report files: escaped HTML with inline charts, findings.csv, summary.json."""

from __future__ import annotations

import csv
import json
import re

from openers.report.render import CSV_COLUMNS, render_html, write_report
from tests.report.sample import HOSTILE, sample_report


def test_html_is_self_contained_and_escapes_log_text():
    html = render_html(sample_report())
    assert HOSTILE not in html
    assert "&lt;img src=x onerror=" in html
    # Offline: no script, no external stylesheet, image or font.
    assert "<script" not in html.lower()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert html.count("<svg") == 2  # findings per day, findings by rule
    for section in ("totals", "per-day", "breakdowns", "review", "quarantine"):
        assert f'id="{section}"' in html
    assert "What it does: counts raises." in html
    assert "BCY-T01-000004:31" in html
    assert '<span class="hit">    31  Seat 3: raises 10 to 60</span>' in html


def test_csv_and_summary_say_what_the_page_says(tmp_path):
    report = sample_report()
    files = write_report(report, tmp_path / "run-7")
    with files.csv.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert [r["code"] for r in rows] == ["P402", "B101"]
    assert rows[0]["message"] == HOSTILE  # the CSV keeps the text as it is
    assert json.loads(rows[1]["evidence"]) == {"bets": 6, "cap": 5}
    summary = json.loads(files.summary.read_text())
    assert summary["totals"]["findings_by_severity"] == {"critical": 1, "major": 1, "minor": 0}
    assert summary["findings_by_code"] == {"P402": 1, "B101": 1}
    assert summary["review_first"] == ["BCY-T02-000001", "BCY-T01-000004:31"]
    assert len(summary["findings_per_day"]) == 30
    assert not list(tmp_path.glob("run-7/.*"))  # no temporary file left behind
