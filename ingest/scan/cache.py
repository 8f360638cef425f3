"""Where the compiled code lives, and building it once per machine, never silently.

numba compiles the fast path the first time it runs (about half a minute) and keeps
the machine code on disk. By default numba keeps it beside the sources, keyed by
their absolute path, so every new virtual environment (and a read-only install)
compiled everything again, silently. Here the cache is a per-user folder keyed by
what the machine code depends on: the openers version, the Python version and the
numba version (``~/.cache/openers/numba-0.1.0-py311-numba0.68.1``, or under
``$XDG_CACHE_HOME``, or ``$OPENERS_CACHE_DIR``). Inside it, each function is found by
its module's place in the project, not its absolute path, and is stamped with a
hash of its module's source and of every project module that module imports
(:func:`source_stamp`): the compiled code inlines constants from those (evaluator
tables, verb codes), so an edit to any of them compiles again, and nothing else
does. ``NUMBA_CACHE_DIR``, if set, wins and is its owner's to manage.

What to compile is discovered, never listed: every project module that imports numba
(:func:`compiled_modules`) and every ``warm_up()`` function of the project
(:func:`warm_up_functions`), which compiles its entry points on an empty input;
after the warm-ups, every compiled function of every loaded project module is
checked, and an entry point none of them reached is named. :func:`ensure_compiled`
runs them once, with a progress line on stderr saying so and how long it took;
``openers warmup`` does it ahead of time.

This module imports nothing heavy; :mod:`ingest.scan.locator` is numba's side. It lives
with the scanner, the lowest package of compiled code, so that every package above
(``ingest``, ``audit.facts``) configures the same cache before it compiles anything.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import re
import sys
import time
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import TextIO

#: The project's root folder (the packages below it are the project's code).
ROOT = Path(__file__).resolve().parents[2]
#: Packages that may hold compiled code.
PACKAGES = ("audit", "ingest", "schemas", "openers")
#: numba's own locators, tried after ours (a user's NUMBA_CACHE_DIR first of all).
NUMBA_LOCATORS = "UserProvidedCacheLocator,InTreeCacheLocator,UserWideCacheLocator"
LOCATOR = "ingest.scan.locator.ProjectCacheLocator"
_MARKER = "warm.stamp"
_USES_NUMBA = re.compile(rb"^\s*(?:from numba import|import numba\s*$)", re.MULTILINE)
_DEFINES_WARM_UP = re.compile(rb"^def warm_up\(", re.MULTILINE)
_IMPORT = re.compile(rb"^\s*(?:from\s+([\w.]+)\s+import\s+([\w, ()]+)|import\s+([\w.]+))",
                     re.MULTILINE)


def _version(package: str) -> str:
    from importlib import metadata  # not at the top: it costs more than this whole module

    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "unknown"


def cache_root() -> Path:
    """The per-user cache folder of openers."""
    if os.environ.get("OPENERS_CACHE_DIR"):
        return Path(os.environ["OPENERS_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "openers"


@cache
def cache_dir() -> Path:
    """This install's compiled code: keyed by openers, Python and numba versions."""
    py = f"py{sys.version_info[0]}{sys.version_info[1]}"
    return cache_root() / f"numba-{_version('openers')}-{py}-numba{_version('numba')}"


def user_cache_dir() -> str | None:
    """The folder a user chose with ``NUMBA_CACHE_DIR``, if any (then numba manages it)."""
    return os.environ.get("NUMBA_CACHE_DIR") or None


def configure() -> None:
    """Route numba's cache of project code to :func:`cache_dir` (cheap; no numba import).

    Sets ``NUMBA_CACHE_LOCATOR_CLASSES`` (inherited by worker processes) unless the
    user set it; if numba is already loaded, its config is updated too.
    """
    if os.environ.get("NUMBA_CACHE_LOCATOR_CLASSES"):
        return
    os.environ["NUMBA_CACHE_LOCATOR_CLASSES"] = f"{LOCATOR},{NUMBA_LOCATORS}"
    config = sys.modules.get("numba.core.config")
    if config is not None:
        config.CACHE_LOCATOR_CLASSES = os.environ["NUMBA_CACHE_LOCATOR_CLASSES"]  # type: ignore[attr-defined]


@cache
def _source(path: Path) -> bytes:
    """A project file's bytes, read once per process."""
    return path.read_bytes()


def clear_caches() -> None:
    """Forget what was read (for a process whose sources change under it: tests)."""
    for memo in (_source, module_file, _imports, source_stamp, cache_dir):
        memo.cache_clear()


@cache
def module_file(name: str) -> Path | None:
    """The source file of a project module (``audit.facts.replay``), or None."""
    if name.split(".")[0] not in PACKAGES:
        return None
    base = ROOT.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def module_name(path: Path) -> str:
    """``audit/facts/replay.py`` -> ``audit.facts.replay``."""
    parts = path.resolve().relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def in_project(path: str | Path) -> bool:
    """Whether ``path`` is a source file of the project's own packages (not a library,
    even one installed in a virtual environment inside the project folder)."""
    try:
        relative = Path(path).resolve().relative_to(ROOT)
    except (ValueError, OSError):
        return False
    return len(relative.parts) > 1 and relative.parts[0] in PACKAGES


