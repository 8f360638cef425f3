"""Every page in headless Chromium, served by ``openers dashboard`` on a generated store."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dashboards import reviews
from tests.dashboards.conftest import OPENERS, ROOT, sql, write_house

CHROMIUM = "/usr/bin/chromium"
SHOTS = ROOT / "test-artifacts" / "screenshots"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not Path(CHROMIUM).exists(), reason=f"Debian chromium is not installed ({CHROMIUM})"
    ),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def server(store_missing_data: Path, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """``openers dashboard`` on the store, on a free localhost port; yields (url, reviews)."""
    port = _free_port()
    review_file = tmp_path / "openers.reviews.sqlite"
    house = write_house(tmp_path, reviewers=("ana.ortiz", "bo.lee"))
    log = (tmp_path / "server.log").open("w")
    # Its own session, so the Streamlit child goes down with it.
    proc = subprocess.Popen(
        [*OPENERS, "dashboard", "--db", str(store_missing_data), "--port", str(port),
         "--reviews", str(review_file), "--house", str(house)],
        stdout=log, stderr=subprocess.STDOUT, start_new_session=True, cwd=ROOT,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                pass
            assert proc.poll() is None, (tmp_path / "server.log").read_text()
            assert time.monotonic() < deadline, "the dashboard did not start"
            time.sleep(0.3)
        yield url, review_file
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
        log.close()


def _settle(page: object) -> None:
    """Wait until the script run is over and tables and charts have drawn."""
    page.wait_for_load_state("networkidle")  # type: ignore[attr-defined]
    page.locator("[data-testid='stStatusWidget']").wait_for(  # type: ignore[attr-defined]
        state="hidden", timeout=30_000
    )
    page.wait_for_timeout(1500)  # type: ignore[attr-defined]


# page path ("" is the default page, Overview), title, a text that must be on it
PAGES = (
    ("", "Overview", "Hands audited"),
    ("findings", "Findings", "findings"),
    ("hand", "Hand", "Raw log"),
    ("tables", "Tables", "Deals"),
    ("dealers", "Dealers", "exact binomial test"),
    ("players", "Players", "Findings on seat"),
    ("data-quality", "Data quality", "Quarantined items"),
    ("browse?table=findings&f.severity=critical", "Browse", "rows"),
    ("sql?sql=SELECT+code%2C+count(*)+AS+n+FROM+findings+GROUP+BY+ALL+ORDER+BY+2+DESC", "SQL",
     "rows in"),
)


def test_every_page_in_chromium(server: tuple[str, Path], store: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    url, review_file = server
    hand_id = sql(store, "SELECT hand_id FROM findings ORDER BY severity, hand_id LIMIT 1")[0][0]
    (audited,) = sql(store, "SELECT count(*) FROM audit_hands")[0]
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        # Tall: Streamlit scrolls inside the page, so a full-page shot is the viewport.
        page = browser.new_page(viewport={"width": 1500, "height": 2600})
        try:
            for path, title, marker in PAGES:
                target = f"{url}/{path}" + (f"?hand_id={hand_id}" if path == "hand" else "")
                page.goto(target)
                page.get_by_role("heading", name=title, exact=True).wait_for(timeout=30_000)
                page.get_by_text(marker).first.wait_for(timeout=30_000)
                _settle(page)
                assert not page.locator("[data-testid='stException']").count(), path
                assert not page.get_by_text("Page not found").count(), path
                if path == "":
                    assert page.get_by_text(f"{audited:,}", exact=True).count()
                    # The last run found a table silent: the missing-data finding is shown.
                    assert page.get_by_text("table T09 dealt 240 hands").count()
                if path == "hand":
                    assert page.locator(".op-card").count() > 0
                    assert page.locator(".op-raw-bad").count() > 0
                shot = SHOTS / f"{path.split('?')[0] or 'overview'}.png"
                page.screenshot(path=str(shot), full_page=True)
                print(f"screenshot: {shot}")

            _case_through_its_states(page, url)
        finally:
            browser.close()
    history = reviews.history(review_file, _first_case(review_file))
    assert history[["actor", "previous_status", "status"]].values.tolist() == [
        ["ana.ortiz", "open", "escalated"],
        ["bo.lee", "escalated", "confirmed"],
        ["bo.lee", "confirmed", "resolved"],
    ]
    assert history["note"].tolist()[0] == "seen on the floor video"


def _first_case(review_file: Path) -> reviews.FindingKey:
    hand_id, code, index, seat = reviews.latest(review_file)["finding_key"].iloc[0].split("|")
    return reviews.FindingKey(hand_id, code, None if index == "-" else int(index),
                              None if seat == "-" else int(seat))  # fmt: skip


def _choose(page: Any, label: str, option: str, sidebar: bool = False) -> None:
    """Pick ``option`` in the selectbox labelled ``label``."""
    scope = page.locator("[data-testid='stSidebar']") if sidebar else page
    scope.get_by_label(label).first.click()
    page.get_by_role("option", name=option, exact=True).click()


def _case_through_its_states(page: Any, url: str) -> None:
    """One case: open -> escalated (ana) -> confirmed (bo) -> resolved (bo), a shot each."""
    page.goto(f"{url}/findings?severity=critical")
    page.get_by_role("heading", name="Findings", exact=True).wait_for(timeout=30_000)
    _settle(page)
    steps = [("ana.ortiz", "escalated", "seen on the floor video"),
             ("bo.lee", "confirmed", "the video shows the raise"),
             ("bo.lee", "resolved", "dealer retrained")]  # fmt: skip
    for i, (who, decision, note) in enumerate(steps):
        _choose(page, "You are", who, sidebar=True)
        _settle(page)
        form = page.locator("[data-testid='stForm']").first
        form.get_by_text(decision, exact=True).click()
        form.get_by_label("Note").fill(note)
        form.get_by_role("button", name="Save").click()
        page.get_by_text(f"→ {decision} by {who}").first.wait_for(timeout=30_000)
        _settle(page)
        shot = SHOTS / f"case-{i + 1}-{decision}.png"
        page.screenshot(path=str(shot), full_page=True)
        print(f"screenshot: {shot}")
