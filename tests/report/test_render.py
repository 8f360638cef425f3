"""The report files: escaped HTML with inline charts, findings.csv, summary.json."""

from __future__ import annotations

import csv
import json
import re

from openers.report.render import CSV_COLUMNS, SECTIONS, render_html, write_report
from tests.report.sample import FORMULA, HOSTILE, sample_report


def test_html_is_self_contained_and_escapes_log_text():
    html = render_html(sample_report())
    assert HOSTILE not in html
    assert "&lt;img src=x onerror=" in html
    # Offline: no script, no external stylesheet, image or font; links only to the hands.
    assert "<script" not in html.lower()
    assert not re.search(r"""src\s*=\s*["']?(https?:)?//""", html)
    assert set(re.findall(r'href="([^"]*)"', html)) == {
        "https://audit.example/hand?hand_id=BCY-T01-000004",
        "https://audit.example/hand?hand_id=BCY-T02-000001",
    }
    assert html.count("<svg") == 2  # findings per day, findings by rule
    for section in ("decision", "totals", "per-day", "breakdowns", "findings", "integrity",
                    "quarantine"):
        assert f'id="{section}"' in html
    assert len(SECTIONS) == 7
    assert "What it does: counts raises." in html
    assert "BCY-T01-000004:31" in html
    # The offender's line and the anchor line the evidence names are both highlighted.
    assert '<span class="hit">    31  Seat 3: raises 10 to 60</span>' in html
    assert '<span class="anchor">    27  Seat 1: opens 10</span>' in html
    assert '<span class="">    30  Seat 1: raises 10 to 50</span>' in html


def test_header_says_the_play_the_room_the_profile_and_never_ok_beside_criticals():
    html = render_html(sample_report())
    header = html[html.index("<header>"): html.index("</header>")]
    assert "Play of 2026-11-28 · Bay City Card Club · profile robert" in header
    assert '<span class="status CRITICAL">CRITICAL</span>' in header
    assert header.index("Play of") < header.index("run #7")
    assert ">ok<" not in header and "OK" not in header
    # The job's own status word is named as the job's, after the play.
    assert "job status ok" in header


def test_needs_a_decision_box_comes_first_with_the_changes():
    html = render_html(sample_report())
    main = html[html.index("<main>"):]
    assert main.index('id="decision"') < main.index('id="totals"')
    box = main[main.index('id="decision"'): main.index('id="totals"')]
    assert "<b>1</b> critical and major findings have no decision yet" in box
    assert "Table T02" in box
    assert "run #6" in box and "0 (+1)" in box and "3 (-2)" in box
    assert "codes P402" in box


def test_every_finding_is_listed_with_its_case_and_amounts_in_currency():
    html = render_html(sample_report())
    section = html[html.index('id="findings"'): html.index('id="quarantine"')]
    assert "Every finding (2)" in section
    assert "Case: <b>escalated</b> · assigned to bo · due 2026-11-30 · last by ana" in section
    assert "<th>amount</th><td>$10.00</td>" in section
    assert "2026-11-28 20:08:00 -08:00" in section


def test_csv_and_summary_say_what_the_page_says(tmp_path):
    report = sample_report()
    files = write_report(report, tmp_path / "run-7")
    with files.csv.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert [r["code"] for r in rows] == ["P402", "B101"]
    assert rows[0]["message"] == HOSTILE  # text is kept as it is ...
    assert rows[1]["evidence"] == "amount: $10.00; bets: 6; cap: 5; opened_line: 27"
    assert rows[1]["time"] == "2026-11-28 20:08:00 -08:00"
    assert (rows[1]["case_status"], rows[1]["assignee"], rows[1]["note"]) == (
        "escalated", "bo", "ask the floor")  # fmt: skip
    assert rows[1]["link"] == "https://audit.example/hand?hand_id=BCY-T01-000004"
    summary = json.loads(files.summary.read_text())
    assert summary["totals"]["findings_by_severity"] == {"critical": 1, "major": 1, "minor": 0}
    assert summary["findings_by_code"] == {"P402": 1, "B101": 1}
    assert summary["needs_decision"] == ["BCY-T02-000001"]
    assert summary["status"] == "CRITICAL" and summary["dates_of_play"] == ["2026-11-28"] * 2
    assert summary["cases"] == {"escalated": 1, "open": 1}
    assert len(summary["findings_per_day"]) == 30
    assert not list(tmp_path.glob("run-7/.*"))  # no temporary file left behind


def test_csv_cells_cannot_run_as_formulas(tmp_path):
    """Issue 15 obs 9: cells starting with = + - @ were written as they are."""
    files = write_report(sample_report(), tmp_path / "r")
    text = files.csv.read_text(encoding="utf-8")
    rows = list(csv.reader(text.splitlines()))
    cells = [cell for row in rows for cell in row]
    assert not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")]
    assert "'" + FORMULA in cells  # neutralised as OWASP says: a leading quote
    # Every cell is quoted, so a separator or quote in a cell cannot split it.
    assert all(line.startswith('"') for line in text.splitlines() if line)
