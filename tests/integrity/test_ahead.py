"""The batches read ahead in a thread: the same items in the same order, errors raised in
the caller where they happened, one item made ahead at most, and no thread left behind."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from audit.integrity.ahead import read_ahead


class _Counted:
    """An iterator of ``n`` numbers that records how far it was read and whether it closed."""

    def __init__(self, n: int, fail_at: int | None = None) -> None:
        self.n, self.fail_at = n, fail_at
        self.made = 0
        self.closed = False
        self.threads: set[str] = set()

    def __iter__(self) -> Iterator[int]:
        return self._items()

    def _items(self) -> Iterator[int]:
        try:
            for i in range(self.n):
                self.threads.add(threading.current_thread().name)
                if i == self.fail_at:
                    raise ValueError(f"bad item {i}")
                self.made += 1
                yield i
        finally:
            self.closed = True


def _threads() -> set[str]:
    return {t.name for t in threading.enumerate()}


def test_same_items_in_order_made_in_a_thread() -> None:
    source = _Counted(50)
    assert list(read_ahead(iter(source), name="test-ahead")) == list(range(50))
    assert source.closed and source.threads == {"test-ahead"}
    assert "test-ahead" not in _threads()


def test_empty() -> None:
    assert list(read_ahead(iter(_Counted(0)))) == []


def test_an_error_is_raised_in_the_caller_after_the_items_before_it() -> None:
    source = _Counted(10, fail_at=4)
    got: list[int] = []
    with pytest.raises(ValueError, match="bad item 4"):
        for item in read_ahead(iter(source), name="test-ahead-error"):
            got.append(item)
    assert got == [0, 1, 2, 3]
    assert source.closed and "test-ahead-error" not in _threads()


def test_at_most_one_item_is_made_ahead() -> None:
    source = _Counted(10)
    ahead = read_ahead(iter(source))
    for i, item in enumerate(ahead):
        time.sleep(0.02)  # the thread has had time to make what it may
        assert item == i
        assert source.made <= i + 2  # the one held and the next, never more
    assert source.made == 10


def test_a_caller_that_stops_early_ends_the_thread_and_closes_the_iterator() -> None:
    source = _Counted(1000)
    ahead = read_ahead(iter(source), name="test-ahead-early")
    with pytest.raises(RuntimeError, match="the caller's own"):
        for item in ahead:
            if item == 3:
                raise RuntimeError("the caller's own error")
    ahead.close()
    assert source.closed and source.made <= 5
    assert "test-ahead-early" not in _threads()
