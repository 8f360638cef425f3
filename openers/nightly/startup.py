"""What the nightly process sets up before its work: Arrow without pandas.

pyarrow asks whether pandas is installed the first time it builds an array from Python
objects or NumPy (to recognise a pandas Series), and imports all of pandas to answer:
0.5 to 0.8 s of the job's start, and some 40 MiB in the job and every audit worker forked
from it, for a library the job never uses (it hands Arrow only NumPy arrays, Python lists
and Arrow data). :func:`arrow_without_pandas` has pyarrow ask once while pandas cannot be
imported, so it goes on as if pandas were absent; pandas itself stays importable, and an
explicit conversion (``Table.to_pandas``) still imports it when something asks for one.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

__all__ = ["arrow_without_pandas"]


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
