"""Pieces the tests share: keys per level, per-key sums across batches, capped evidence."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from audit.integrity.features import BatchView, Lookup, pair_key, split_key
from audit.integrity.model import Evidence, Level, Subject

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
#: Turns an event's (value, code) into the note shown beside its hand.
NoteMaker = Callable[[float, int], str]
#: Hands listed per cell at most (the count of all of them is in the alert).
EVIDENCE_CAP = 200


def level_keys(level: Level, dealer: npt.ArrayLike, table: npt.ArrayLike,
               player: npt.ArrayLike) -> I64:
    """The key of each observation's cell at ``level`` (dealer, table or player codes)."""
    if level is Level.DEALER:
        return np.asarray(dealer, dtype=np.int64)
    if level is Level.TABLE:
        return np.asarray(table, dtype=np.int64)
    if level is Level.PLAYER:
        return np.asarray(player, dtype=np.int64)
    if level is Level.DEALER_PLAYER:
        return pair_key(np.asarray(dealer, dtype=np.int64), np.asarray(player, dtype=np.int64))
    raise ValueError(f"no single-observation key for {level}")


def complete_hands(view: BatchView, level: Level) -> tuple[I64, npt.NDArray[np.bool_]]:
    """Each hand's cell key at a dealer or table level, and whether the hand counts: every
    seat's cards known, and a dealer named when the level is the dealer."""
    b = view.batch
    owner = level_keys(level, b.h_dealer, b.h_table, 0)
    valid = view.hand_complete.copy()
    if level is Level.DEALER:
        valid &= owner != view.no_dealer
    return owner, valid


def subject_of(level: Level, key: int, lookup: Lookup) -> Subject:
    """The subject of a cell key at ``level``."""
    if level is Level.DEALER:
        return Subject(dealer_id=lookup.dealer(key))
    if level is Level.TABLE:
        return Subject(table_id=lookup.table(key))
    if level is Level.PLAYER:
        return Subject(player_id=lookup.player(key))
    if level is Level.DEALER_PLAYER:
        dealer, player = split_key(np.array([key], dtype=np.int64))
        return Subject(dealer_id=lookup.dealer(int(dealer[0])),
                       player_id=lookup.player(int(player[0])))
    a, b = split_key(np.array([key], dtype=np.int64))
    return Subject(player_id=lookup.player(int(a[0])), partner_id=lookup.player(int(b[0])))


