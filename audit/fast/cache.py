"""Keep numba's on-disk cache of the fast path in step with the code it was built from
(the mechanism is :mod:`ingest.scan.cache`; here are the audit's sources)."""

from __future__ import annotations

from pathlib import Path

from ingest.scan import cache

_HERE = Path(__file__).resolve().parent
#: The modules of audit/fast that hold compiled code (the others are plain Python).
COMPILED = ("layout.py", "evaluate.py", "certify_*.py")
#: Files outside audit/fast whose contents end up inside the compiled code.
DEPENDENCIES = ("audit/evaluator.py", "audit/openers_test.py", "schemas/records.py",
                "audit/profiles.py", "audit/rules/p404_hand_misread.py",
                "ingest/scan/layout.py")


def fingerprint() -> str:
    """A hash of the fast path's sources and what they inline."""
    return cache.fingerprint(_HERE, COMPILED, DEPENDENCIES)


def ensure_fresh(cache_dir: Path = _HERE / "__pycache__") -> bool:
    """Empty the fast path's numba cache if its sources changed; True if it was emptied."""
    return cache.ensure_fresh(_HERE, COMPILED, DEPENDENCIES, cache_dir)
