"""``openers generate`` on the command line."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from openers.cli import app

runner = CliRunner()


def test_generate_writes_logs_and_labels(tmp_path: Path) -> None:
    out = tmp_path / "room"
    result = runner.invoke(app, ["generate", "--hands", "300", "--tables", "2", "--seed", "4",
                                 "--violations", "0.3", "--codes", "P40,J503",
                                 "--broken-share", "0.05", "--out", str(out), "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "300 hands" in result.output
    labels = [json.loads(line) for line in (out / "labels.jsonl").read_text().splitlines()]
    assert len(labels) == 300
    planted = {code for label in labels for code in label["codes"]}
    assert planted and planted <= {"P401", "P402", "P403", "P404", "J503"}
    assert any("broken" in label for label in labels)
    assert sorted(p.name[:3] for p in (out / "logs").iterdir())[0] == "T01"


def test_bad_arguments_are_usage_errors(tmp_path: Path) -> None:
    base = ["generate", "--hands", "10", "--out", str(tmp_path / "x")]
    assert runner.invoke(app, [*base, "--violations", "1.5"]).exit_code == 2
    assert runner.invoke(app, [*base, "--codes", "Z999"]).exit_code == 2
    result = runner.invoke(app, [*base, "--profile", "nosuchhouse"])
    assert result.exit_code == 2 and "unknown profile" in result.output
