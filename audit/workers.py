"""Where the audit's work runs: how many cores, a pool of forked workers, the collector.

The compiled code is loaded once in the parent process; workers forked from it start
with it loaded (no thread has started in the parent, so forking is safe). Elsewhere
the platform's default start method is used.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager


def default_workers() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def pool(workers: int) -> ProcessPoolExecutor:
    """A process pool whose workers are forked from this process where possible."""
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    return ProcessPoolExecutor(max_workers=workers, mp_context=context)


@contextmanager
def no_cyclic_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector for a batch.

    Parsing and checking allocate many small acyclic objects; the collector's
    generation scans over them cost time and free nothing.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
