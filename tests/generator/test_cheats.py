"""Integrity ground truth: the cheats act where labelled, and nowhere else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from openers.cli import app
from openers.generator import GenerateConfig, generate
from openers.generator.cheats import CheatConfig, Collusion

HANDS, TABLES = 800, 2


def _run(folder: Path, cheats: CheatConfig, workers: int = 1) -> Path:
    generate(GenerateConfig(hands=HANDS, tables=TABLES, seed=4, cheats=cheats, workers=workers),
             folder)
    return folder


def _logs(folder: Path, table: str) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((folder / "logs").glob(f"{table}_*.log"))}


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _run(tmp_path_factory.mktemp("honest"), CheatConfig())


def test_an_honest_run_writes_no_integrity_labels(honest: Path) -> None:
    assert not (honest / "integrity_labels.json").exists()


def test_a_colluding_pair_changes_only_its_table(honest: Path, tmp_path: Path) -> None:
    folder = _run(tmp_path, CheatConfig(colluders=1, collusion_kinds=tuple(Collusion)))
    assert _logs(folder, "T01") == _logs(honest, "T01")
    assert _logs(folder, "T02") != _logs(honest, "T02")
    (cheat,) = json.loads((folder / "integrity_labels.json").read_text())["cheats"]
    assert cheat["kind"] == "colluding-pair" and cheat["table_id"] == "T02"
    text = b"".join(_logs(folder, "T02").values()).decode()
    assert all(f": {p} (" in text for p in cheat["players"])
    assert cheat["deals_together"] > 0 and cheat["from"]


def test_a_crooked_dealer_changes_only_his_table(honest: Path, tmp_path: Path) -> None:
    folder = _run(tmp_path, CheatConfig(crooked_dealers=1, crooked_share=0.5))
    assert _logs(folder, "T02") == _logs(honest, "T02")
    (cheat,) = json.loads((folder / "integrity_labels.json").read_text())["cheats"]
    assert cheat["kind"] == "crooked-dealer" and cheat["dealer_id"] == "D-4000"
    assert cheat["acted"]["arranged deal"] == len(cheat["hands"]) > 0
    labels = {json.loads(line)["hand_id"]: json.loads(line)
              for line in (folder / "labels.jsonl").read_text().splitlines()}
    assert set(cheat["hands"]) <= set(labels)
    assert all(labels[h]["table_id"] == "T01" for h in cheat["hands"])


def test_the_cheats_do_not_depend_on_workers(tmp_path: Path) -> None:
    cheats = CheatConfig(crooked_dealers=1, colluders=1)
    one = _run(tmp_path / "one", cheats, workers=1)
    two = _run(tmp_path / "two", cheats, workers=2)
    labels = "integrity_labels.json"
    assert (one / labels).read_text() == (two / labels).read_text()
    assert _logs(one, "T01") == _logs(two, "T01")


def test_a_bad_collusion_kind_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["generate", "--hands", "10", "--out", str(tmp_path),
                                      "--colluders", "1", "--collusion", "soft,bribe"])
    assert result.exit_code == 2
    assert "--collusion" in result.output
