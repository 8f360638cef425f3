"""The compiled code: a per-user cache keyed by version, found by content, never built silently."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import types
from pathlib import Path

import numba
from typer.testing import CliRunner

from ingest.scan import cache
from ingest.scan.cache import uncompiled
from ingest.scan.locator import ProjectCacheLocator
from openers.cli import app
from tests.audit.harness import FIXTURES

runner = CliRunner()


def test_the_cache_is_per_user_and_keyed_by_the_versions(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.delenv("OPENERS_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cache.cache_dir.cache_clear()
    try:
        where = cache.cache_dir()
        assert where.parent == tmp_path / "openers"
        py = f"py{sys.version_info[0]}{sys.version_info[1]}"
        assert where.name == f"numba-{cache._version('openers')}-{py}-numba{numba.__version__}"
        monkeypatch.setenv("OPENERS_CACHE_DIR", str(tmp_path / "mine"))
        cache.cache_dir.cache_clear()
        assert cache.cache_dir().parent == tmp_path / "mine"
    finally:
        cache.cache_dir.cache_clear()


def test_a_function_is_found_by_its_place_in_the_project_not_its_path() -> None:
    from audit.facts import evaluate

    locator = ProjectCacheLocator(evaluate.leading_rank_code.py_func, evaluate.__file__)
    assert Path(locator.get_cache_path()) == cache.cache_dir() / "audit.facts"
    assert str(cache.ROOT) not in locator.get_cache_path() or str(cache.ROOT) in str(
        cache.cache_root())
    assert locator.get_source_stamp() == cache.source_stamp(evaluate.__file__)


def test_the_stamp_covers_what_the_compiled_code_inlines() -> None:
    names = {str(p.relative_to(cache.ROOT)) for p in
             cache.dependencies(cache.ROOT / "audit" / "facts" / "evaluate.py")}
    assert {"audit/facts/evaluate.py", "audit/evaluator.py", "schemas/records.py"} <= names


def test_editing_an_imported_module_changes_the_stamp(monkeypatch, tmp_path: Path) -> None:
    (tmp_path / "audit" / "fast").mkdir(parents=True)
    compiled = tmp_path / "audit" / "fast" / "kernel.py"
    compiled.write_text("from audit.tables import TABLE\n")
    tables = tmp_path / "audit" / "tables.py"
    tables.write_text("TABLE = (1, 2)\n")
    monkeypatch.setattr(cache, "ROOT", tmp_path)
    cache.clear_caches()
    try:
        before = cache.source_stamp(str(compiled))
        tables.write_text("TABLE = (1, 3)\n")
        cache.clear_caches()
        assert cache.source_stamp(str(compiled)) != before
    finally:
        cache.clear_caches()


def test_what_to_compile_is_discovered() -> None:
    modules = cache.compiled_modules()
    assert "ingest.scan.scanner" in modules and "audit.facts.evaluate" in modules
    assert "ingest.scan.locator" not in modules and "ingest.scan.cache" not in modules
    assert "audit.facts.replay.warm_up" in cache.warm_up_functions()


def test_uncompiled_names_the_functions_no_warm_up_reached(monkeypatch) -> None:
    module = types.ModuleType("openers_probe_kernels")

    def double(x: int) -> int:
        return 2 * x

    double.__module__ = module.__name__
    kernel = numba.njit(double)
    module.double = kernel  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, module.__name__, module)
    assert uncompiled([module.__name__]) == ["openers_probe_kernels.double"]
    assert kernel(2) == 4
    assert uncompiled([module.__name__]) == []


def test_a_cold_cache_is_built_with_a_progress_line(monkeypatch) -> None:
    built: list[bool] = []
    monkeypatch.setattr(cache, "is_compiled", lambda: False)

    def compile_all() -> list[str]:
        built.append(True)
        return []

    monkeypatch.setattr(cache, "compile_all", compile_all)
    result = runner.invoke(app, ["check", str(FIXTURES / "B105.log"), "--workers", "1",
                                 "--fast"])
    assert result.exit_code == 1 and built == [True]
    lines = result.stderr.splitlines()
    assert lines[0].startswith("openers: compiling the fast path for this machine, once")
    assert lines[1].startswith("openers: compiled in ") and lines[1].endswith(" s")
    quiet = runner.invoke(app, ["check", str(FIXTURES / "B105.log"), "--workers", "1", "-q",
                                "--fast"])
    assert quiet.stderr == "" and built == [True, True]
    reference = runner.invoke(app, ["check", str(FIXTURES / "B105.log"), "--reference"])
    assert reference.stderr == "" and built == [True, True]


def test_a_warm_cache_says_nothing(monkeypatch) -> None:
    monkeypatch.setattr(cache, "is_compiled", lambda: True)
    assert cache.ensure_compiled(sys.stderr) is None


def test_warmup_command(monkeypatch) -> None:
    monkeypatch.setattr(cache, "is_compiled", lambda: False)
    monkeypatch.setattr(cache, "compile_all", lambda: ["a.b.c"])
    result = runner.invoke(app, ["warmup"])
    assert result.exit_code == 0
    assert result.stdout.startswith("Compiling the fast path into ")
    assert "Compiled in " in result.stdout and "compile on first use: a.b.c" in result.stdout
    monkeypatch.setattr(cache, "is_compiled", lambda: True)
    assert "up to date" in runner.invoke(app, ["warmup"]).stdout


PROBE = """
import json, sys
import audit.facts.evaluate as e
assert e.__file__.startswith(sys.argv[1]), e.__file__
e.leading_rank_code(5)
stats = e.leading_rank_code.stats
print(json.dumps([sum(stats.cache_hits.values()), sum(stats.cache_misses.values())]))
"""


def test_the_cache_survives_a_new_place_of_the_same_sources(tmp_path: Path) -> None:
    """A copy of the sources elsewhere (as a new virtual environment installs them) loads
    the machine code the first copy compiled, instead of compiling again."""
    copy = tmp_path / "elsewhere"
    for package in ("audit", "schemas", "ingest", "openers"):
        shutil.copytree(cache.ROOT / package, copy / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "OPENERS_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("NUMBA_CACHE_DIR", None)
    env.pop("NUMBA_CACHE_LOCATOR_CLASSES", None)

    def run(root: Path) -> list[int]:
        out = subprocess.run([sys.executable, "-c", PROBE, str(root)], capture_output=True,
                             text=True, check=True, cwd=tmp_path,
                             env={**env, "PYTHONPATH": str(root)}).stdout
        return json.loads(out)

    assert run(cache.ROOT) == [0, 1]  # compiled here ...
    assert run(copy) == [1, 0]  # ... and loaded there



def test_only_the_projects_own_code_is_cached_by_place() -> None:
    assert cache.in_project(cache.__file__)
    assert not cache.in_project(numba.__file__)  # a library, even in a venv inside the project
    assert not cache.in_project(cache.ROOT / "README.md")


def test_a_function_called_by_compiled_code_is_not_an_entry_point() -> None:
    modules = ["ingest.scan.tokens", "ingest.scan.header"]
    assert cache._called_in("ingest.scan.tokens.amount", modules)
    assert not cache._called_in("audit.facts.evaluate.strength_of", modules)
