"""What the nightly process sets up before its work: Arrow without pandas, and the later
stages' engines imported while the ingest runs.

pyarrow asks whether pandas is installed the first time it builds an array from Python
objects or NumPy (to recognise a pandas Series), and imports all of pandas to answer:
0.5 to 0.8 s of the job's start, and some 40 MiB in the job and every audit worker forked
from it, for a library the job never uses (it hands Arrow only NumPy arrays, Python lists
and Arrow data). :func:`arrow_without_pandas` has pyarrow ask once while pandas cannot be
imported, so it goes on as if pandas were absent; pandas itself stays importable, and an
explicit conversion (``Table.to_pandas``) still imports it when something asks for one.

The audit, the integrity analysis and the report each import their engine when they start
(:mod:`openers.nightly.stages`), 1.5 to 2 s of imports in all. :class:`Preload` imports them
in a thread of its own while the ingest runs, whose reading thread spends a third of its
time waiting for DuckDB's writes: the imports then cost no wall time. Python's import locks
make a module imported by both threads load once (the second waits for the first). Before
them it loads the compiled scanner (numba loads cached machine code at a function's first
call: 0.4 s for the scanner, which the ingest's first read would otherwise wait for, and
the DuckDB writes with it), from the job's first step on; numba's compiler lock makes a
thread that calls it meanwhile wait for that load rather than repeat it.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import threading
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

__all__ = ["COMPILED", "ENGINES", "Preload", "arrow_without_pandas"]

#: The modules whose compiled code the ingest calls first: each one's ``warm_up()``.
COMPILED = ("ingest.scan.scanner", "ingest.scan.text")
#: The modules the stages after the ingest import, in the order they start.
ENGINES = ("ingest.batches", "ingest.commit", "audit.store", "audit.integrity.store",
           "openers.report")


class _NoPandas:
    """An import finder that refuses pandas (in place only while pyarrow asks)."""

    @staticmethod
    def find_spec(name: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if name == "pandas" or name.startswith("pandas."):
            raise ModuleNotFoundError("pandas is not used here", name=name)
        return None


def arrow_without_pandas() -> bool:
    """Have pyarrow settle that pandas is absent, unless pandas is loaded already (then
    nothing changes). Returns whether pyarrow now runs without pandas."""
    if "pandas" in sys.modules:
        return False
    import pyarrow as pa

    refuse = _NoPandas()
    sys.meta_path.insert(0, refuse)
    try:
        pa.array([0])  # pyarrow asks for pandas here, once per process
    finally:
        sys.meta_path.remove(refuse)
    return "pandas" not in sys.modules


class Preload:
    """Call ``warm_up()`` of each of ``compiled``, then import ``modules``, in a thread of
    its own; :meth:`join` before the process forks (the audit's workers) or relies on
    them. A warm-up or import that fails there is left for the stage that needs the
    module to raise again, where it is reported."""

    def __init__(self, modules: Sequence[str] = ENGINES,
                 compiled: Sequence[str] = COMPILED) -> None:
        self._modules, self._compiled = tuple(modules), tuple(compiled)
        self._thread = threading.Thread(target=self._run, name="preload", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        for name in self._compiled:
            with contextlib.suppress(Exception):
                importlib.import_module(name).warm_up()
        for name in self._modules:
            with contextlib.suppress(Exception):
                importlib.import_module(name)

    def join(self) -> None:
        """Wait until every module is imported (or has failed to)."""
        self._thread.join()
