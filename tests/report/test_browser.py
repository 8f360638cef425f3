"""The report page in a real browser: headless chromium renders its charts offline."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from PIL import Image

from openers.report.charts import SEVERITY_COLOURS
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
         "--disable-sync", "--hide-scrollbars", "--window-size=1280,1400",
         f"--screenshot={shot}", page.as_uri()],
        check=True, capture_output=True, timeout=90,
    )
    image = Image.open(shot).convert("RGB")
    assert image.size == (1280, 1400)
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
