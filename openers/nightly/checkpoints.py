"""Named points in the nightly job where a test can stop it, to prove it is crash-safe.

Two environment variables, read at each checkpoint, drive it; a normal run sets
neither and pays one dictionary look-up per checkpoint:

- ``OPENERS_NIGHTLY_KILL_AT=NAME[#N]``: at the N-th time (default 1st) the job
  reaches checkpoint NAME, it sends itself SIGKILL — a real ``kill -9``, with no
  cleanup, no ``finally`` and no flush;
- ``OPENERS_NIGHTLY_PAUSE_AT=NAME`` with ``OPENERS_NIGHTLY_PAUSE_FILE=PATH``: at
  NAME the job creates PATH and waits until PATH is deleted, then goes on (a test
  holds a job inside its lock this way).
"""

from __future__ import annotations

import os
import signal
import time
from collections import Counter
from pathlib import Path

KILL_ENV = "OPENERS_NIGHTLY_KILL_AT"
PAUSE_ENV = "OPENERS_NIGHTLY_PAUSE_AT"
PAUSE_FILE_ENV = "OPENERS_NIGHTLY_PAUSE_FILE"

#: Every checkpoint the job passes, in the order of a run.
CHECKPOINTS: tuple[str, ...] = (
    "locked",          # the lock is held, the store not yet opened
    "run-started",     # the runs row is open
    "planned",         # inbox listed and hashed
    "ingest-batch",    # a batch of hands committed (passed once per batch)
    "file-loaded",     # a file fully loaded, its offset not yet recorded
    "file-recorded",   # the file's offset recorded
    "hands-queued",    # the hands to (re)audit written down
    "audit-batch",     # a batch of hands back from the audit (its pool still running)
    "hands-audited",   # the queued hands audited, the queue not yet cleared
    "finalized",       # the run closed and its work claimed
    "report-written",  # the report folder written
)  # fmt: skip

#: The stage of the run each checkpoint belongs to (a crash test kills the job in each).
STAGES: dict[str, str] = {
    "locked": "start", "run-started": "start", "planned": "plan",
    "ingest-batch": "ingest", "file-loaded": "ingest", "file-recorded": "ingest",
    "hands-queued": "audit", "audit-batch": "audit", "hands-audited": "audit",
    "finalized": "close", "report-written": "report",
}  # fmt: skip

_passes: Counter[str] = Counter()


def checkpoint(name: str) -> None:
    """Mark that the job reached ``name``; kill or pause here if the environment says so."""
    kill = os.environ.get(KILL_ENV)
    pause = os.environ.get(PAUSE_ENV)
    if not kill and not pause:
        return
    _passes[name] += 1
    if kill:
        target, _, nth = kill.partition("#")
        if target == name and _passes[name] == int(nth or 1):
            os.kill(os.getpid(), signal.SIGKILL)
    if pause == name:
        flag = Path(os.environ[PAUSE_FILE_ENV])
        flag.write_text(str(os.getpid()))
        while flag.exists():
            time.sleep(0.05)
