"""Quiet nights that are not fine: an empty inbox, a table gone silent, far fewer hands
than usual are data-quality findings of the run, stored, and the job exits 1 for them."""

from __future__ import annotations

import json
from pathlib import Path

from openers.nightly.job import ExitCode, FailOn
from openers.nightly.quality import QualityCode
from openers.nightly.runs import RunStatus
from schemas.findings import Severity
from tests.nightly.handmaker import write_day
from tests.nightly.jobtools import rows, run_in_process

TABLES = ("T01", "T02", "T03")


def _night(root: Path, **extra):
    """A run with the scheduler's default thresholds for data quality."""
    extra.setdefault("fail_on_quality", FailOn.MAJOR)
    return run_in_process(root, **extra)


def _quality(root: Path) -> list[tuple]:
    return rows(root / "store.duckdb",
                "SELECT run_id, code, severity, table_id, observed, expected, message, evidence "
                "FROM data_quality ORDER BY run_id, code, table_id")


def test_an_empty_inbox_is_a_critical_finding_and_exit_1(tmp_path):
    (tmp_path / "inbox").mkdir()
    result = _night(tmp_path)
    assert (result.exit_code, result.status) == (ExitCode.FINDINGS, RunStatus.FINDINGS)
    assert result.counts.quality[Severity.CRITICAL] == 1
    [(run_id, code, severity, table, observed, _, message, _)] = _quality(tmp_path)
    assert (run_id, code, severity, table, observed) == (1, "no-new-hands", "critical", None, 0)
    assert "the inbox holds no hand log" in message


def test_a_night_with_nothing_new_says_so(tmp_path):
    write_day(tmp_path / "inbox", TABLES, range(5))
    assert _night(tmp_path).exit_code is ExitCode.OK
    again = _night(tmp_path)
    assert again.exit_code is ExitCode.FINDINGS
    [row] = _quality(tmp_path)
    assert row[1] == "no-new-hands" and "3 file(s) in the inbox were read by earlier runs" in row[6]


def test_a_table_that_dealt_last_night_and_sent_nothing_tonight(tmp_path):
    inbox = tmp_path / "inbox"
    write_day(inbox, TABLES, range(10))
    assert _night(tmp_path).exit_code is ExitCode.OK
    write_day(inbox, ("T01", "T03"), range(10, 20), append=True)  # T02 is silent
    result = _night(tmp_path)
    assert result.exit_code is ExitCode.FINDINGS and result.counts.quality[Severity.MAJOR] == 1
    [(run_id, code, severity, table, observed, expected, message, evidence)] = _quality(tmp_path)
    assert (run_id, code, severity, table, observed, expected) == (
        2, "silent-table", "major", "T02", 0, 10)
    assert "table T02 sent no hand this run" in message
    assert json.loads(evidence)["previous_run"] == 1


def test_far_fewer_hands_than_usual(tmp_path):
    inbox = tmp_path / "inbox"
    for night in range(3):  # the history: 60 hands a night
        write_day(inbox, TABLES, range(20 * night, 20 * night + 20), append=True)
        assert _night(tmp_path).exit_code is ExitCode.OK
    write_day(inbox, TABLES, range(60, 65), append=True)  # 15 hands: a quarter of usual
    result = _night(tmp_path)
    assert result.exit_code is ExitCode.FINDINGS
    [(run_id, code, _, table, observed, expected, message, _)] = _quality(tmp_path)
    assert (run_id, code, table, observed, expected) == (4, "low-volume", None, 15, 60)
    assert "median of the last 3 runs" in message
    write_day(inbox, TABLES, range(65, 85), append=True)  # back to normal
    assert _night(tmp_path).exit_code is ExitCode.OK
    assert len(_quality(tmp_path)) == 1


def test_the_house_file_sets_tables_volume_and_severity(tmp_path):
    house = tmp_path / "house.toml"
    house.write_text(
        'extends = "robert"\nname = "bay-city"\n\n[nightly]\ntables = ["T01", "T09"]\n'
        'hands = 100\nsevernity = 1\n')
    write_day(tmp_path / "inbox", ("T01",), range(10))
    bad = _night(tmp_path, profile=str(house))
    assert bad.exit_code is ExitCode.FAILED and "'severnity'" in (bad.error or "")
    house.write_text(
        'extends = "robert"\nname = "bay-city"\n\n[nightly]\ntables = ["T01", "T09"]\n'
        'hands = 100\nseverity = { silent-table = "minor", low-volume = "minor" }\n')
    result = _night(tmp_path, profile=str(house))
    # Minor findings are stored, but below --fail-on-quality major: exit 0.
    assert result.exit_code is ExitCode.OK
    rows = {(code, table): (severity, observed, expected)
            for _, code, severity, table, observed, expected, _, _ in _quality(tmp_path)}
    assert rows == {("silent-table", "T09"): ("minor", 0, None),
                    ("low-volume", None): ("minor", 10, 100)}


def test_fail_on_quality_never_stores_the_findings_and_exits_0(tmp_path):
    (tmp_path / "inbox").mkdir()
    result = _night(tmp_path, fail_on_quality=FailOn.NEVER)
    assert result.exit_code is ExitCode.OK
    assert [row[1] for row in _quality(tmp_path)] == [QualityCode.NO_NEW_HANDS.value]


def test_an_ordinary_night_has_no_quality_finding(tmp_path):
    inbox = tmp_path / "inbox"
    for night in range(4):
        write_day(inbox, TABLES, range(10 * night, 10 * night + 10), append=True)
        assert _night(tmp_path).exit_code is ExitCode.OK
    assert _quality(tmp_path) == []
