"""Expand the PATH arguments of ``openers ingest``/``validate``: files, folders, globs."""

from __future__ import annotations

import glob
from collections.abc import Callable, Iterable
from pathlib import Path

#: File names read from a folder (a file named explicitly is always read).
LOG_SUFFIXES = (".log", ".txt", ".hands", ".jsonl", ".log.gz", ".txt.gz", ".hands.gz",
                ".jsonl.gz")


def is_log_name(name: str) -> bool:
    """True if a file found in a folder should be read as a hand log."""
    return name.lower().endswith(LOG_SUFFIXES)


def _is_glob(text: str) -> bool:
    return any(ch in text for ch in "*?[") and not Path(text).exists()


def missing_paths(paths: Iterable[str | Path]) -> list[str]:
    """The paths that name nothing: no such file or folder, or a glob matching nothing.

    A mistyped path is a usage error (the commands exit 2 and store nothing), never
    data: callers check this before they read or write anything.
    """
    missing = []
    for given in paths:
        text = str(given)
        found = glob.glob(text, recursive=True) if _is_glob(text) else (
            [text] if Path(text).exists() else [])
        if not found:
            missing.append(text)
    return missing


def expand_paths(paths: Iterable[str | Path]) -> list[Path]:
    """The files named by ``paths``, in order, each once.

    A folder gives its log files (recursively, sorted); a pattern with ``*``, ``?``
    or ``[`` is a glob; anything else is a file (a missing one is still returned,
    so that the reader reports it).
    """
    found: list[Path] = []
    seen: set[Path] = set()

    def add(path: Path) -> None:
        key = path.resolve()
        if key not in seen:
            seen.add(key)
            found.append(path)

    for given in paths:
        text = str(given)
        if _is_glob(text):
            for match in sorted(glob.glob(text, recursive=True)):
                _add_path(Path(match), add)
        else:
            _add_path(Path(text), add, explicit=True)
    return found


def _add_path(path: Path, add: Callable[[Path], None], explicit: bool = False) -> None:
    if path.is_dir():
        for child in sorted(path.rglob("*")):
            if child.is_file() and is_log_name(child.name):
                add(child)
    elif explicit or path.is_file():
        add(path)
