"""The ingest commands through typer's CliRunner."""

from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
from typer.testing import CliRunner

from openers.cli import app
from tests.ingest.conftest import example

runner = CliRunner()


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "a.log").write_text(example("A1") + "\n\n" + example("A2") + "\n")
    (folder / "b.log").write_text(example("B1").replace("[Kd Kc 7s", "[Kd Kx 7s") + "\n")
    return folder


def test_ingest_prints_a_summary_and_stores(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    result = runner.invoke(app, ["ingest", str(_folder(tmp_path)), "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert "hands stored" in result.output and "bad_card" in result.output
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM hands").fetchall() == [(2,)]
    con.close()
    again = runner.invoke(app, ["ingest", str(tmp_path / "logs" / "*.log"), "--db", str(db)])
    assert again.exit_code == 0
    assert re.search(r"duplicates skipped\s*│\s*2\b", again.output), again.output
    assert re.search(r"hands stored\s*│\s*0\b", again.output), again.output


def test_ingest_with_no_matching_path_fails(tmp_path: Path) -> None:
    result = runner.invoke(app, ["ingest", str(tmp_path / "none*.log"),
                                 "--db", str(tmp_path / "s.duckdb")])
    assert result.exit_code == 2


def test_validate_prints_every_problem_and_exits_1(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    (folder / "c.log").write_text(example("A1").replace("Rake: 4", "Rake: 3") + "\n")
    result = runner.invoke(app, ["validate", str(folder)])
    assert result.exit_code == 1
    assert f"{folder / 'b.log'}:23: bad_card:" in result.output
    assert f"{folder / 'c.log'}:1: conflict:" in result.output
    assert "3 hand(s)" not in result.output and "4 hand(s) read, 2 problem(s)" in result.output
    assert not list(tmp_path.glob("*.duckdb"))


def test_validate_clean_input_exits_0(tmp_path: Path) -> None:
    path = tmp_path / "ok.log"
    path.write_text(example("OK") + "\n")
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    assert "0 problem(s)" in result.output


def test_schema_prints_the_hand_record_json_schema() -> None:
    result = runner.invoke(app, ["schema"])
    assert result.exit_code == 0
    schema = json.loads(result.output)
    assert schema["title"] == "HandRecord"
    assert {"hand_id", "time", "seats", "pot"} <= set(schema["required"])
    assert "Action" in schema["$defs"] and "actions" in schema["properties"]


def test_committed_json_schema_is_current() -> None:
    """schemas/hand-record.schema.json is what `openers schema` prints (regenerate it with
    `openers schema > schemas/hand-record.schema.json` after changing the records)."""
    from pathlib import Path

    from schemas.json_schema import hand_record_schema_json

    committed = Path(__file__).resolve().parents[2] / "schemas" / "hand-record.schema.json"
    assert committed.read_text(encoding="utf-8").strip() == hand_record_schema_json().strip()
