"""A small generated store, built once per test process through the real pipeline.

The generator writes a few days of hands with planted violations, unrecorded cards
and broken hands; ``openers nightly`` ingests and audits them and records its run.
Each test gets its own review file; nothing writes the store after it is built.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb
import pytest
from streamlit.testing.v1 import AppTest

from openers.generator import GenerateConfig, generate

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "dashboards" / "app.py"
OPENERS = [str(Path(sys.executable).with_name("openers"))]


def openers(*args: str) -> subprocess.CompletedProcess[str]:
    """Run an ``openers`` command of the real CLI."""
    return subprocess.run(
        [*OPENERS, *args], capture_output=True, text=True, cwd=ROOT, timeout=300, check=False
    )


def build_store(directory: Path, hands: int, tables: int, seed: int) -> Path:
    """Generate ``hands`` hands and let the nightly job ingest, audit and record them."""
    generate(
        GenerateConfig(
            hands=hands, tables=tables, seed=seed, violations=0.08,
            unrecorded_share=0.03, broken_share=0.01,
        ),
        directory / "generated",
    )  # fmt: skip
    store = directory / "openers.duckdb"
    done = openers(
        "nightly", str(directory / "generated" / "logs"), "--db", str(store),
        "--reports", str(directory / "reports"), "--fail-on", "never",
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return store


@pytest.fixture(scope="session")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shared small store (read-only for every test)."""
    return build_store(tmp_path_factory.mktemp("store"), hands=1000, tables=4, seed=7)


@pytest.fixture
def reviews_file(tmp_path: Path) -> Path:
    """A fresh review file for one test."""
    return tmp_path / "openers.reviews.sqlite"


@pytest.fixture
def app_env(store: Path, reviews_file: Path) -> Iterator[None]:
    """Point the app at the store and the test's review file."""
    saved = {k: os.environ.get(k) for k in ("OPENERS_DB", "OPENERS_REVIEWS")}
    os.environ["OPENERS_DB"] = str(store)
    os.environ["OPENERS_REVIEWS"] = str(reviews_file)
    yield
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def write_house(directory: Path, reviewers: tuple[str, ...] = ("ana", "bo")) -> Path:
    """A house file naming the reviewers (and nothing else)."""
    path = directory / "house.toml"
    names = ", ".join(f'"{n}"' for n in reviewers)
    path.write_text(f'extends = "robert"\n[review]\nreviewers = [{names}]\n', encoding="utf-8")
    return path


def decide(at: AppTest, where: str, decision: str, note: str = "", actor: str = "ana") -> AppTest:
    """Fill the case form of the selected finding as ``actor`` and save it."""
    if any(getattr(s, "key", None) == "actor" for s in at.selectbox):
        at.selectbox(key="actor").set_value(actor)
    key = at.selectbox(key="f_case").value if where == "queue" else None
    prefix = f"{where}-{key}" if key else None
    radio = at.radio(key=f"{prefix}-decision") if prefix else at.radio[0]
    radio.set_value(decision)
    area = at.text_area(key=f"{prefix}-note") if prefix else at.text_area[0]
    area.input(note)
    return save_button(at).click().run()


def open_page(page: str, query_params: dict[str, str] | None = None) -> AppTest:
    """Run the app, switch to ``page`` (module name) and run it; fail on any exception."""
    at = AppTest.from_file(str(APP), default_timeout=60)
    at.run()
    if page != "overview":
        at.switch_page(f"views/{page}.py")
        for key, value in (query_params or {}).items():
            at.query_params[key] = value
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def sql(store: Path, query: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    """Ask the store directly (read-only), to compare with what a page shows."""
    con = duckdb.connect(str(store), read_only=True)
    try:
        return con.execute(query, params or []).fetchall()
    finally:
        con.close()


def metrics(at: AppTest) -> dict[str, str]:
    """The page's metrics by label."""
    return {m.label: m.value for m in at.metric}


def save_button(at: AppTest, label: str = "Save") -> Any:
    """The first form submit button with this label."""
    return next(b for b in at.button if b.label == label)


# The nightly job's data-quality table (schemas/ddl/76_data_quality.sql on its branch),
# created here when the store does not have it yet, so the screens are tested either way.
_DATA_QUALITY_DDL = """
CREATE TABLE IF NOT EXISTS ops_data_quality (
    run_id BIGINT NOT NULL, code VARCHAR NOT NULL, severity VARCHAR NOT NULL, table_id VARCHAR,
    observed BIGINT, expected BIGINT, message VARCHAR NOT NULL, evidence JSON NOT NULL);
CREATE VIEW IF NOT EXISTS data_quality AS
SELECT q.run_id, r.started_at, r.status AS run_status, q.code, q.severity, q.table_id,
       q.observed, q.expected, q.message, q.evidence
FROM ops_data_quality q JOIN ops_runs r USING (run_id);
"""


def add_missing_data(store: Path) -> None:
    """Record that the store's last run found table T09 silent (a data-quality finding)."""
    con = duckdb.connect(str(store))
    try:
        con.execute(_DATA_QUALITY_DDL)
        (run_id,) = con.execute("SELECT max(run_id) FROM ops_runs").fetchone() or (1,)
        con.execute(
            "INSERT INTO ops_data_quality VALUES (?, 'silent-table', 'major', 'T09', 0, 240,"
            " 'table T09 dealt 240 hands last night and sent none tonight', '{}')",
            [run_id],
        )
    finally:
        con.close()


@pytest.fixture(scope="session")
def store_missing_data(store: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the shared store whose last run found a table silent."""
    copy = tmp_path_factory.mktemp("missing") / "openers.duckdb"
    copy.write_bytes(store.read_bytes())
    add_missing_data(copy)
    return copy
