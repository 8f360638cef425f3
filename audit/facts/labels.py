"""The words of a hand the fact tables hold only as codes or hashes, for findings.

A finding names its hand and table, and some name a player, quote a shown hand's
reading or cite the RESULT line. The fact tables carry hashes and line numbers only,
so each source of hands gives a :class:`Labels` that answers by hand row:

- :class:`RecordLabels`: parsed records (the reference path, JSON Lines hands);
- :class:`TextLabels`: the bytes the scanner read, looked up in the hand's own text
  only when a finding needs them (most hands have none);
- :class:`StackedLabels`: several batches' labels behind one row numbering.

The store's labels come from its staging tables (:mod:`audit.store`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from ingest.scan.layout import (
    E_LINE,
    H_BYTE_END,
    H_BYTE_START,
    H_EVENT_START,
    H_FIRST_LINE,
    HandArrays,
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


_HAND = re.compile(rb"^Hand:[ ]*(\S+)", re.MULTILINE)
_TABLE = re.compile(rb"^Table:[ ]*(\S+)", re.MULTILINE)
_POT = re.compile(rb"^Pot:", re.MULTILINE)
_READING = re.compile(rb"\] \((.*)\)\r?$")


class TextLabels:
    """Labels read from the text of hands the scanner read: the buffer and its rows.

    The scanner reads only the canonical form of a line, so a ``Hand:`` line, a seat
    line or a ``shows`` line is found in the hand's own bytes exactly as written.
    """

    def __init__(self, data: bytes, arrays: HandArrays) -> None:
        self.data = data
        self.hands = arrays.hands
        self.events = arrays.events

    def _text(self, hand: int) -> bytes:
        row = self.hands[hand]
        return self.data[int(row[H_BYTE_START]):int(row[H_BYTE_END])]

    def _line(self, hand: int, line: int) -> bytes:
        lines = self._text(hand).split(b"\n")
        return lines[line - int(self.hands[hand, H_FIRST_LINE])]

    @staticmethod
    def _found(pattern: re.Pattern[bytes], text: bytes) -> str:
        m = pattern.search(text)
        return m.group(1).decode() if m else ""

    def hand_id(self, hand: int) -> str:
        return self._found(_HAND, self._text(hand))

    def table_id(self, hand: int) -> str:
        return self._found(_TABLE, self._text(hand))

    def player_id(self, hand: int, seat: int) -> str:
        pattern = re.compile(rb"^Seat %d:[ ]*(\S+) \(" % seat, re.MULTILINE)
        return self._found(pattern, self._text(hand))

    def reading(self, hand: int, index: int) -> str | None:
        line = int(self.events[int(self.hands[hand, H_EVENT_START]) + index, E_LINE])
        m = _READING.search(self._line(hand, line))
        return m.group(1).decode() if m else None

    def result_line(self, hand: int) -> int:
        text = self._text(hand)
        m = _POT.search(text)
        first = int(self.hands[hand, H_FIRST_LINE])
        return first + text.count(b"\n", 0, m.start()) if m else 0


class StackedLabels:
    """Labels of batches whose fact tables were stacked, one after the other."""

    def __init__(self, parts: Sequence[tuple[int, Labels]]) -> None:
        """``parts``: (number of hands, labels) of each batch, in stacking order."""
        self.labels = [labels for _, labels in parts]
        self.starts = np.cumsum([0, *(n for n, _ in parts)])

    def _at(self, hand: int) -> tuple[Labels, int]:
        k = int(np.searchsorted(self.starts, hand, side="right")) - 1
        return self.labels[k], hand - int(self.starts[k])

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

