"""Keep numba's on-disk cache of the fast path in step with the code it was built from.

numba invalidates a cached function only when the function's own file changes, but
the fast path inlines code from other modules (the evaluator tables, the verb and
section codes of ``schemas.records``). A cached certifier built against an older
evaluator would certify with old rankings. So the cache carries a fingerprint of
every source the compiled code depends on, and a mismatch empties it before
anything is loaded.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

_HERE = Path(__file__).resolve().parent
_ROOT = _HERE.parents[1]
#: The modules of audit/fast that hold compiled code (the others are plain Python).
COMPILED = ("layout.py", "evaluate.py", "scan*.py", "certify_*.py")
#: Files outside audit/fast whose contents end up inside the compiled code.
DEPENDENCIES = ("audit/evaluator.py", "audit/openers_test.py", "schemas/records.py",
                "audit/profiles.py", "audit/rules/p404_hand_misread.py")
_STAMP = "numba-sources.sha256"


def fingerprint() -> str:
    """A hash of the fast path's sources and what they inline."""
    digest = hashlib.sha256()
    for path in sorted(p for pattern in COMPILED for p in _HERE.glob(pattern)) + [
            _ROOT / d for d in DEPENDENCIES]:
        digest.update(path.name.encode())
        digest.update(path.read_bytes() if path.exists() else b"")
    return digest.hexdigest()


def ensure_fresh(cache_dir: Path = _HERE / "__pycache__") -> bool:
    """Empty the numba cache if its sources changed; True if it was emptied.

    A cache moved elsewhere with ``NUMBA_CACHE_DIR`` is its owner's to manage.
    """
    if os.environ.get("NUMBA_CACHE_DIR"):
        return False
    stamp = cache_dir / _STAMP
    current = fingerprint()
    try:
        if stamp.read_text() == current:
            return False
    except OSError:
        pass
    try:
        cache_dir.mkdir(exist_ok=True)
        for pattern in ("*.nbi", "*.nbc"):
            for old in cache_dir.glob(pattern):
                old.unlink(missing_ok=True)
        stamp.write_text(current)
    except OSError:  # a read-only install: numba then caches in the user's cache folder
        return False
    return True
