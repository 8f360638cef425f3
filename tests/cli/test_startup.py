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


def test_rules_needs_no_compiled_code_and_no_data_library() -> None:
    # The rules are predicates over numpy columns: their modules import numpy, never numba.
    assert not loaded("rules") & (DATA | {"numba"})


@pytest.mark.parametrize("extra", [["--reference"], [], ["--fast"]])
def test_check_loads_no_data_library(extra: list[str]) -> None:
    assert not loaded("check", str(FIXTURES / "B105.log"), *extra) & DATA


def test_a_small_check_does_not_load_the_compiled_code() -> None:
    """Below ~500 hands the reference engine finishes before numba has loaded."""
    assert "numba" not in loaded("check", str(FIXTURES / "B105.log"))
    assert "numba" in loaded("check", str(FIXTURES / "B105.log"), "--fast")


def test_the_input_size_chooses_the_path(tmp_path, monkeypatch) -> None:
    from audit import cli

    monkeypatch.setattr(cli, "FAST_PATH_MIN_BYTES", 1000)
    small, packed = tmp_path / "a.log", tmp_path / "b.log.gz"
    small.write_bytes(b"x" * 999)
    packed.write_bytes(b"x" * 150)
    assert not cli._large([small]) and not cli._large([packed])
    assert cli._large([small, packed])  # a compressed log counts five times its size
    assert not cli._large([tmp_path / "missing.log"])


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
