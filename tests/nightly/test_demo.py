"""``openers demo``: a generated day, audited, with the report's path printed."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from openers.cli import app
from openers.demo import MARKER


def test_demo_prints_the_report_and_the_store(tmp_path):
    folder = tmp_path / "demo"
    done = CliRunner().invoke(app, ["demo", "--dir", str(folder), "--hands", "400"])
    assert done.exit_code == 0, done.output
    report = Path(re.search(r"^report: (.+)$", done.output, re.M).group(1))  # type: ignore[union-attr]
    assert report.is_file() and report.parent.parent == (folder / "reports").resolve()
    assert f"openers dashboard --db {(folder / 'openers.duckdb').resolve()}" in done.output
    summary = json.loads((report.parent / "summary.json").read_text())
    hands = int(re.search(r"Hands stored: (\d+)", done.output).group(1))  # type: ignore[union-attr]
    assert summary["totals"]["hands"] == hands > 350  # a few damaged hands are quarantined
    assert summary["totals"]["tables"] >= 5
    # Running it again starts afresh in its own folder; a foreign folder is refused.
    again = CliRunner().invoke(app, ["demo", "--dir", str(folder), "--hands", "400"])
    assert again.exit_code == 0 and (folder / MARKER).exists()
    assert len(list((folder / "reports").iterdir())) == 1
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    refused = CliRunner().invoke(app, ["demo", "--dir", str(foreign)])
    assert refused.exit_code == 2 and (foreign / "notes.txt").exists()


def test_demo_opens_the_dashboard_on_its_store_when_asked(tmp_path, monkeypatch):
    opened: list[Path] = []

    def fake_launch(db: Path) -> int:
        opened.append(db)
        return 0

    monkeypatch.setattr("openers.demo.launch", fake_launch)
    folder = tmp_path / "demo"
    args = ["demo", "--dir", str(folder), "--hands", "60"]
    quiet = CliRunner().invoke(app, args)  # no terminal: never asks, never opens
    assert quiet.exit_code == 0, quiet.output
    assert opened == [] and "Open the dashboards" not in quiet.output
    done = CliRunner().invoke(app, [*args, "--dashboard"])
    assert done.exit_code == 0, done.output
    assert [p.resolve() for p in opened] == [(folder / "openers.duckdb").resolve()]
