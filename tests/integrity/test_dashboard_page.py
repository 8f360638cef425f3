"""The dashboard's Integrity page on a stored integrity run (AppTest)."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from dashboards import reviews
from openers.cli import app
from schemas.office import os_user
from tests.dashboards.conftest import open_page, save_button
from tests.integrity.conftest import Room


@pytest.fixture(scope="module")
def analysed(cheat_room: Room, tmp_path_factory: pytest.TempPathFactory) -> Path:
    store = tmp_path_factory.mktemp("page") / "openers.duckdb"
    shutil.copyfile(cheat_room.store, store)
    result = CliRunner().invoke(app, ["integrity", "--db", str(store), "--store"])
    assert result.exit_code == 0, result.output
    return store


@pytest.fixture
def page_env(analysed: Path, tmp_path: Path) -> Iterator[Path]:
    saved = {k: os.environ.get(k) for k in ("OPENERS_DB", "OPENERS_REVIEWS")}
    os.environ["OPENERS_DB"] = str(analysed)
    os.environ["OPENERS_REVIEWS"] = str(tmp_path / "reviews.sqlite")
    yield tmp_path / "reviews.sqlite"
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def _alerts(store: Path) -> list[tuple[str, str, int]]:
    con = duckdb.connect(str(store), read_only=True)
    try:
        return con.execute("SELECT alert_key, code, hands_total FROM integrity_alerts_latest "
                           "ORDER BY rank").fetchall()
    finally:
        con.close()


def test_the_queue_lists_every_alert(analysed: Path, page_env: Path) -> None:
    at = open_page("integrity")
    alerts = _alerts(analysed)
    assert {m.label: m.value for m in at.metric}["Alerts"] == f"{len(alerts):,}"
    # the run's time on the room's clock with its offset (the generated room is at -08:00)
    assert any(re.search(r"Latest analysis \d{4}-\d\d-\d\d \d\d:\d\d:\d\d -08:00", c.value)
               for c in at.caption)
    queue = at.dataframe[0].value
    assert list(queue["alert_key"]) == [key for key, _, _ in alerts]
    assert set(queue["review_status"]) == {"open"}
    hands = at.dataframe[1].value
    assert len(hands) == min(alerts[0][2], 200) and hands["link"].str.startswith("/hand?").all()


def test_a_decision_on_an_alert_is_a_case(analysed: Path, page_env: Path) -> None:
    at = open_page("integrity")
    key, code, _ = _alerts(analysed)[0]
    prefix = f"integrity-{key}|{code}|-|-"
    at.radio(key=f"{prefix}-decision").set_value("confirmed")
    at.text_area(key=f"{prefix}-note").input("the arranged hands are plain on the replayer")
    save_button(at).click().run()
    assert not at.exception
    me = os_user()
    assert any(f"open → confirmed by {me}" in s.value for s in at.success)
    latest = reviews.latest(page_env)
    assert latest[["finding_key", "review_status", "reviewer"]].values.tolist() == [
        [f"{key}|{code}|-|-", "confirmed", me]]
    assert at.dataframe[0].value["review_status"].iloc[0] == "confirmed"


def test_the_graph_and_the_fairness_plots(analysed: Path, page_env: Path) -> None:
    at = open_page("integrity")
    (graph,) = at.get("graphviz_chart")
    assert "--" in graph.proto.spec and "#c62828" in graph.proto.spec
    at.radio(key="i_kind").set_value("dealt").run()
    assert not at.exception
    at.selectbox(key="i_dealer").set_value("D-4000").run()
    assert not at.exception
