"""``openers check --output-format``: every format carries file, line, code and severity.

SARIF is validated against the SARIF 2.1.0 JSON schema (vendored beside this file:
``sarif-2.1.0-rtm.5.json`` from the npm package ``@microsoft/jest-sarif``
1.0.0-beta.0, MIT; the schema of SARIF 2.1.0's final committee draft, whose
``version`` is "2.1.0"), JUnit XML is parsed back with junitparser, and GitHub lines
are matched against the workflow-command syntax GitHub documents
(``::LEVEL file=F,line=L,col=C,title=T::MESSAGE``, with ``%``, CR, LF escaped in the
message and also ``:`` and ``,`` in property values).
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import jsonschema
import pytest
from junitparser import Failure, JUnitXml
from typer.testing import CliRunner

from audit.output import Item, Summary
from audit.output_ci import github_line, junit
from openers.cli import app

runner = CliRunner()
SCHEMA = json.loads((Path(__file__).parent / "sarif-2.1.0-rtm.5.json").read_text())


def check(room: Path, *args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["check", str(room), "--workers", "1", *args])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, result.stdout


def test_text_lines_are_sorted_by_file_and_line_then_a_summary(room: Path) -> None:
    code, out = check(room, "--select", "B,Q")
    lines = out.splitlines()
    pattern = re.compile(r"^(\S+):(\d+):(\d+): ([BODPJQ]\d{3}) \[(critical|major|minor)\] "
                         r".+ \(hand \S+\)$")
    found = [pattern.match(x) for x in lines[:-1]]
    assert code == 1 and all(found), lines
    places = [(m.group(1), int(m.group(2))) for m in found if m]
    assert places == sorted(places)
    assert {Path(p).name for p, _ in places} == {"b101.log", "b105.log", "broken.log"}
    assert lines[-1] == ("Found 8 findings in 8 of 14 hands and 1 unreadable hand or file "
                         "in 3 files (1 critical, 8 major).")


def test_concise_has_no_severity_nor_hand(room: Path) -> None:
    _, out = check(room, "--select", "B105", "--output-format", "concise")
    lines = out.splitlines()
    assert lines[:2] == [
        f"{room / 'b105.log'}:28:1: B105 seat 1 calls 20 but owed 10 (bet 20, in 10)",
        f"{room / 'b105.log'}:65:1: B105 seat 2 raises 10 to 30 over a bet of 10 "
        "(should be to 20)",
    ]
    assert len(lines) == 5 and all(x.startswith(f"{room / 'broken.log'}:") for x in lines[2:4])
    assert lines[4].startswith("Found 4 findings")


@pytest.mark.parametrize("fmt", ["json", "jsonl", "csv"])
def test_structured_formats_carry_file_line_code_and_severity(room: Path, fmt: str) -> None:
    _, out = check(room, "--output-format", fmt)
    if fmt == "json":
        rows = json.loads(out)
    elif fmt == "jsonl":
        rows = [json.loads(x) for x in out.splitlines()]
    else:
        rows = list(csv.DictReader(io.StringIO(out)))
    assert rows
    for row in rows:
        assert Path(row["file"]).parent == room and int(row["line"]) > 0
        assert row["severity"] in ("critical", "major", "minor") and row["code"]
    unreadable = [r for r in rows if r["code"].startswith("Q")]
    assert [(Path(r["file"]).name, r["kind"]) for r in unreadable] == [("broken.log",
                                                                         "unreadable")]


def test_sarif_is_valid_sarif_2_1_0(room: Path) -> None:
    _, out = check(room, "--output-format", "sarif")
    log = json.loads(out)
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    run = log["runs"][0]
    rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert log["version"] == "2.1.0" and "Q606" in rules and "B105" in rules
    for result in run["results"]:
        assert rules[result["ruleIndex"]] == result["ruleId"]
        location = result["locations"][0]["physicalLocation"]
        assert Path(location["artifactLocation"]["uri"]).parent.name == "room"
        assert location["region"]["startLine"] > 0
        assert result["level"] in ("error", "warning", "note")
    # the same hand in two files is the same finding in two places
    keys = [(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
             r["partialFingerprints"]["openersFindingKey/v1"]) for r in run["results"]]
    assert len(set(keys)) == len(keys)


def test_sarif_of_a_clean_run_is_valid_too(tmp_path: Path) -> None:
    from tests.cli.conftest import EXAMPLE

    result = runner.invoke(app, ["check", str(EXAMPLE), "--output-format", "sarif"])
    assert result.exit_code == 0
    log = json.loads(result.stdout)
    jsonschema.Draft4Validator(SCHEMA).validate(log)
    assert log["runs"][0]["results"] == []


def test_junit_parses_back_with_a_junit_parser(room: Path, tmp_path: Path) -> None:
    _, out = check(room, "--output-format", "junit")
    report = tmp_path / "junit.xml"
    report.write_text(out)
    xml = JUnitXml.fromfile(str(report))
    suites = {s.name: s for s in xml}
    assert set(suites) == {str(room / n) for n in ("b101.log", "b105.log", "broken.log")}
    failures = [(suite.name, case.name, r.type) for suite in xml for case in suite
                for r in case.result if isinstance(r, Failure)]
    assert len(failures) == sum(s.failures for s in suites.values()) > 0
    assert any(t == "Q606" for _, _, t in failures)


def test_junit_has_a_passing_case_for_a_clean_file() -> None:
    text = junit([], Summary(files=["clean.log"], hands=3))
    xml = JUnitXml.fromstring(text)
    suite = next(iter(xml))
    case = next(iter(suite))
    assert suite.name == "clean.log" and case.is_passed and suite.tests == 1


GITHUB = re.compile(r"^::(error|warning|notice) file=([^,:]+),line=(\d+),col=(\d+),"
                    r"title=([^,:]+)::(.+)$")


def test_github_lines_follow_the_workflow_command_syntax(room: Path) -> None:
    _, out = check(room, "--output-format", "github")
    lines = out.splitlines()
    assert lines and all(GITHUB.match(x) for x in lines), lines
    assert any(x.startswith("::error ") and "title=Q606 bad-card [critical]::" in x
               for x in lines)


def test_github_escapes_what_the_syntax_reserves() -> None:
    item = Item(file="a,b:c%.log", line=3, code="B105", name="n", severity="minor",
                message="100% wrong\nsecond line", hand_id="H", table="T", seat=1, key="1/2")
    line = github_line(item)
    assert line == ("::notice file=a%2Cb%3Ac%25.log,line=3,col=1,title=B105 n [minor]::"
                    "100%25 wrong%0Asecond line (hand H)")


def test_statistics_counts_per_code(room: Path) -> None:
    _, out = check(room, "--statistics")
    lines = out.splitlines()
    assert [x.split() for x in lines[:-1]] == [
        ["4", "B101", "over-cap-raise", "[major]"],
        ["4", "B105", "inconsistent-call-or-raise", "[major]"],
        ["1", "Q606", "bad-card", "[critical]"],
    ]
    assert lines[-1].startswith("Found 8 findings")
    as_json = json.loads(check(room, "--statistics", "--output-format", "json")[1])
    assert {r["code"]: r["count"] for r in as_json}["Q606"] == 1


def test_fast_and_reference_paths_print_the_same(room: Path) -> None:
    fast = check(room, "--output-format", "jsonl", "--fast")[1]
    reference = check(room, "--output-format", "jsonl", "--reference")[1]
    assert fast == reference
