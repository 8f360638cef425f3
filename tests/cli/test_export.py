"""``openers export``: the public views as day-partitioned Parquet or CSV, read back whole."""

from __future__ import annotations

import os
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from openers.cli import app
from openers.export import VIEWS
from tests.audit.harness import FIXTURES
from tests.cli.conftest import EXAMPLE

runner = CliRunner()


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store after one nightly run: hands of two local days, findings, a quarantined hand."""
    root = tmp_path_factory.mktemp("export")
    inbox = root / "inbox"
    inbox.mkdir()
    (inbox / "b105.log").write_text((FIXTURES / "B105.log").read_text())  # 2026-11-28
    day_before = EXAMPLE.read_text().replace("2026-11-28T21:04", "2026-11-27T21:04")
    (inbox / "early.log").write_text(day_before.replace("BCY-T07-000123", "EARLY-1"))
    (inbox / "broken.log").write_text(EXAMPLE.read_text().replace("[Kd Kc 7s", "[Kd Kx 7s"))
    for log in inbox.iterdir():  # finished files: the job reads their last hand at once
        os.utime(log, (1_000_000_000, 1_000_000_000))
    db = root / "s.duckdb"
    result = runner.invoke(app, ["nightly", str(inbox), "--db", str(db), "--reports",
                                 str(root / "reports")])
    assert result.exit_code in (0, 1), result.output
    return db


def counts(db: Path) -> dict[str, int]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {v: con.execute(f"SELECT count(*) FROM {v}").fetchone()[0]  # type: ignore[index]
                for v in VIEWS}
    finally:
        con.close()


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_every_view_is_written_by_day_and_reads_back_whole(store: Path, tmp_path: Path,
                                                           fmt: str) -> None:
    out = tmp_path / "out"
    result = runner.invoke(app, ["export", "--db", str(store), "--to", str(out),
                                 "--format", fmt])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (out / "hands").iterdir()) == ["day=2026-11-27",
                                                                   "day=2026-11-28"]
    reader = "read_parquet" if fmt == "parquet" else "read_csv_auto"
    expected = counts(store)
    assert all(expected[v] for v in VIEWS), expected
    con = duckdb.connect()
    for view, n in expected.items():
        got = con.execute(f"SELECT count(*) FROM {reader}('{out / view}/*/*.{fmt}', "
                          "hive_partitioning = true)").fetchall()
        assert got == [(n,)], view
    early = con.execute(f"SELECT hand_id FROM {reader}('{out}/hands/*/*.{fmt}', "
                        "hive_partitioning = true) WHERE day = DATE '2026-11-27'").fetchall()
    assert early == [("EARLY-1",)]


def test_since_replaces_later_days_and_keeps_earlier_ones(store: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ["export", "--db", str(store), "--to", str(out)]
    assert runner.invoke(app, args).exit_code == 0
    stale = out / "hands" / "day=2026-11-28" / "stale.parquet"
    stale.write_bytes(b"")
    result = runner.invoke(app, [*args, "--since", "2026-11-28"])
    assert result.exit_code == 0, result.output
    assert not stale.exists()
    assert (out / "hands" / "day=2026-11-27").is_dir()
    assert "hands: 4 row(s) in 1 day(s)" in result.stdout


@pytest.mark.parametrize("args, words", [
    (["--since", "yesterday"], "--since 'yesterday' is not a date (expected YYYY-MM-DD)"),
    (["--format", "xlsx"], "'xlsx' is not an export format: expected one of parquet, csv"),
])
def test_bad_options_are_usage_errors(store: Path, tmp_path: Path, args: list[str],
                                      words: str) -> None:
    result = runner.invoke(app, ["export", "--db", str(store), "--to", str(tmp_path), *args])
    assert result.exit_code == 2 and words in " ".join(result.output.split())


def test_a_missing_store_is_a_usage_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["export", "--db", str(tmp_path / "no.duckdb"), "--to",
                                 str(tmp_path / "out")])
    assert result.exit_code == 2 and "no such store" in result.stderr
    assert not (tmp_path / "out").exists()
