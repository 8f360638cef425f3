"""``openers check``, ``openers audit`` and ``openers rules`` through typer's CliRunner.

The output formats, exit codes and baselines of ``check`` are tested in ``tests/cli``.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
from pathlib import Path

import duckdb
import typer
from typer.testing import CliRunner

from audit.registry import RULES, codes
from audit.registry import RULES as HAND_RULES
from audit.rules_cli import explain
from ingest.parser import parse_hand
from openers.cli import app
from tests.audit.harness import FIXTURES, read_fixture

runner = CliRunner()
EXAMPLE = Path(__file__).resolve().parents[2] / "ingest" / "samples" / "spec_example.log"
B105 = str(FIXTURES / "B105.log")


def test_check_on_the_spec_example_finds_nothing() -> None:
    result = runner.invoke(app, ["check", str(EXAMPLE)])
    assert result.exit_code == 0, result.output
    assert result.stdout == "No findings in 1 hand in 1 file.\n"
    quiet = runner.invoke(app, ["check", str(EXAMPLE), "--quiet"])
    assert quiet.exit_code == 0 and quiet.stdout == ""


def test_check_text_is_linter_like() -> None:
    result = runner.invoke(app, ["check", B105, "--workers", "1", "--select", "B"])
    assert result.exit_code == 1
    lines = [x for x in result.stdout.splitlines() if x]
    assert lines[0].startswith(f"{B105}:28:1: B105 [major] seat 1 calls 20 but owed 10")
    assert lines[0].endswith("(hand B105-overcall)")
    assert len(lines) == 3 and lines[2].startswith("Found 2 findings in 2 of ")


def test_check_jsonl_json_and_csv_carry_the_keys() -> None:
    keys = {"file", "hand_id", "table", "code", "severity", "seat", "line", "message"}
    jsonl = runner.invoke(app, ["check", B105, "--format", "jsonl", "--select", "B"])
    rows = [json.loads(x) for x in jsonl.stdout.splitlines()]
    assert len(rows) == 2 and all(keys <= set(r) for r in rows)
    assert rows[0]["evidence"]["owed_cents"] == 1000  # cents
    as_json = json.loads(
        runner.invoke(app, ["check", B105, "--format", "json", "--select", "B"]).stdout)
    assert as_json == rows
    table = list(csv.DictReader(io.StringIO(
        runner.invoke(app, ["check", B105, "--format", "csv", "--select", "B"]).stdout)))
    assert [r["code"] for r in table] == ["B105", "B105"] and keys <= set(table[0])


def test_select_and_ignore() -> None:
    files = [str(FIXTURES / "B101.log"), B105]
    only = runner.invoke(app, ["check", *files, "--select", "B105", "--format", "jsonl"])
    assert {json.loads(x)["code"] for x in only.stdout.splitlines()} == {"B105"}
    rest = runner.invoke(app, ["check", *files, "--select", "B", "--ignore", "b105",
                               "--format", "jsonl"])
    assert {json.loads(x)["code"] for x in rest.stdout.splitlines()} == {"B101"}


def test_house_profile_file(tmp_path: Path) -> None:
    house = tmp_path / "house.toml"
    house.write_text('extends = "robert"\ncap_raises = false\nseverity = { B105 = "minor" }\n')
    b101 = runner.invoke(app, ["check", str(FIXTURES / "B101.log"), "--profile", str(house),
                               "--select", "B"])
    assert b101.exit_code == 0, b101.output
    b105 = runner.invoke(app, ["check", B105, "--profile", str(house), "--format", "jsonl",
                               "--select", "B105"])
    assert {json.loads(x)["severity"] for x in b105.stdout.splitlines()} == {"minor"}


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert runner.invoke(app, ["check", str(tmp_path / "missing*.log")]).exit_code == 2
    assert runner.invoke(app, ["check", B105, "--profile", "nope"]).exit_code == 2
    assert runner.invoke(app, ["check", B105, "--select", "Z9"]).exit_code == 2
    assert runner.invoke(app, ["check", B105, "--format", "xml"]).exit_code == 2


def test_an_unreadable_hand_is_a_finding_in_the_same_stream(tmp_path: Path) -> None:
    bad = tmp_path / "bad.log"
    bad.write_text(EXAMPLE.read_text().replace("[Kd Kc 7s", "[Kd Kx 7s") + "\n\n"
                   + (FIXTURES / "B105.log").read_text())
    result = runner.invoke(app, ["check", str(bad)])
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    assert any(x.startswith(f"{bad}:") and " Q606 [critical] " in x for x in lines), lines
    assert "B105-overcall" in result.stdout and result.stderr == ""
    assert "and 1 unreadable hand or file" in lines[-1]


def test_rules_lists_and_explains_every_code() -> None:
    listing = runner.invoke(app, ["rules"], env={"COLUMNS": "200"})
    assert listing.exit_code == 0
    for code in codes():
        assert code in listing.stdout and RULES[code].name in listing.stdout
        text = explain(code)
        assert text.startswith(f"{code} {RULES[code].name} ({RULES[code].severity.value})")
        for section in ("What it does:", "Why it matters:", "Example:", "Source:"):
            assert section in text
    one = runner.invoke(app, ["rules", "b101"])
    assert one.exit_code == 0 and one.stdout.strip() == explain("B101")
    assert runner.invoke(app, ["rules", "Z999"]).exit_code == 2


def test_every_audit_option_is_documented() -> None:
    group = typer.main.get_command(app)
    for name in ("check", "audit", "rules"):
        command = group.get_command(typer.Context(group), name)  # type: ignore[attr-defined]
        assert command.help, name
        for param in command.params:
            assert getattr(param, "help", None), f"{name} {param.name} has no help"


def test_audit_command_writes_the_store(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    assert runner.invoke(app, ["ingest", B105, "--db", str(db)]).exit_code == 0
    for _ in range(2):
        result = runner.invoke(app, ["audit", "--db", str(db), "--workers", "1", "--select", "B"])
        assert result.exit_code == 0, result.output
        assert "2 finding(s)" in result.stdout
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM findings").fetchall() == [(2,)]
    con.close()


def test_check_reads_gzip_and_jsonl(tmp_path: Path) -> None:
    (tmp_path / "a.log.gz").write_bytes(gzip.compress((FIXTURES / "B105.log").read_bytes()))
    hands = read_fixture(FIXTURES / "B106.log")
    (tmp_path / "b.jsonl").write_text("\n".join(
        parse_hand(h.text, first_line=h.first_line).model_dump_json() for h in hands) + "\n")
    result = runner.invoke(app, ["check", str(tmp_path), "--select", "B", "--format", "jsonl"])
    assert result.exit_code == 1
    rows = list(map(json.loads, result.stdout.splitlines()))
    got = sorted((Path(r["file"]).name, r["hand_id"], r["line"], r.get("log_line"))
                 for r in rows)
    # In JSON Lines a hand is one line: the finding is there, its text-log line kept.
    assert got == [("a.log.gz", "B105-overcall", 28, None),
                   ("a.log.gz", "B105-raise-does-not-add-up", 65, None),
                   ("b.jsonl", "B106-opener-never-called", 1, 29)]


def test_a_rule_crash_on_a_clean_hand_is_not_a_pass(monkeypatch) -> None:
    """A finding-free hand on which a rule crashed exits 2 and names the error on stderr.

    ``--reference``: the fast path certifies this hand without running the rules.
    """

    def boom(self: object, ctx: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(HAND_RULES["O209"], "check", boom)
    result = runner.invoke(app, ["check", str(EXAMPLE), "--workers", "1", "--reference"])
    assert result.exit_code == 2, result.output
    assert result.stdout == "No findings in 1 hand in 1 file.\n"
    assert "error: rule O209 failed on hand " in result.stderr
    assert "RuntimeError" not in result.stderr and "boom" not in result.stderr
    assert "1 internal error(s): the check is incomplete." in result.stderr
    debug = runner.invoke(app, ["check", str(EXAMPLE), "--workers", "1", "--reference"],
                          env={"OPENERS_DEBUG": "1"})
    assert "RuntimeError: boom" in debug.stderr
