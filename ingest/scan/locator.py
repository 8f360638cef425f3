"""numba's side of :mod:`ingest.scan.cache`: a cache locator for the project's own code.

numba asks each locator class in ``NUMBA_CACHE_LOCATOR_CLASSES`` (set by
:func:`ingest.scan.cache.configure`) where to keep a function's machine code and how
fresh its source is. This one answers for the project's modules only: the folder is
:func:`ingest.scan.cache.cache_dir` plus the module's package path (the same in every
virtual environment of this version), and the freshness stamp is
:func:`ingest.scan.cache.source_stamp` (the module and what it imports, by content).
Anything else, or a user's ``NUMBA_CACHE_DIR``, goes to numba's own locators.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from numba.core import config
from numba.core.caching import _CacheLocator

from ingest.scan.cache import cache_dir, in_project, module_name, source_stamp


class ProjectCacheLocator(_CacheLocator):
    """Keeps the project's compiled functions in the per-user, per-version cache."""

    def __init__(self, py_func: Any, py_file: str) -> None:
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        package = module_name(Path(py_file)).rpartition(".")[0]
        self._cache_path = str(cache_dir() / (package or "_"))

    def get_cache_path(self) -> str:
        return self._cache_path

    def get_source_stamp(self) -> str:
        return source_stamp(self._py_file)

    def get_disambiguator(self) -> str:
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> ProjectCacheLocator | None:
        if getattr(config, "CACHE_DIR", ""):  # NUMBA_CACHE_DIR: numba's own locator takes it
            return None
        if not in_project(py_file):
            return None
        self = cls(py_func, py_file)
        try:
            self.ensure_cache_path()
        except OSError:
            return None  # unwritable: numba's own locators find a place
        return self

