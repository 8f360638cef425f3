"""``openers check`` exits like a linter and speaks in its own words.

0 nothing to report, 1 findings (an unreadable hand among them), 2 only when the
check itself cannot run; ``--fail-on``, ``--exit-zero``, ``--quiet`` and baselines.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from openers.cli import app
from tests.audit.harness import FIXTURES
from tests.cli.conftest import EXAMPLE

runner = CliRunner()
#: Words that only Python or its libraries use: none may reach a user.
LEAKS = re.compile(r"Traceback|Errno|[A-Z][a-z]+Error\b|[A-Z][a-z]+Exception|pydantic|"
                   r"Value error|Input should|validation error")


def run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), env=env)
    return result.exit_code, result.stdout, result.stderr


def test_findings_exit_1_and_an_unreadable_hand_alone_exits_1(tmp_path: Path) -> None:
    assert run("check", str(FIXTURES / "B105.log"))[0] == 1
    bad = tmp_path / "bad.log"
    bad.write_text(EXAMPLE.read_text().replace("[Kd Kc 7s", "[Kd Kx 7s"))
    code, out, err = run("check", str(bad))
    assert code == 1 and err == ""
    assert out.splitlines()[0].startswith(f"{bad}:") and " Q606 [critical] " in out
    assert out.splitlines()[-1] == ("Found 1 unreadable hand or file in 1 file; 0 hands read "
                                    "(1 critical).")
    assert run("check", str(bad), "--ignore", "Q")[0] == 0


def test_fail_on_and_exit_zero() -> None:
    b105 = str(FIXTURES / "B105.log")  # major findings
    assert run("check", b105, "--fail-on", "critical")[0] == 0
    assert run("check", b105, "--fail-on", "MAJOR")[0] == 1
    assert run("check", b105, "--fail-on", "never")[0] == 0
    code, out, _ = run("check", b105, "--exit-zero")
    assert code == 0 and "B105" in out
    code, _, err = run("check", b105, "--fail-on", "severe")
    assert code == 2 and "'severe' is not a severity: expected one of critical, major, " \
        "minor, never" in err


def test_quiet_prints_findings_only() -> None:
    code, out, err = run("check", str(FIXTURES / "B105.log"), "--quiet")
    assert code == 1 and err == ""
    assert len(out.splitlines()) == 2 and not out.startswith("Found")


@pytest.mark.parametrize("args, words", [
    (["check", "nonexistent.log"], "nonexistent.log: no such file or folder"),
    (["check", "nothing-here-*.log"], "nothing-here-*.log: no such file or folder"),
    (["check", str(EXAMPLE), "--profile", "nope"], "unknown profile 'nope'"),
    (["check", str(EXAMPLE), "--select", "Z9"], "--select: unknown rule code 'Z9'"),
    (["check", str(EXAMPLE), "--ignore", "Q9"], "--ignore: unknown code 'Q9'"),
    (["check", str(EXAMPLE), "--output-format", "xml"],
     "'xml' is not a format: expected one of text, concise, json"),
    (["check", str(EXAMPLE), "--workers", "0"], "--workers"),
    (["check", str(EXAMPLE), "--baseline", "missing.json"], "no baseline file missing.json"),
    (["audit", "--db", "missing.duckdb"], "missing.duckdb: no such store"),
    (["rules", "Z9"], "no rule code starts with 'Z9'"),
])
def test_usage_errors_exit_2_in_our_words(args: list[str], words: str) -> None:
    code, out, err = run(*args)
    assert code == 2, out + err
    text = " ".join((out + err).split()).replace("│", "")
    assert words in " ".join(text.split()), text
    assert not LEAKS.search(text), text


def test_an_empty_folder_is_a_usage_error(tmp_path: Path) -> None:
    code, _, err = run("check", str(tmp_path))
    assert code == 2 and "no hand logs in" in err and "expected files ending in" in err


def test_an_internal_error_exits_2_without_a_traceback(monkeypatch) -> None:
    import audit.batch

    def broken(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(audit.batch, "check_paths", broken)
    from openers.cli import main

    with pytest.raises(SystemExit) as stop:
        monkeypatch.setattr("sys.argv", ["openers", "check", str(EXAMPLE), "--reference"])
        main()
    assert stop.value.code == 2


def test_main_hides_the_exception_text(monkeypatch, capsys) -> None:
    import audit.batch

    def broken(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(audit.batch, "check_paths", broken)
    monkeypatch.setattr("sys.argv", ["openers", "check", str(EXAMPLE), "--reference"])
    from openers.cli import main

    with pytest.raises(SystemExit):
        main()
    err = capsys.readouterr().err
    assert "openers: internal error" in err and "division" not in err
    assert "ZeroDivisionError" not in err and "OPENERS_DEBUG=1" in err


def test_baseline_hides_accepted_findings_wherever_their_lines_move(tmp_path: Path) -> None:
    log = tmp_path / "day.log"
    shutil.copy(FIXTURES / "B105.log", log)
    accepted = tmp_path / "accepted.json"
    code, _, err = run("check", str(log), "--write-baseline", str(accepted))
    assert code == 0 and "Wrote 2 accepted finding(s)" in err
    data = json.loads(accepted.read_text())
    assert data["openers_baseline"] == 1 and len(data["findings"]) == 2
    # The same hands exported again after others: every line moves, nothing is new.
    log.write_text(EXAMPLE.read_text() + "\n\n" + (FIXTURES / "B105.log").read_text())
    code, out, _ = run("check", str(log), "--baseline", str(accepted))
    assert code == 0, out
    assert out.startswith("No findings in 5 hands") and "2 more already in the baseline" in out
    # A new violation shows, and only it.
    log.write_text(log.read_text() + "\n\n" + (FIXTURES / "B101.log").read_text())
    code, out, _ = run("check", str(log), "--baseline", str(accepted), "--quiet")
    assert code == 1 and {x.split()[1] for x in out.splitlines()} == {"B101"}


@pytest.mark.parametrize("content, words", [
    ("not json", "is not a baseline: expected the JSON that --write-baseline writes"),
    ('{"findings": []}', '"openers_baseline": 1'),
    ('{"openers_baseline": 1, "findings": [{"code": 1}]}', "finding 1 needs its key"),
])
def test_a_bad_baseline_is_a_usage_error(tmp_path: Path, content: str, words: str) -> None:
    bad = tmp_path / "b.json"
    bad.write_text(content)
    code, _, err = run("check", str(EXAMPLE), "--baseline", str(bad))
    assert code == 2 and words in err


def test_fail_on_help_is_rendered_whole() -> None:
    out = runner.invoke(app, ["check", "--help"], terminal_width=60).stdout
    flat = " ".join(out.split())
    assert "--fail-on SEVERITY" in flat
    assert "critical, major, minor (the default: any finding) or never" in flat


def test_a_house_file_that_is_not_text_is_named_in_our_words(tmp_path: Path) -> None:
    house = tmp_path / "house.toml"
    house.write_bytes(b"\xff\xfe")
    code, _, err = run("check", str(EXAMPLE), "--profile", str(house))
    assert code == 2 and "house.toml: not UTF-8 text at byte 1" in err
    assert not LEAKS.search(err) and "codec" not in err


def test_a_closed_pipe_ends_quietly() -> None:
    """``openers check ... | head``: no traceback, no internal error, the shell's 141."""
    import subprocess
    import sys

    script = ("import sys\nfrom openers.cli import main\n"
              "sys.argv = ['openers', 'rules']\n"
              "import openers.cli as c\n"
              "def flood(*a, **k):\n"
              "    while True:\n        print('x' * 1000)\n"
              "c.app = flood\nmain()\n")
    reader = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    assert reader.stdout is not None and reader.stderr is not None
    reader.stdout.read(10)
    reader.stdout.close()
    assert reader.wait(timeout=60) == 141
    assert reader.stderr.read() == b""


def test_fail_on_thresholds() -> None:
    from schemas.findings import FailOn

    assert FailOn.MAJOR.reached_by("critical") and FailOn.MAJOR.reached_by("major")
    assert not FailOn.MAJOR.reached_by("minor")
    assert not any(FailOn.NEVER.reached_by(s) for s in ("critical", "major", "minor"))
