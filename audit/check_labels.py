"""The words of ``openers check``'s deals, for the J findings the main process makes.

The workers send the main process each deal's facts, not its words: a J finding names
few deals. For a hand the scanner read, a worker sends where its words are in its file
(:data:`SPANS`: the hand's bytes, its ``Hand`` and ``Table`` values, as the scanner
found them); the main process reads just those bytes when a finding needs them, and
scans the hand's bytes again only for a player's id. For a hand read as a record (the
reference reader's), the worker sends its words (:class:`Named`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from audit.facts.deals import Deals
from audit.facts.labels import TextLabels
from schemas.records import HandRecord

#: Columns of the spans of a check's deals (one row per deal; -1 where the hand was
#: read as a record): its file (a position in the check's list of sources), the hand's
#: bytes there, and the bytes of its ``Hand`` and ``Table`` values.
SPAN_FILE, SPAN_START, SPAN_END, SPAN_HAND, SPAN_TABLE = 0, 1, 2, 3, 5
SPANS = 7


def no_spans(rows: int) -> npt.NDArray[np.int64]:
    """Spans of ``rows`` deals read as records (or none)."""
    return np.full((rows, SPANS), -1, dtype=np.int64)


@dataclass(slots=True)
class Named:
    """The words of a hand the main process may need for a J finding."""

    hand_id: str
    table_id: str
    players: dict[int, str]


def named(record: HandRecord) -> Named:
    """The words of a hand read as a record."""
    return Named(record.hand_id, record.table_id, {s.seat: s.player_id for s in record.seats})


class DealLabels:
    """Words of the deals of a check, found when a J finding needs them (see the module
    docstring). :meth:`close` closes the files it read."""

    def __init__(self, deals: Deals, spans: npt.NDArray[np.int64], named: dict[int, Named],
                 sources: list[str]) -> None:
        self.deals, self.spans, self.named, self.sources = deals, spans, named, sources
        self._files: dict[int, int] = {}
        self._text: dict[int, TextLabels] = {}

    def close(self) -> None:
        for fd in self._files.values():
            os.close(fd)
        self._files.clear()

    def _read(self, deal: int, start_column: int) -> bytes:
        """The bytes of deal ``deal``'s file from span column ``start_column`` to the next."""
        file = int(self.spans[deal, SPAN_FILE])
        start, end = (int(v) for v in self.spans[deal, start_column:start_column + 2])
        fd = self._files.get(file)
        if fd is None:
            fd = self._files[file] = os.open(self.sources[file], os.O_RDONLY)
        return os.pread(fd, end - start, start) if start >= 0 else b""

    def _scanned(self, deal: int) -> TextLabels:
        from ingest.scan.scanner import scan  # compiled code: loaded only when used

        if deal not in self._text:
            data = self._read(deal, SPAN_START)
            scanned = scan(np.frombuffer(data, dtype=np.uint8))
            self._text[deal] = TextLabels(data, scanned.arrays, scanned.spans, [0])
        return self._text[deal]

    def _named(self, deal: int) -> Named | None:
        return self.named.get(int(self.deals.deals["place"][deal]))

    def hand_id(self, deal: int) -> str:
        named = self._named(deal)
        return named.hand_id if named is not None else self._read(deal, SPAN_HAND).decode()

    def table_id(self, deal: int) -> str:
        named = self._named(deal)
        return named.table_id if named is not None else self._read(deal, SPAN_TABLE).decode()

    def player_id(self, deal: int, seat: int) -> str:
        named = self._named(deal)
        if named is not None:
            return named.players.get(seat, "")
        return self._scanned(deal).player_id(0, seat)
