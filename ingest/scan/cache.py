"""Keep numba's on-disk cache of compiled code in step with the code it was built from.

numba invalidates a cached function only when the function's own file changes, but
compiled code inlines code from other modules (the layout's codes, the verb and
section codes of ``schemas.records``, the evaluator tables of the audit). A cached
function built against older constants would read or certify with old values. So
each package of compiled code keeps a fingerprint of every source its compiled code
depends on next to its cache, and a mismatch empties that cache before anything is
loaded. The scanner's package (:mod:`ingest.scan`) and the audit's compiled path
(``audit.fast``) each call :func:`ensure_fresh` for their own folder.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_STAMP = "numba-sources.sha256"


def fingerprint(here: Path, compiled: Sequence[str], dependencies: Sequence[str]) -> str:
    """A hash of the ``compiled`` modules of ``here`` (glob patterns) and of the
    ``dependencies`` (paths from the repository root) they inline."""
    digest = hashlib.sha256()
    for path in sorted(p for pattern in compiled for p in here.glob(pattern)) + [
            ROOT / d for d in dependencies]:
        digest.update(path.name.encode())
        digest.update(path.read_bytes() if path.exists() else b"")
    return digest.hexdigest()


def ensure_fresh(here: Path, compiled: Sequence[str], dependencies: Sequence[str],
                 cache_dir: Path | None = None) -> bool:
    """Empty the numba cache of ``here`` if its sources changed; True if it was emptied.

    A cache moved elsewhere with ``NUMBA_CACHE_DIR`` is its owner's to manage.
    """
    if os.environ.get("NUMBA_CACHE_DIR"):
        return False
    cache_dir = cache_dir if cache_dir is not None else here / "__pycache__"
    stamp = cache_dir / _STAMP
    current = fingerprint(here, compiled, dependencies)
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
