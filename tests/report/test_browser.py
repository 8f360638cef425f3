"""The report page in a real browser: headless chromium renders its charts offline."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import duckdb
import pytest
from PIL import Image

from openers.report import report_for_run
from openers.report.charts import SEVERITY_COLOURS
from schemas.reviews import (
    DISMISS_REASONS,
    CaseStatus,
    Change,
    FindingKey,
    record,
    reviews_path_for,
)
from tests.dashboards.conftest import add_missing_data
from tests.nightly.handmaker import write_day
from tests.nightly.jobtools import run_in_process

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"

pytestmark = pytest.mark.browser


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


@pytest.mark.skipif(shutil.which(CHROMIUM) is None,
                    reason="Debian chromium is not installed (/usr/bin/chromium)")
def test_report_renders_its_charts_in_headless_chromium(tmp_path):
    write_day(tmp_path / "inbox", ("T01", "T02", "T03"), range(30), every=5)
    result = run_in_process(tmp_path, reports=tmp_path / "reports")
    assert result.report_dir is not None
    page = (result.report_dir / "report.html").resolve()
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "nightly-report.png"
    shot.unlink(missing_ok=True)
    subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--hide-scrollbars", "--window-size=1280,6000",
         f"--screenshot={shot}", page.as_uri()],
        check=True, capture_output=True, timeout=90,
    )
    image = Image.open(shot).convert("RGB")
    assert image.size == (1280, 6000)
    # The per-day chart is drawn: its bar for the night is a tall column of the major
    # colour (the badges and the by-rule bars of that colour are under 20 px high).
    major = _rgb(SEVERITY_COLOURS["major"])
    width, height = image.size
    pixels = image.load()
    assert pixels is not None
    tallest = 0
    for x in range(width):
        run = 0
        for y in range(height):
            run = run + 1 if pixels[x, y] == major else 0
            tallest = max(tallest, run)
    assert tallest > 60, f"no bar of the per-day chart in the screenshot ({tallest} px)"


@pytest.mark.skipif(shutil.which(CHROMIUM) is None,
                    reason="Debian chromium is not installed (/usr/bin/chromium)")
def test_report_and_its_decision_box_in_chromium(tmp_path):
    """The whole report and its needs-a-decision box, screenshotted; one case decided."""
    sync_api = pytest.importorskip("playwright.sync_api")
    write_day(tmp_path / "inbox", ("T01", "T02", "T03"), range(30), every=5)
    first = run_in_process(tmp_path, reports=tmp_path / "reports")
    write_day(tmp_path / "inbox", ("T01", "T02", "T03"), range(30, 60), every=3, append=True)
    result = run_in_process(tmp_path, reports=tmp_path / "reports")
    assert first.run_id is not None and result.run_id == first.run_id + 1
    store = tmp_path / "store.duckdb"
    # In the morning an officer dismisses one of the night's findings; the report written
    # again (openers report --run) keeps it out of the box and shows its case.
    con = duckdb.connect(str(store), read_only=True)
    hand, code, index, seat = con.execute(
        "SELECT hand_id, code, action_index, seat FROM findings WHERE code = 'B101'"
        " ORDER BY hand_id DESC LIMIT 1").fetchall()[0]
    record(reviews_path_for(store), [FindingKey(hand, code, index, seat)],
           Change(status=CaseStatus.DISMISSED, reason=DISMISS_REASONS[0]), "ana")
    con.close()
    add_missing_data(store)  # and the night found a table silent
    con = duckdb.connect(str(store), read_only=True)
    files = report_for_run(con, result.run_id, tmp_path / "morning")
    con.close()
    page_path = files.html.resolve()
    undecided = sum(result.counts.findings.values()) - 1
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--no-first-run", "--disable-sync"])  # fmt: skip
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(page_path.as_uri())
            header = page.locator("header").inner_text()
            assert "Play of 2026-11-28 · Bay City Card Club · profile robert" in header
            assert "MAJOR" in header and "MISSING DATA" in header and "run #2" in header
            box = page.locator("#decision")
            assert f"{undecided} critical and major findings have no decision yet" in \
                box.inner_text()
            assert f"Case: DISMISSED ({DISMISS_REASONS[0]})" in page.locator(
                "#findings").inner_text()
            assert f"run #{first.run_id}" in box.inner_text()
            # B101 and its dealer were named by the first run already: nothing is new.
            assert "codes none · dealers none · players none" in box.inner_text()
            whole = ARTIFACTS / "report.png"
            page.screenshot(path=str(whole), full_page=True)
            print(f"screenshot: {whole}")
            shot = ARTIFACTS / "report-needs-a-decision.png"
            box.screenshot(path=str(shot))
            print(f"screenshot: {shot}")
            # Every finding is there, each links to its hand in the dashboards.
            links = page.locator("#findings a").evaluate_all("els => els.map(e => e.href)")
            assert links and all(h.startswith("http://localhost:8501/hand?hand_id=") for h in links)
            shown = page.locator("#findings .finding").count()
            assert shown == sum(result.counts.findings.values())
            assert page.locator("pre.excerpt span.hit").count() > 0
        finally:
            browser.close()
