"""The next batch read in a thread while the caller works on the one before.

The analysis alternates between reading a batch (DuckDB's queries, which release the
interpreter, and turning their columns into arrays) and working on it (the compiled
replay, which releases it too, then the tests). Done one after the other, one core idles
whenever the worker process (:mod:`audit.integrity.parallel`) waits for its next batch;
:func:`read_ahead` keeps one batch in the making while the caller holds the last one, so
the reading and the work overlap. The items, and their order, are those of the iterator.

At most one item is made ahead: the thread waits until the caller takes an item before
it makes the next one, so memory holds one batch more than without it. Whatever the
iterator raises is raised in the caller, at the item where it happened; when the caller
stops early (an error of its own, or it has enough), the thread finishes the item it is
making, closes the iterator (its ``finally`` blocks run in the thread) and ends before
:func:`read_ahead` returns.
"""

from __future__ import annotations

import threading
from collections.abc import Generator, Iterator
from typing import TypeVar

T = TypeVar("T")


class _Handoff:
    """One item at a time from the thread to the caller."""

    def __init__(self) -> None:
        self.ready = threading.Semaphore(0)  # an item (or the end) is in `item`
        self.wanted = threading.Semaphore(1)  # the caller took the last one: make the next
        self.stop = threading.Event()
        self.item: object = None
        self.done = False
        self.error: BaseException | None = None


def _make(items: Iterator[T], box: _Handoff) -> None:
    try:
        while True:
            box.wanted.acquire()
            if box.stop.is_set():
                return
            try:
                box.item = next(items)
            except StopIteration:
                box.done = True
                return
            box.ready.release()
    except BaseException as exc:  # raised in the caller
        box.error = exc
        box.done = True
    finally:
        close = getattr(items, "close", None)
        if close is not None:
            close()
        box.ready.release()  # the end (a stopped caller no longer waits for it)


def read_ahead(items: Iterator[T], name: str = "openers-read-ahead"
               ) -> Generator[T, None, None]:
    """``items``, each made in a thread while the caller works on the one before."""
    box = _Handoff()
    thread = threading.Thread(target=_make, args=(items, box), name=name, daemon=True)
    thread.start()
    try:
        while True:
            box.ready.acquire()
            if box.done:
                if box.error is not None:
                    raise box.error
                return
            item: T = box.item  # type: ignore[assignment]  # set by the thread
            box.item = None
            box.wanted.release()
            yield item
            del item
    finally:
        box.stop.set()
        box.wanted.release()  # wakes a thread waiting to make the next one
        thread.join()
