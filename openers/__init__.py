"""openers: the application layer (CLI, generator, nightly job, reports) over the
``ingest``, ``audit``, ``schemas`` and ``dashboards`` packages."""

from __future__ import annotations

from functools import cache


@cache
def version() -> str:
    """The installed version: pyproject.toml's, the one definition of it.

    Read from the package metadata on first use (reading it costs more than the
    rest of ``openers --help``'s imports together).
    """
    from importlib import metadata

    try:
        return metadata.version("openers")
    except metadata.PackageNotFoundError:  # a source tree that is not installed
        return "0+unknown"


def __getattr__(name: str) -> str:
    if name == "__version__":
        return version()
    raise AttributeError(f"module 'openers' has no attribute {name!r}")
