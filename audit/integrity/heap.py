"""The C heap while the analysis runs: freed arrays kept for the next batch, not given back.

Every batch makes the same arrays again, of about the same sizes (tens of megabytes in
all). By default glibc maps each array above a threshold (128 KiB at first, then as large
as the largest freed so far) afresh and unmaps it when freed, so each batch faults its
pages in again, and the kernel zeroes each one: on the project's machine that kernel time
was about a fifth of the stage's CPU (100,000 hands: 5.3 against 2.2 system seconds in
four runs, ``benchmarks/bench_integrity.py``). :func:`kept_heap` has glibc serve arrays up to
32 MiB from its heap and keep what is freed there while the analysis runs, so a batch
reuses the last one's pages; then it gives the free pages back (``malloc_trim``) and sets
the thresholds to glibc's defaults again. The worker process keeps its heap so for its
whole life (:func:`keep_heap`); :func:`trim_heap` before forking it leaves it fewer pages
to share with the main process (a shared page is copied when either writes it).

Memory held does not grow with the store: what is kept is what one batch used. Nothing is
done where the C library is not glibc.
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterator
from contextlib import contextmanager, suppress

#: ``mallopt`` parameters of glibc, the largest mmap threshold it takes on 64 bits, and
#: both thresholds' defaults.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _MMAP_THRESHOLD_MAX = -1, -3, 32 << 20
_DEFAULT_THRESHOLD = 128 << 10
#: Free memory at the heap's top kept while the heap is kept.
_KEEP = 1 << 30


def _set(mmap_threshold: int, trim_threshold: int) -> None:
    with suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None)
        libc.mallopt(_M_MMAP_THRESHOLD, mmap_threshold)
        libc.mallopt(_M_TRIM_THRESHOLD, trim_threshold)


def trim_heap() -> None:
    """Give the heap's free pages back to the system (glibc ``malloc_trim``)."""
    with suppress(OSError, AttributeError):
        ctypes.CDLL(None).malloc_trim(0)


def keep_heap() -> None:
    """From now on, serve arrays up to 32 MiB from the heap and keep what is freed."""
    _set(_MMAP_THRESHOLD_MAX, _KEEP)


@contextmanager
def kept_heap() -> Iterator[None]:
    """:func:`keep_heap` for the block; then the free pages given back and glibc's default
    thresholds set again."""
    keep_heap()
    try:
        yield
    finally:
        _set(_DEFAULT_THRESHOLD, _DEFAULT_THRESHOLD)
        trim_heap()
