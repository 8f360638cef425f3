"""Each command imports only what it uses (start-up time is measured in benchmarks/).

Run in a fresh interpreter, as a user's shell would: what a command leaves in
``sys.modules`` is what it paid for at start-up.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import typer

from openers.cli import AREAS, app
from openers.lazy import command_docs
from tests.audit.harness import FIXTURES

PROBE = """
import contextlib, io, json, sys
sys.argv = ["openers", *json.loads(sys.argv[1])]
from openers.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        main()
    except SystemExit:
        pass
print(json.dumps(sorted(m for m in sys.modules if "." not in m)))
"""
DATA = {"polars", "duckdb", "pyarrow", "pandas", "streamlit", "altair", "jinja2"}
COMPUTE = {"numpy", "numba", "pydantic"}


def loaded(*args: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", PROBE, json.dumps(args)], capture_output=True,
                         text=True, check=True).stdout
    return set(json.loads(out))


@pytest.mark.parametrize("args", [["--help"], ["--version"]])
def test_help_and_version_import_nothing_heavy(args: list[str]) -> None:
    assert not loaded(*args) & (DATA | COMPUTE | {"rich"})


def test_rules_needs_no_engine_and_no_data_library() -> None:
    assert not loaded("rules") & (DATA | {"numpy", "numba"})


@pytest.mark.parametrize("extra", [["--reference"], []])
def test_check_loads_no_data_library(extra: list[str]) -> None:
    assert not loaded("check", str(FIXTURES / "B105.log"), *extra) & DATA


def test_every_area_is_described_without_importing_it() -> None:
    """``openers --help`` reads each command's description from its module's source."""
    group = typer.main.get_command(app)
    ctx = typer.Context(group)
    for area in AREAS:
        docs = command_docs(area.module)
        assert set(docs) == set(area.commands), area.module
        for name in area.commands:
            loaded_help = group.get_command(ctx, name).get_short_help_str(10_000)  # type: ignore[attr-defined]
            stub = typer.core.TyperCommand(name=name, help=docs[name])
            assert stub.get_short_help_str(10_000) == loaded_help, name


def test_each_area_registers_exactly_the_names_it_is_listed_with() -> None:
    for area in AREAS:
        sub = typer.Typer()
        __import__(area.module, fromlist=["register"]).register(sub)
        names = set(getattr(typer.main.get_group(sub), "commands", {}))
        assert names == set(area.commands), area.module
