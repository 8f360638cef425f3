"""Every command and every option of the ``openers`` CLI is documented (datasette style)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from openers.cli import app

EXPECTED = {
    "ingest",
    "validate",
    "schema",
    "check",
    "audit",
    "rules",
    "dashboard",
    "nightly",
    "report",
    "demo",
    "generate",
    "integrity",
    "integrity-tests",
    "export",
    "warmup",
    "verify",
}


def commands() -> dict[str, Any]:
    # typer ships its own click, so the group is duck-typed rather than isinstance-checked
    group = typer.main.get_command(app)
    return group.all_commands(typer.Context(group))  # type: ignore[attr-defined]


def test_the_documented_commands_exist() -> None:
    assert set(commands()) == EXPECTED


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_command_and_options_have_help(name: str) -> None:
    command = commands()[name]
    assert command.help and len(command.help) > 20, name
    undocumented = [
        p.name
        for p in command.params
        if getattr(p, "param_type_name", "") == "option" and not getattr(p, "help", None)
    ]
    assert not undocumented, f"{name}: options without help: {undocumented}"


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_help_runs(name: str) -> None:
    result = CliRunner().invoke(app, [name, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage" in result.output


def test_readme_names_every_command() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    missing = [name for name in EXPECTED if f"openers {name}" not in readme]
    assert not missing, f"README does not mention: {missing}"
