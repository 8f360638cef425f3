"""The Integrity page in headless Chromium (screenshots in test-artifacts/screenshots)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.dashboards.test_browser import (  # the dashboards' server, on this module's store
    ARGS,
    CHROMIUM,
    SHOTS,
    _settle,
    server,
)
from tests.integrity.test_dashboard_page import analysed

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not Path(CHROMIUM).exists(),
                       reason=f"Debian chromium is not installed ({CHROMIUM})"),
]
__all__ = ["analysed", "server"]


@pytest.fixture
def store_missing_data(analysed: Path) -> Path:
    """The store the dashboards' ``server`` fixture serves: here, a stored integrity run."""
    return analysed


TABS = (("Alert queue", "alert queue", "Hands behind it"),
        ("Players linked by suspicion", "graph", "Each line is a pair"),
        ("Dealer fairness", "fairness", "Each dealer's mean PIT"))


def test_the_integrity_page_in_chromium(server: tuple[str, Path]) -> None:
    sync_api = pytest.importorskip("playwright.sync_api")
    url, _ = server
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1500, "height": 1300})
        try:
            page.goto(f"{url}/integrity")
            page.get_by_role("heading", name="Integrity", exact=True).wait_for(timeout=30_000)
            for tab, name, marker in TABS:
                page.get_by_role("tab", name=tab).click()
                page.get_by_text(marker).first.wait_for(timeout=30_000)
                _settle(page)
                assert not page.locator("[data-testid='stException']").count(), tab
                shot = SHOTS / f"integrity-{name.replace(' ', '-')}.png"
                page.screenshot(path=str(shot), full_page=True)
                print(f"screenshot: {shot}")
            assert page.locator("svg").count() > 0  # the graph and the charts drew
        finally:
            browser.close()
