"""Where the audit's work runs: how many cores, a pool of forked workers, the collector,
and the units of a check shared out in tasks.

The compiled code is loaded once in the parent process; workers forked from it start
with it loaded (no thread has started in the parent, so forking is safe). Elsewhere
the platform's default start method is used.
"""

from __future__ import annotations

import ctypes
import gc
import multiprocessing
import os
import signal
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from multiprocessing.context import BaseContext
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from audit.units import Unit


def default_workers() -> int:
    """The cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


#: prctl(2) option: the signal this process gets when the thread that forked it ends.
_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """Pool initializer: the worker is killed (SIGKILL) when the process that forked it dies.

    A worker waiting for its next task never notices its parent's death: a job killed
    with ``kill -9`` mid-audit would leave its workers running for ever, holding what
    they inherited. Linux only (``PR_SET_PDEATHSIG``); elsewhere nothing is done.
    The signal follows the *thread* that started the worker, so pools are started
    from a thread that outlives them (the main thread, as every pool here is).
    """
    if not sys.platform.startswith("linux"):
        return
    parent = multiprocessing.parent_process()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        return
    if parent is not None and os.getppid() != parent.pid:
        os._exit(1)  # the parent died before the request was in place: it will never fire


def _start_worker() -> None:
    """Pool initializer: the worker dies with its parent (:func:`die_with_parent`), and
    the objects it starts with (a forked worker: all of its parent's) are left out of
    its garbage collections (``gc.freeze``): a collection that went over them would
    traverse the parent's whole heap, and write to every page of it (copied, in a fork)."""
    die_with_parent()
    gc.freeze()


def process_pool(workers: int, context: BaseContext | None = None) -> ProcessPoolExecutor:
    """A process pool whose workers die with this process (see :func:`die_with_parent`)
    and never collect what they started with (see :func:`_start_worker`)."""
    return ProcessPoolExecutor(max_workers=workers, mp_context=context,
                               initializer=_start_worker)


def pool(workers: int) -> ProcessPoolExecutor:
    """A process pool of workers forked from this process where possible (they start
    with its compiled code loaded), dying with it."""
    methods = multiprocessing.get_all_start_methods()
    return process_pool(workers, multiprocessing.get_context("fork") if "fork" in methods
                        else None)


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


#: Bytes per task: small files are checked together, a batch of rules costs the same.
TASK_BYTES = 8 << 20


def tasks_of(units: list[Unit], workers: int) -> list[list[Unit]]:
    """The units in tasks of at most about ``TASK_BYTES`` (a large file's units stay
    apart), as many as a multiple of ``workers`` so no worker is left with a last task
    alone while the others wait."""
    lengths = [unit.end - unit.start if unit.end >= 0
               else Path(unit.location).stat().st_size - unit.start for unit in units]
    rounds = -(-sum(lengths) // (TASK_BYTES * max(workers, 1)))
    target = max(sum(lengths) / max(rounds * max(workers, 1), 1), 1.0)
    tasks: list[list[Unit]] = []
    done = 0  # bytes before this unit: a unit starts a task when its middle passes a cut
    for unit, length in zip(units, lengths, strict=True):
        if not tasks or (done + length / 2) // target >= len(tasks):
            tasks.append([])
        tasks[-1].append(unit)
        done += length
    return tasks
