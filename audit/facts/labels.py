"""The words of a hand the fact tables hold only as codes or hashes, for findings.

A finding names its hand and table, and some name a player, quote a shown hand's
reading or cite the RESULT line. The fact tables carry hashes and line numbers only,
so each source of hands gives a :class:`Labels` that answers by hand row:

- :class:`RecordLabels`: parsed records (the reference path, JSON Lines hands);
- :class:`TextLabels`: the strings of the hands the scanner read, where it found them;
- :class:`StackedLabels`: several batches' labels behind one row numbering.

The store's labels come from its staging tables (:mod:`audit.store`).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from ingest.scan.layout import (
    H_EVENT_START,
    H_SEAT_COUNT,
    H_SEAT_START,
    P_HAND,
    P_RESULT_LINE,
    P_TABLE,
    S_SEAT,
    HandArrays,
    Spans,
)
from schemas.records import HandRecord


class Labels(Protocol):
    """Words of the hands of one batch, by row of its fact tables."""

    def hand_id(self, hand: int) -> str:
        """The ``Hand`` id of hand row ``hand``."""

    def table_id(self, hand: int) -> str:
        """Its ``Table`` id."""

    def player_id(self, hand: int, seat: int) -> str:
        """The player at seat number ``seat`` of hand row ``hand``."""

    def reading(self, hand: int, index: int) -> str | None:
        """The READING of the hand's line ``index`` (a ``shows`` line), if any."""

    def result_line(self, hand: int) -> int:
        """The line number of the hand's RESULT ``Pot`` line."""


class RecordLabels:
    """Labels of parsed records, in the order the facts were made from them."""

    def __init__(self, records: Sequence[HandRecord]) -> None:
        self.records = records

    def hand_id(self, hand: int) -> str:
        return self.records[hand].hand_id

    def table_id(self, hand: int) -> str:
        return self.records[hand].table_id

    def player_id(self, hand: int, seat: int) -> str:
        return self.records[hand].player_at(seat) or ""

    def reading(self, hand: int, index: int) -> str | None:
        return self.records[hand].actions[index].reading

    def result_line(self, hand: int) -> int:
        return self.records[hand].result_line


class TextLabels:
    """Labels of hands the scanner read: their strings where the scanner found them
    (its text spans), looked up only when a finding needs them (most hands have none).

    ``rows`` maps each hand row of the facts to its row in the scanned arrays.
    """

    def __init__(self, data: bytes, arrays: HandArrays, spans: Spans,
                 rows: Sequence[int]) -> None:
        self.data = data
        self.hands = arrays.hands
        self.seats = arrays.seats
        self.spans = spans
        self.rows = rows

    def _span(self, start: int, end: int) -> str:
        return self.data[start:end].decode() if start >= 0 else ""

    def _hand(self, hand: int, column: int) -> str:
        span = self.spans.hands[self.rows[hand]]
        return self._span(int(span[column]), int(span[column + 1]))

    def hand_id(self, hand: int) -> str:
        return self._hand(hand, P_HAND)

    def table_id(self, hand: int) -> str:
        return self._hand(hand, P_TABLE)

    def player_id(self, hand: int, seat: int) -> str:
        row = self.hands[self.rows[hand]]
        first, count = int(row[H_SEAT_START]), int(row[H_SEAT_COUNT])
        for k in range(first, first + count):
            if int(self.seats[k, S_SEAT]) == seat:
                return self._span(int(self.spans.seats[k, 0]), int(self.spans.seats[k, 1]))
        return ""

    def reading(self, hand: int, index: int) -> str | None:
        e = int(self.hands[self.rows[hand], H_EVENT_START]) + index
        start, end = int(self.spans.events[e, 0]), int(self.spans.events[e, 1])
        return self.data[start:end].decode() if start >= 0 else None

    def result_line(self, hand: int) -> int:
        return int(self.spans.hands[self.rows[hand], P_RESULT_LINE])


class StackedLabels:
    """Labels of batches whose fact tables were stacked, one after the other."""

    def __init__(self, parts: Sequence[tuple[int, Labels]]) -> None:
        """``parts``: (number of hands, labels) of each batch, in stacking order."""
        self.labels = [labels for _, labels in parts]
        self.starts = np.cumsum([0, *(n for n, _ in parts)]).tolist()

    def _at(self, hand: int) -> tuple[Labels, int]:
        k = bisect_right(self.starts, hand) - 1
        return self.labels[k], hand - self.starts[k]

    def hand_id(self, hand: int) -> str:
        labels, h = self._at(hand)
        return labels.hand_id(h)

    def table_id(self, hand: int) -> str:
        labels, h = self._at(hand)
        return labels.table_id(h)

    def player_id(self, hand: int, seat: int) -> str:
        labels, h = self._at(hand)
        return labels.player_id(h, seat)

    def reading(self, hand: int, index: int) -> str | None:
        labels, h = self._at(hand)
        return labels.reading(h, index)

    def result_line(self, hand: int) -> int:
        labels, h = self._at(hand)
        return labels.result_line(h)