@cache
def _imports(path: Path) -> frozenset[Path]:
    """The project modules ``path`` imports (at any depth of its code)."""
    found: set[Path] = set()
    for m in _IMPORT.finditer(_source(path)):
        module = (m.group(1) or m.group(3)).decode()
        names = m.group(2).decode() if m.group(2) else ""
        for candidate in [module] + [f"{module}.{n.strip(' ()')}" for n in names.split(",")]:
            file = module_file(candidate)
            if file is not None:
                found.add(file)
    return frozenset(found)


def dependencies(path: Path) -> set[Path]:
    """``path`` and every project module it imports, transitively (read, not imported)."""
    seen: set[Path] = set()
    todo = [path.resolve()]
    while todo:
        file = todo.pop()
        if file in seen or not file.is_file():
            continue
        seen.add(file)
        todo.extend(_imports(file) - seen)
    return seen


def _digest(files: set[Path]) -> str:
    digest = hashlib.sha256()
    for file in sorted(files):
        digest.update(str(file.relative_to(ROOT)).encode())
        digest.update(_source(file))
    return digest.hexdigest()


@cache
def source_stamp(path: str) -> str:
    """A hash of ``path`` and of every project module it imports, transitively."""
    return _digest(dependencies(Path(path)))


def _project_files() -> Iterator[Path]:
    for package in PACKAGES:
        yield from sorted((ROOT / package).rglob("*.py"))


def compiled_modules() -> list[str]:
    """Every project module that uses numba, found by reading the sources."""
    return [module_name(f) for f in _project_files()
            if b"numba" in _source(f) and _USES_NUMBA.search(_source(f))]


def warm_up_functions() -> list[str]:
    """``module.warm_up`` of every project module that defines one."""
    return [f"{module_name(f)}.warm_up" for f in _project_files()
            if b"def warm_up(" in _source(f) and _DEFINES_WARM_UP.search(_source(f))]


def stamp() -> str:
    """One hash over the compiled modules, the warm-ups and everything they import."""
    names = compiled_modules() + [w.rsplit(".", 1)[0] for w in warm_up_functions()]
    files = {f for f in map(module_file, names) if f is not None}
    return _digest(set().union(*map(dependencies, files)) if files else set())


def is_compiled() -> bool:
    """True when the last warm-up into :func:`cache_dir` was of these very sources."""
    if user_cache_dir():
        return True  # the user's own cache: numba compiles into it as it needs
    try:
        return (cache_dir() / _MARKER).read_text() == stamp()
    except OSError:
        return False


def _called_in(qualified: str, modules: list[str]) -> bool:
    """Whether the code of ``modules`` calls ``module.function`` (then it is compiled with
    its caller, and loaded with it from the cache, so it shows no signature of its own)."""
    name = qualified.rpartition(".")[2].encode()
    calls = re.compile(rb"(?<![\w.])(?:\w+\.)?" + re.escape(name) + rb"\s*\(")
    defines = re.compile(rb"\bdef\s+" + re.escape(name) + rb"\s*\(")
    sources = [_source(f) for f in map(module_file, modules) if f is not None]
    return sum(len(calls.findall(s)) - len(defines.findall(s)) for s in sources) > 0


def compile_all() -> list[str]:
    """Run every warm-up; the entry points no warm-up reached (they compile on first use).

    An entry point is a compiled function that no compiled code calls.
    """
    configure()
    for name in compiled_modules():
        importlib.import_module(name)
    for target in warm_up_functions():
        module, _, function = target.rpartition(".")
        warm: Callable[[], None] = getattr(importlib.import_module(module), function)
        warm()
    from ingest.scan.locator import modules_with_compiled_code, uncompiled

    compiled = modules_with_compiled_code()
    missed = [name for name in uncompiled(compiled) if not _called_in(name, compiled)]
    if not user_cache_dir():
        try:
            cache_dir().mkdir(parents=True, exist_ok=True)
            (cache_dir() / _MARKER).write_text(stamp())
        except OSError:
            pass  # an unwritable cache: numba falls back to its own places
    return missed


def ensure_compiled(progress: TextIO | None) -> float | None:
    """Build the compiled code if this machine has not; say so on ``progress`` (None: quiet).

    Returns the seconds spent building, or None when the cache was already warm
    (nothing is printed then, and the code loads as it is used).
    """
    if is_compiled():
        return None
    out = progress if progress is not None else open(os.devnull, "w")  # noqa: SIM115
    out.write(f"openers: compiling the fast path for this machine, once (tens of seconds; "
              f"`openers warmup` does it ahead); cache: {cache_dir()}\n")
    out.flush()
    start = time.perf_counter()
    compile_all()
    took = time.perf_counter() - start
    out.write(f"openers: compiled in {took:.1f} s\n")
    out.flush()
    return took