def grouped_counts(hand_group: I64, item_hand: npt.ArrayLike, inner: I64, size: int
                   ) -> tuple[I64, F64]:
    """Counts of items by (their hand's group, inner index), as ``group * size + inner`` keys.

    Many items share few groups: the groups are found among the hands and the items are
    counted with one ``bincount``, never sorted (the card tests count millions of cards).
    """
    groups, hand_index = np.unique(hand_group, return_inverse=True)
    flat = hand_index[np.asarray(item_hand, dtype=np.int64)] * size + inner
    counts = np.bincount(flat, minlength=len(groups) * size)
    found = np.nonzero(counts)[0]
    return groups[found // size] * size + found % size, counts[found].astype(np.float64)


#: The card tests keep example hands from one hand in this many (their lists are samples).
EXAMPLE_EVERY = 16


class Sums:
    """Per-key sums of several columns, accumulated batch by batch.

    Blocks are merged whenever those added since the last merge outnumber the merged
    rows (and a floor), so memory follows the number of keys, not of batches, at a
    cost of a constant factor of extra merging.
    """

    #: Rows added before a merge is worth its cost, whatever the keys.
    MERGE_FLOOR = 200_000

    def __init__(self, columns: int) -> None:
        self._keys: list[I64] = []
        self._values: list[F64] = []
        self._columns = columns
        self._merged_rows = 0
        self._pending_rows = 0

    def add(self, keys: I64, *columns: npt.ArrayLike) -> None:
        """Add one row per key (keys may repeat)."""
        if len(keys) == 0:
            return
        unique, inverse = np.unique(keys, return_inverse=True)
        block = np.empty((len(unique), self._columns))
        for i, column in enumerate(columns):
            block[:, i] = np.bincount(inverse, weights=np.asarray(column, dtype=np.float64),
                                      minlength=len(unique))
        self._keys.append(unique)
        self._values.append(block)
        self._pending_rows += len(unique)
        if self._pending_rows > max(self.MERGE_FLOOR, self._merged_rows):
            keys_now, values_now = self.totals()
            self._keys, self._values = [keys_now], [values_now]
            self._merged_rows, self._pending_rows = len(keys_now), 0

    def totals(self) -> tuple[I64, F64]:
        """Unique keys and their summed columns (rows aligned with the keys)."""
        if not self._keys:
            return np.zeros(0, dtype=np.int64), np.zeros((0, self._columns))
        if len(self._keys) == 1:
            return self._keys[0], self._values[0]
        keys = np.concatenate(self._keys)
        values = np.concatenate(self._values)
        unique, inverse = np.unique(keys, return_inverse=True)
        out = np.empty((len(unique), self._columns))
        for i in range(self._columns):
            out[:, i] = np.bincount(inverse, weights=values[:, i], minlength=len(unique))
        return unique, out


@dataclass
class _EventBlock:
    keys: I64
    rows: I64
    values: F64
    codes: I64


@dataclass
class Events:
    """Telling hands per cell key, the first :data:`EVIDENCE_CAP` of each (in reading order),
    with a number and an integer each for the note; plus how many there were in all."""

    cap: int = EVIDENCE_CAP
    _blocks: list[_EventBlock] = field(default_factory=list)
    _kept: dict[int, int] = field(default_factory=dict)
    _total: dict[int, int] = field(default_factory=dict)

    def add(self, keys: I64, rows: I64, values: npt.ArrayLike | None = None,
            codes: npt.ArrayLike | None = None) -> None:
        """Record events (one per key); ``values`` / ``codes`` travel with them for notes."""
        if len(keys) == 0:
            return
        keys = np.asarray(keys, dtype=np.int64)
        unique, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
        room = np.array([self.cap - self._kept.get(int(k), 0) for k in unique.tolist()],
                        dtype=np.int64)
        for k, c, r in zip(unique.tolist(), counts.tolist(), room.tolist(), strict=True):
            self._total[k] = self._total.get(k, 0) + c
            self._kept[k] = self._kept.get(k, 0) + max(0, min(c, r))
        wanted = np.nonzero(room[inverse] > 0)[0]  # keys whose list is full need no more work
        if not len(wanted):
            return
        which = inverse[wanted]
        order = np.argsort(which, kind="stable")  # by key, reading order within a key
        ranked = which[order]
        rank = np.arange(len(ranked)) - np.searchsorted(ranked, ranked, side="left")
        chosen = np.sort(wanted[order][rank < room[ranked]])
        vals = np.zeros(len(keys)) if values is None else np.asarray(values, np.float64)
        cods = np.zeros(len(keys), np.int64) if codes is None else np.asarray(codes, np.int64)
        self._blocks.append(_EventBlock(keys[chosen], np.asarray(rows)[chosen].astype(np.int64),
                                        vals[chosen], cods[chosen]))

    def total(self, key: int) -> int:
        """How many events the key had (kept or not)."""
        return self._total.get(int(key), 0)

    def of(self, key: int) -> tuple[I64, F64, I64]:
        """Rows, values and codes of the events kept for ``key``, in reading order."""
        rows, values, codes = [], [], []
        for block in self._blocks:
            pick = block.keys == key
            if pick.any():
                rows.append(block.rows[pick])
                values.append(block.values[pick])
                codes.append(block.codes[pick])
        if not rows:
            return np.zeros(0, np.int64), np.zeros(0), np.zeros(0, np.int64)
        return np.concatenate(rows), np.concatenate(values), np.concatenate(codes)

    def evidence(self, key: int, note: NoteMaker | None = None) -> Evidence:
        """The kept events of ``key`` as evidence (notes from ``note(value, code)``)."""
        rows, values, codes = self.of(key)
        notes = [note(float(v), int(c)) for v, c in zip(values, codes, strict=True)] if note \
            else [""] * len(rows)
        return Evidence(rows, notes, self.total(key))


def merged_evidence(events: Events, keys: list[int], note: NoteMaker) -> Evidence:
    """The evidence of several keys, in key order, capped at the events' cap."""
    rows: list[int] = []
    notes: list[str] = []
    for key in keys:
        found = events.evidence(key, note)
        rows.extend(found.rows.tolist())
        notes.extend(found.notes)
    total = sum(events.total(key) for key in keys)
    return Evidence(np.array(rows[:events.cap], dtype=np.int64), notes[:events.cap], total)
