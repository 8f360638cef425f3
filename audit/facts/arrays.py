"""Pick and join batches of the flat arrays of :mod:`ingest.scan.layout`.

A check batches what the scanner read with the hands the reference reader parsed
where it did not (:func:`audit.facts.layout.from_records`); :func:`take` keeps some
hands of a batch and :func:`join` puts batches one after the other, renumbering
the offsets each hand row holds (its seats, its lines, their cards).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from audit.facts.tables import Table, new_table
from ingest.scan.layout import (
    E_CARDS_COUNT,
    E_CARDS_START,
    E_COLUMNS,
    E_DRAWN_COUNT,
    E_DRAWN_START,
    H_COLUMNS,
    H_EVENT_COUNT,
    H_EVENT_START,
    H_SEAT_COUNT,
    H_SEAT_START,
    S_COLUMNS,
    HandArrays,
    IntArray,
    ranges,
)

G = TypeVar("G", bound=np.generic)


class TableMemory:
    """Memory for the arrays of one batch at a time, kept from batch to batch.

    Fresh memory costs a page fault per page at its first write, and a batch's joined
    arrays and fact tables are ~10 KB a hand: in a virtual machine that first touch cost
    as much as the replay itself. A worker that checks batch after batch passes one
    ``TableMemory`` to :func:`join` and :func:`audit.facts.replay.replay_facts`; each
    call then overwrites the previous call's arrays of the same name, which must be dead
    by then (nothing may keep them past the batch). Each user names its arrays apart
    (``joined ...``, the fact tables' names).
    """

    def __init__(self) -> None:
        self._memory: dict[str, npt.NDArray[np.uint8]] = {}

    def _bytes(self, name: str, size: int) -> npt.NDArray[np.uint8]:
        memory = self._memory.get(name)
        if memory is None or len(memory) < size:
            memory = np.empty(size + size // 4 + 64, dtype=np.uint8)
            self._memory[name] = memory
        return memory[:size]

    def array(self, name: str, dtype: type[G], shape: tuple[int, ...]) -> npt.NDArray[G]:
        """An uninitialised array of ``shape`` in memory kept for ``name``."""
        size = int(np.prod(shape)) * np.dtype(dtype).itemsize
        return self._bytes(name, size).view(dtype).reshape(shape)

    def allocator(self, prefix: str) -> Callable[[str, type[G], tuple[int, ...]],
                                                 npt.NDArray[G]]:
        """:meth:`array` under names that start with ``prefix`` (what the scanner's
        ``allocate`` takes: the rows of one scanned unit of a batch, apart from the
        others)."""

        def allocate(name: str, dtype: type[G], shape: tuple[int, ...]) -> npt.NDArray[G]:
            return self.array(f"{prefix} {name}", dtype, shape)

        return allocate

    def table(self, name: str, dtype: np.dtype, rows: int) -> Table:
        """``rows`` fresh rows (as :func:`new_table` gives them) in memory kept for ``name``."""
        rows_bytes = self._bytes(name, rows * dtype.itemsize).reshape(rows, dtype.itemsize)
        rows_bytes[:] = new_table(dtype, 1).view(np.uint8)  # one pass, zeros and "none"s
        return rows_bytes.reshape(-1).view(dtype)


_MEMORY: list[TableMemory] = []


def process_memory() -> TableMemory:
    """This process's memory for the arrays and fact tables of its batches (a worker's:
    ``openers check``'s and the store audit's), one batch at a time: each batch must be
    dead before the next is made, which then reuses the memory (fresh memory costs a page
    fault per page)."""
    if not _MEMORY:
        _MEMORY.append(TableMemory())
    return _MEMORY[0]


def take(arrays: HandArrays, rows: IntArray) -> HandArrays:
    """The hands ``rows`` of ``arrays`` (in that order) as a batch of their own.

    When ``rows`` are increasing and hold every seat and line row of ``arrays`` (the
    hands a scan read: the others have no rows), the seat, line and card arrays are
    shared as they are and only the hand rows are picked: their offsets stay right.
    """
    rows = np.asarray(rows, dtype=np.int64)
    if _keeps_every_row(arrays, rows):
        return HandArrays(arrays.hands[rows], arrays.seats, arrays.events, arrays.cards)
    hands = arrays.hands[rows].copy()
    seats = ranges(hands[:, H_SEAT_START], hands[:, H_SEAT_COUNT])
    events = ranges(hands[:, H_EVENT_START], hands[:, H_EVENT_COUNT])
    lines = arrays.events[events].copy()
    # Every line's cards, then its drawn cards, in line order: copy them in that order.
    starts = np.stack((lines[:, E_CARDS_START], lines[:, E_DRAWN_START]), axis=1).ravel()
    counts = np.maximum(np.stack((lines[:, E_CARDS_COUNT], lines[:, E_DRAWN_COUNT]),
                                 axis=1), 0).ravel()
    cards = arrays.cards[ranges(starts, counts)]
    placed = (np.cumsum(counts) - counts).reshape(-1, 2)
    lines[:, E_CARDS_START], lines[:, E_DRAWN_START] = placed[:, 0], placed[:, 1]
    hands[:, H_SEAT_START] = np.cumsum(hands[:, H_SEAT_COUNT]) - hands[:, H_SEAT_COUNT]
    hands[:, H_EVENT_START] = np.cumsum(hands[:, H_EVENT_COUNT]) - hands[:, H_EVENT_COUNT]
    return HandArrays(hands, arrays.seats[seats].copy(), lines, cards)


def _keeps_every_row(arrays: HandArrays, rows: IntArray) -> bool:
    """Whether the hands ``rows`` (increasing, in place) own every seat and line row."""
    if len(rows) > 1 and not bool((rows[1:] > rows[:-1]).all()):
        return False
    hands = arrays.hands[rows]
    return (int(hands[:, H_SEAT_COUNT].sum()) == len(arrays.seats)
            and int(hands[:, H_EVENT_COUNT].sum()) == len(arrays.events)
            and _contiguous(hands[:, H_SEAT_START], hands[:, H_SEAT_COUNT])
            and _contiguous(hands[:, H_EVENT_START], hands[:, H_EVENT_COUNT]))


def _contiguous(starts: IntArray, counts: IntArray) -> bool:
    """Whether the ranges follow one another from 0, in order."""
    return bool((starts == np.cumsum(counts) - counts).all())


def join(parts: Sequence[HandArrays], memory: TableMemory | None = None) -> HandArrays:
    """The batches ``parts`` one after the other (a lone non-empty batch as it is), in
    ``memory`` if given (see :class:`TableMemory`)."""
    parts = [p for p in parts if len(p) or len(p.events) or len(p.seats) or len(p.cards)]
    if len(parts) == 1:
        return parts[0]
    if not parts:
        return HandArrays(np.zeros((0, H_COLUMNS), dtype=np.int64),
                          np.zeros((0, S_COLUMNS), dtype=np.int64),
                          np.zeros((0, E_COLUMNS), dtype=np.int64), np.zeros(0, dtype=np.int8))
    def joined(name: str, arrays: list[npt.NDArray[G]]) -> npt.NDArray[G]:
        if memory is None:
            return np.concatenate(arrays)
        shape = (sum(len(a) for a in arrays), *arrays[0].shape[1:])
        return np.concatenate(arrays, out=memory.array(name, arrays[0].dtype.type, shape))

    hands = joined("joined hands", [p.hands for p in parts])
    events = joined("joined events", [p.events for p in parts])
    # Renumber each part's offsets in place, in the one copy made above.
    hand_at = event_at = seat_at = card_at = 0
    for part in parts:
        h = hands[hand_at:hand_at + len(part.hands)]
        h[:, H_SEAT_START] += seat_at
        h[:, H_EVENT_START] += event_at
        e = events[event_at:event_at + len(part.events)]
        e[:, E_CARDS_START] += card_at
        e[:, E_DRAWN_START] += card_at
        hand_at += len(part.hands)
        seat_at += len(part.seats)
        event_at += len(part.events)
        card_at += len(part.cards)
    return HandArrays(hands, joined("joined seats", [p.seats for p in parts]), events,
                      joined("joined cards", [p.cards for p in parts]))
