"""The fast path of ``audit_store``: certify stored hands, audit only the rest.

A batch of stored hands (:data:`audit.store.StoredHand`, by table and time, context
deals included) gives the same :class:`~audit.engine.AuditResult` list as the
reference path, :func:`audit.store.reference_audit_stored`. The text-form hands
are joined with blank lines into one buffer and scanned; a hand counts as scanned
only if exactly its stored text came out as one chunk the scanner read, and its
hand and table ids hash to what the store says (so the result can carry the
store's ids without parsing). Certified hands get an empty result; the others,
and every JSON Lines hand, are parsed and audited by the reference engine.

The J rules pair each deal with the one before it at its table by ``(Time, hand
id)``, exactly as :func:`audit.engine.sequence_pairs` does on the batch; a pair of
two scanned deals goes to the J certifier; the others are parsed and certified from
their records, and a pair still not certified goes to the reference J rules on that
pair alone. Line numbers never
matter here: findings come only from the reference path, with the stored
``first_line``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence

import numpy as np

from audit.engine import AuditResult, audit_hand, audit_sequences, merge
from audit.fast.certify_betting import certify_betting
from audit.fast.certify_cards import certify_cards
from audit.fast.certify_sequence import certify_sequence
from audit.fast.layout import (
    E_CARDS_START,
    E_DRAWN_START,
    H_BYTE_END,
    H_BYTE_START,
    H_EVENT_START,
    H_HAND_HASH,
    H_SEAT_START,
    H_STATUS,
    H_TABLE_HASH,
    H_TIME,
    HandArrays,
    IntArray,
    from_records,
    profile_knobs,
    time_micros,
)
from audit.profiles import Profile
from audit.registry import hand_rules, sequence_rules
from audit.replay import Replay
from ingest.scan.scanner import scan
from schemas.records import HandRecord

#: hand_id, raw_text, first_line, form, table_id, context (as audit.store.StoredHand).
Item = tuple[str, str, int, str, str | None, bool]
Reader = Callable[[Item], HandRecord | None]

_SEPARATOR = b"\n\n"
_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)


def fnv1a64_many(texts: Sequence[str]) -> IntArray:
    """:func:`audit.fast.layout.fnv1a64` of each text's UTF-8, as int64, column by column."""
    data = [t.encode() for t in texts]
    count = len(data)
    width = max((len(d) for d in data), default=0)
    lengths = np.fromiter((len(d) for d in data), dtype=np.int64, count=count)
    padded = np.frombuffer(b"".join(d.ljust(width, b"\0") for d in data),
                           dtype=np.uint8).reshape(count, width)
    h = np.full(count, _FNV_OFFSET, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(width):
            live = lengths > j
            h[live] = (h[live] ^ padded[live, j].astype(np.uint64)) * _FNV_PRIME
    return h.view(np.int64)


class _Batch:
    """One batch's scan: per item the scanned row (-1: parse it), and parsed records."""

    def __init__(self, items: Sequence[Item], profile: Profile, read: Reader) -> None:
        self.items, self.profile, self.read_item = items, profile, read
        self.records: dict[int, HandRecord | None] = {}
        self.replays: dict[str, Replay] = {}
        self.row = np.full(len(items), -1, dtype=np.int64)
        text = [i for i, item in enumerate(items) if item[3] != "jsonl"]
        encoded = [items[i][1].encode() for i in text]
        buf = _SEPARATOR.join(encoded)
        # skip_bom=False: a stored text starting with a BOM is then simply not read.
        scanned = scan(np.frombuffer(buf, dtype=np.uint8), 1, skip_bom=False)
        a = self.arrays = scanned.arrays
        lengths = np.fromiter((len(e) for e in encoded), dtype=np.int64, count=len(encoded))
        starts = np.cumsum(lengths + len(_SEPARATOR)) - lengths - len(_SEPARATOR)
        self._match(np.asarray(text, dtype=np.int64), starts, starts + lengths)
        knobs, progression = profile_knobs(profile)
        self.knobs, self.progression = knobs, progression
        certified = (certify_betting(a.hands, a.seats, a.events, a.cards, knobs)
                     & certify_cards(a.hands, a.seats, a.events, a.cards, knobs, progression))
        scanned_rows = self.row >= 0
        self.clean = np.zeros(len(items), dtype=np.bool_)
        self.clean[scanned_rows] = certified[self.row[scanned_rows]] == 1

    def _match(self, text: IntArray, starts: IntArray, ends: IntArray) -> None:
        """Scanned rows that are exactly one stored text, read, with the store's ids."""
        hands = self.arrays.hands
        if not len(hands) or not len(text):
            return
        at = np.searchsorted(starts, hands[:, H_BYTE_START], side="right") - 1
        at = np.maximum(at, 0)
        exact = ((starts[at] == hands[:, H_BYTE_START]) & (ends[at] == hands[:, H_BYTE_END])
                 & (hands[:, H_STATUS] == 0))
        rows = np.flatnonzero(exact)
        items = text[at[rows]]
        tables = [self.items[i][4] for i in items.tolist()]
        has_table = np.array([t is not None for t in tables], dtype=np.bool_)
        same = has_table.copy()
        same &= fnv1a64_many([t or "" for t in tables]) == hands[rows, H_TABLE_HASH]
        same &= fnv1a64_many([self.items[i][0] for i in items.tolist()]) == hands[
            rows, H_HAND_HASH]
        self.row[items[same]] = rows[same]

    def record(self, i: int) -> HandRecord | None:
        """The reference parser's record of item ``i`` (None: unreadable), parsed once."""
        if i not in self.records:
            self.records[i] = self.read_item(self.items[i])
        return self.records[i]

    def hand_results(self) -> list[AuditResult]:
        rules = hand_rules(self.profile)
        results: list[AuditResult] = []
        for i, item in enumerate(self.items):
            if self.clean[i]:
                if not item[5]:
                    results.append(AuditResult(item[0], item[4] or ""))
                continue
            record = self.record(i)  # context too: its J pairing needs it
            if record is not None and not item[5]:
                results.append(audit_hand(record, self.profile, rules, self.replays))
        return results

    def deals(self) -> dict[str, list[tuple[int, str, int]]] | None:
        """Readable deals by table as ``(time, hand id, item)``; None: a hand id repeats."""
        by_table: dict[str, list[tuple[int, str, int]]] = defaultdict(list)
        times = self.arrays.hands[:, H_TIME]
        seen: set[str] = set()
        for i, item in enumerate(self.items):
            row = int(self.row[i])
            if row >= 0:
                table, hand, time = item[4] or "", item[0], int(times[row])
            else:
                record = self.record(i)
                if record is None:
                    continue
                if record.time.tzinfo is None:
                    return None  # a naive time sorts apart: leave the batch to the reference
                table, hand, time = record.table_id, record.hand_id, time_micros(record)
            if hand in seen:
                return None
            seen.add(hand)
            by_table[table].append((time, hand, i))
        return by_table

    def sequence_results(self, by_table: dict[str, list[tuple[int, str, int]]]
                         ) -> list[AuditResult]:
        pairs: list[tuple[int, int]] = []  # (item before or -1, item), the item not context
        for deals in by_table.values():
            deals.sort()
            before = -1
            for _, _, i in deals:
                if not self.items[i][5]:
                    pairs.append((before, i))
                before = i
        fast = [(b, i) for b, i in pairs if self.row[i] >= 0 and (b < 0 or self.row[b] >= 0)]
        slow = [(b, i) for b, i in pairs if not (self.row[i] >= 0 and (b < 0 or self.row[b] >= 0))]
        if fast:
            order = np.array([self.row[i] for _, i in fast], dtype=np.int64)
            previous = np.array([self.row[b] if b >= 0 else -1 for b, _ in fast], dtype=np.int64)
            a = self.arrays
            certified = certify_sequence(a.hands, a.seats, a.events, a.cards, self.knobs,
                                         self.progression, order, previous)
            slow.extend(fast[k] for k in np.flatnonzero(certified == 0).tolist())
        slow.sort(key=lambda pair: pair[1])
        return [r for b, i in self._certify_parsed(slow)
                if (r := self._reference_pair(b, i)) is not None]

    def _certify_parsed(self, pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """The pairs the J certifier still refuses when unscanned deals come from records.

        A deal the scanner does not read (an all-in, a JSON Lines hand...) is parsed
        anyway; its record's rows (:func:`~audit.fast.layout.from_records`, the form the
        certifier is tested on), appended to the scanned rows, let most of its pairs
        be certified all the same.
        """
        readable = [(b, i) for b, i in pairs if self.record(i) is not None]
        if not readable:
            return []
        place: dict[int, int] = {}
        records: list[HandRecord] = []
        scanned = len(self.arrays)
        for b, i in readable:
            for item in (b, i):
                if item >= 0 and item not in place:
                    if self.row[item] >= 0:
                        place[item] = int(self.row[item])
                        continue
                    record = self.record(item)
                    assert record is not None  # pairs hold readable deals only
                    place[item] = scanned + len(records)
                    records.append(record)
        a = _append(self.arrays, from_records(records))
        order = np.array([place[i] for _, i in readable], dtype=np.int64)
        previous = np.array([place[b] if b >= 0 else -1 for b, _ in readable], dtype=np.int64)
        certified = certify_sequence(a.hands, a.seats, a.events, a.cards, self.knobs,
                                     self.progression, order, previous)
        return [readable[k] for k in np.flatnonzero(certified == 0).tolist()]

    def _reference_pair(self, before: int, i: int) -> AuditResult | None:
        current = self.record(i)
        if current is None:
            return None
        previous = self.record(before) if before >= 0 else None
        pair = [current] if previous is None else [previous, current]
        for record in pair:
            self._replay(record)
        for extra in audit_sequences(pair, self.profile, replays=self.replays):
            if extra.hand_id == current.hand_id:
                return extra
        return None


    def _replay(self, record: HandRecord) -> None:
        """Keep the replay of a deal that two J pairs read (the J rules would build it
        twice). One that fails is not kept: the J rules then meet the failure as they
        do on the reference path."""
        if record.hand_id not in self.replays:
            try:
                self.replays[record.hand_id] = Replay(record)
            except Exception:  # the J rules meet and report it themselves
                return


def _append(first: HandArrays, second: HandArrays) -> HandArrays:
    """One set of arrays: ``second``'s rows after ``first``'s, its offsets moved."""
    hands = second.hands.copy()
    hands[:, H_SEAT_START] += len(first.seats)
    hands[:, H_EVENT_START] += len(first.events)
    events = second.events.copy()
    events[:, E_CARDS_START] += len(first.cards)
    events[:, E_DRAWN_START] += len(first.cards)
    return HandArrays(np.concatenate((first.hands, hands)),
                      np.concatenate((first.seats, second.seats)),
                      np.concatenate((first.events, events)),
                      np.concatenate((first.cards, second.cards)))


def fast_audit_stored(items: Sequence[Item], profile: Profile, read: Reader,
                      reference: Callable[[Sequence[Item], Profile], list[AuditResult]]
                      ) -> list[AuditResult]:
    """``reference(items, profile)``'s results, certifying what it can.

    ``read`` is the reference parser of one stored hand (None: unreadable).
    """
    batch = _Batch(items, profile, read)
    if not sequence_rules(profile):
        return batch.hand_results()
    by_table = batch.deals()
    if by_table is None:
        return reference(items, profile)
    results = batch.hand_results()
    merge(results, batch.sequence_results(by_table))
    return results
