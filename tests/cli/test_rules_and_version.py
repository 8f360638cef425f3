"""``openers rules`` never cuts a name, accepts prefixes and lists the Q codes; ``--version``."""

from __future__ import annotations

import subprocess
import sys

from typer.testing import CliRunner

from audit.registry import RULES, codes
from audit.rules_cli import explain
from audit.unreadable import CODES, all_codes
from ingest.errors import ErrorKind
from openers import version
from openers.cli import app

runner = CliRunner()


def test_piped_listing_has_every_name_in_full() -> None:
    out = runner.invoke(app, ["rules"], terminal_width=40).stdout
    rows = [line.split("\t") for line in out.splitlines()]
    assert all(len(r) == 4 for r in rows)
    assert [r[0] for r in rows] == [*codes(), *all_codes()]
    for code, severity, name, summary in rows[:len(codes())]:
        assert (severity, name, summary) == (RULES[code].severity.value, RULES[code].name,
                                             RULES[code].summary)
    assert "…" not in out


def test_a_real_pipe_is_not_cut_either() -> None:
    out = subprocess.run([sys.executable, "-c", "from openers.cli import main; main()",
                          "rules", "D3"], capture_output=True, text=True, check=True,
                         env={"COLUMNS": "30", "PATH": ""}).stdout
    assert "D307\tcritical\tduplicate-or-impossible-card\t" in out


def test_prefixes_list_a_family_and_a_whole_code_explains_it() -> None:
    o2 = runner.invoke(app, ["rules", "o2"])
    assert o2.exit_code == 0
    assert [line.split("\t")[0] for line in o2.stdout.splitlines()] == [
        c for c in codes() if c.startswith("O2")]
    one = runner.invoke(app, ["rules", "B101"])
    assert one.exit_code == 0 and one.stdout.strip() == explain("B101")
    q = runner.invoke(app, ["rules", "Q606"])
    assert q.exit_code == 0 and q.stdout.startswith("Q606 bad-card (critical)")


def test_every_reader_error_kind_has_its_own_q_code() -> None:
    assert set(CODES) == {k.value for k in ErrorKind}
    assert len(set(CODES.values())) == len(CODES)
    assert all(c.startswith("Q6") and len(c) == 4 for c in CODES.values())


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout == f"openers {version()}\n"
    assert version() not in ("", "0+unknown")
