"""Pick and join batches of the flat arrays of :mod:`ingest.scan.layout`.

A check batches what the scanner read with the hands the reference reader parsed
where it did not (:func:`audit.facts.layout.from_records`); :func:`take` keeps some
hands of a batch and :func:`join` puts batches one after the other, renumbering
the offsets each hand row holds (its seats, its lines, their cards).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

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
)


def _ranges(first: IntArray, count: IntArray) -> IntArray:
    """The rows of many (first, count) ranges, one after the other."""
    count = np.maximum(count, 0)
    if not len(count):
        return np.zeros(0, dtype=np.int64)
    starts = np.repeat(first - (np.cumsum(count) - count), count)
    return starts + np.arange(int(count.sum()))


def take(arrays: HandArrays, rows: IntArray) -> HandArrays:
    """The hands ``rows`` of ``arrays`` (in that order) as a batch of their own."""
    hands = arrays.hands[rows].copy()
    seats = _ranges(hands[:, H_SEAT_START], hands[:, H_SEAT_COUNT])
    events = _ranges(hands[:, H_EVENT_START], hands[:, H_EVENT_COUNT])
    lines = arrays.events[events].copy()
    # Every line's cards, then its drawn cards, in line order: copy them in that order.
    starts = np.stack((lines[:, E_CARDS_START], lines[:, E_DRAWN_START]), axis=1).ravel()
    counts = np.maximum(np.stack((lines[:, E_CARDS_COUNT], lines[:, E_DRAWN_COUNT]),
                                 axis=1), 0).ravel()
    cards = arrays.cards[_ranges(starts, counts)]
    placed = (np.cumsum(counts) - counts).reshape(-1, 2)
    lines[:, E_CARDS_START], lines[:, E_DRAWN_START] = placed[:, 0], placed[:, 1]
    hands[:, H_SEAT_START] = np.cumsum(hands[:, H_SEAT_COUNT]) - hands[:, H_SEAT_COUNT]
    hands[:, H_EVENT_START] = np.cumsum(hands[:, H_EVENT_COUNT]) - hands[:, H_EVENT_COUNT]
    return HandArrays(hands, arrays.seats[seats].copy(), lines, cards)


def join(parts: Sequence[HandArrays]) -> HandArrays:
    """The batches ``parts`` one after the other."""
    if not parts:
        return HandArrays(np.zeros((0, H_COLUMNS), dtype=np.int64),
                          np.zeros((0, S_COLUMNS), dtype=np.int64),
                          np.zeros((0, E_COLUMNS), dtype=np.int64), np.zeros(0, dtype=np.int8))
    hands, events = [], []
    seat_at = event_at = card_at = 0
    for part in parts:
        h = part.hands.copy()
        h[:, H_SEAT_START] += seat_at
        h[:, H_EVENT_START] += event_at
        e = part.events.copy()
        e[:, E_CARDS_START] += card_at
        e[:, E_DRAWN_START] += card_at
        hands.append(h)
        events.append(e)
        seat_at += len(part.seats)
        event_at += len(part.events)
        card_at += len(part.cards)
    return HandArrays(np.concatenate(hands), np.concatenate([p.seats for p in parts]),
                      np.concatenate(events), np.concatenate([p.cards for p in parts]))
