"""Pieces the tests share: keys per level, counts by key, capped evidence (the per-key
sums kept across batches are in :mod:`audit.integrity.checks._sums`)."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO

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


#: Keys are counted through a dense table when it has at most this many slots, or twice
#: the keys, whichever is more (else sorted, as ``np.unique`` does).
_DENSE_SLOTS = 1 << 16


def unique_inverse(keys: npt.ArrayLike) -> tuple[I64, npt.NDArray[np.intp]]:
    """``np.unique(keys, return_inverse=True)``, the same arrays, without sorting the keys
    when they are few and small.

    The keys of the tests are codes (players, dealers, strata) or :func:`pair_key` of two
    codes: both halves are small, so each key has a slot in a dense table of
    ``(high + 1) * (low + 1)`` slots, in key order, and one ``bincount`` finds the keys
    present (sorting a batch's million keys costs far more).
    """
    k = np.asarray(keys, dtype=np.int64)
    if len(k) and int(k.min()) >= 0:
        high, low = k >> 32, k & 0xFFFFFFFF
        width = int(low.max()) + 1
        slots = (int(high.max()) + 1) * width
        if slots <= max(_DENSE_SLOTS, 2 * len(k)):
            dense = high * width + low
            present = np.zeros(slots, dtype=np.bool_)  # a byte a slot, not a count's eight
            present[dense] = True
            rank = np.cumsum(present, dtype=np.intp) - 1
            found = np.flatnonzero(present)
            return (found // width << 32) | (found % width), rank[dense]
    unique, inverse = np.unique(k, return_inverse=True)
    return unique, inverse.reshape(-1)


def stable_order(index: npt.NDArray[np.intp], size: int) -> npt.NDArray[np.intp]:
    """``np.argsort(index, kind="stable")`` of indices below ``size``: the same order, as
    16-bit numbers when they fit (numpy then sorts by radix, several times faster)."""
    if size <= 1 << 16:
        return np.argsort(index.astype(np.uint16), kind="stable")
    return np.argsort(index, kind="stable")


def grouped_counts(hand_group: I64, item_hand: npt.ArrayLike, inner: I64, size: int
                   ) -> tuple[I64, F64]:
    """Counts of items by (their hand's group, inner index), as ``group * size + inner`` keys.

    Many items share few groups: the groups are found among the hands and the items are
    counted with one ``bincount``, never sorted (the card tests count millions of cards).
    """
    groups, hand_index = unique_inverse(hand_group)
    flat = hand_index[np.asarray(item_hand, dtype=np.int64)] * size + inner
    counts = np.bincount(flat, minlength=len(groups) * size)
    found = np.nonzero(counts)[0]
    return groups[found // size] * size + found % size, counts[found].astype(np.float64)


#: The card tests keep example hands from one hand in this many (their lists are samples).
EXAMPLE_EVERY = 16


#: One kept event in the evidence log: its cell key, hand row, and the note's number and code.
_EVENT = np.dtype([("key", np.int64), ("row", np.int64), ("value", np.float64),
                   ("code", np.int64)])


@dataclass
class Events:
    """Telling hands per cell key, the first :data:`EVIDENCE_CAP` of each (in reading order),
    with a number and an integer each for the note; plus how many there were in all.

    Only the per-key counts stay in memory (two numbers a key). The kept events go to a
    temporary file, a block a batch, each block sorted by key (reading order within a
    key); a key's events are found by binary search in each block of the mapped file.
    Evidence is asked for the alerted cells alone, so the run never holds every cell's
    hands, and its memory does not grow with the events.
    """

    cap: int = EVIDENCE_CAP
    _keys: I64 = field(default_factory=lambda: np.zeros(0, np.int64))  # sorted
    _totals: I64 = field(default_factory=lambda: np.zeros(0, np.int64))
    _log: IO[bytes] | None = None
    _blocks: list[tuple[int, int]] = field(default_factory=list)  # (first event, events)
    _written: int = 0

    def add(self, keys: I64, rows: I64, values: npt.ArrayLike | None = None,
            codes: npt.ArrayLike | None = None) -> None:
        """Record events (one per key); ``values`` / ``codes`` travel with them for notes."""
        if len(keys) == 0:
            return
        keys, rows = np.asarray(keys, dtype=np.int64), np.asarray(rows, dtype=np.int64)
        if (rows[1:] < rows[:-1]).any():
            # into reading order (a pair test lists a batch's events seat by seat), a
            # hand's own events in their order: the events kept are the same wherever
            # the batches are cut
            by_row = np.argsort(rows, kind="stable")
            keys, rows = keys[by_row], rows[by_row]
            values = None if values is None else np.asarray(values, np.float64)[by_row]
            codes = None if codes is None else np.asarray(codes, np.int64)[by_row]
        unique, inverse = unique_inverse(keys)
        counts = np.bincount(inverse, minlength=len(unique))
        at, known = self._find(unique)
        before = np.zeros(len(unique), dtype=np.int64)
        before[known] = self._totals[at[known]]
        room = np.maximum(self.cap - before, 0)  # the kept events of a key: min(total, cap)
        self._totals[at[known]] += counts[known]
        self._keys = np.insert(self._keys, at[~known], unique[~known])
        self._totals = np.insert(self._totals, at[~known], counts[~known])
        wanted = np.nonzero(room[inverse] > 0)[0]  # keys whose list is full need no more work
        if not len(wanted):
            return
        which = inverse[wanted]
        order = stable_order(which, len(unique))  # by key, reading order within a key
        ranked = which[order]
        rank = np.arange(len(ranked)) - np.searchsorted(ranked, ranked, side="left")
        chosen = wanted[order][rank < room[ranked]]  # sorted by key, reading order within
        block = np.empty(len(chosen), dtype=_EVENT)
        block["key"] = keys[chosen]
        block["row"] = rows[chosen]
        block["value"] = 0.0 if values is None else np.asarray(values, np.float64)[chosen]
        block["code"] = 0 if codes is None else np.asarray(codes, np.int64)[chosen]
        if self._log is None:  # open across batches until the object goes: no context manager
            self._log = tempfile.TemporaryFile(prefix="openers-evidence-")  # noqa: SIM115
        self._log.write(block.tobytes())
        self._blocks.append((self._written, len(block)))
        self._written += len(block)

    def _find(self, keys: I64) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.bool_]]:
        """Where each of the (sorted) ``keys`` is or would go in the counted keys, and
        whether it is there."""
        at = np.searchsorted(self._keys, keys)
        known = np.zeros(len(keys), dtype=np.bool_)
        inside = at < len(self._keys)
        known[inside] = self._keys[at[inside]] == keys[inside]
        return at, known

    def total(self, key: int) -> int:
        """How many events the key had (kept or not)."""
        at, known = self._find(np.array([key], dtype=np.int64))
        return int(self._totals[at[0]]) if known[0] else 0

    def of(self, key: int) -> tuple[I64, F64, I64]:
        """Rows, values and codes of the events kept for ``key``, in reading order."""
        found: list[npt.NDArray[np.void]] = []
        if self._log is not None and self._written:
            self._log.flush()
            events = np.memmap(self._log, dtype=_EVENT, mode="r", shape=(self._written,))
            for first, n in self._blocks:
                block_keys = events["key"][first:first + n]
                lo, hi = np.searchsorted(block_keys, [key, key + 1])
                if hi > lo:
                    found.append(np.array(events[first + lo:first + hi]))
            del events
        if not found:
            return np.zeros(0, np.int64), np.zeros(0), np.zeros(0, np.int64)
        kept = np.concatenate(found)
        return (kept["row"].astype(np.int64), kept["value"].astype(np.float64),
                kept["code"].astype(np.int64))

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
