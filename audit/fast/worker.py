"""Check one work unit in a worker: scan, certify, and audit only what is not certified.

The worker scans the unit's bytes into arrays, runs the hand certifiers, and sends
every hand they do not certify through the reference reader and engine. It pairs
the unit's own deals by table and time for the J certifier, and runs the
reference J rules on the pairs it cannot certify. It returns small per-deal
arrays (table, time, where the hand is) so the main process can pair deals across
units, and results only for hands with something to report.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from audit.batch import no_cyclic_gc, process_pool
from audit.engine import AuditResult, audit_hand, audit_sequences
from audit.fast.certify_betting import certify_betting
from audit.fast.certify_cards import certify_cards
from audit.fast.certify_sequence import certify_sequence, pair_deals
from audit.fast.layout import (
    H_BYTE_END,
    H_BYTE_START,
    H_FIRST_LINE,
    H_HAND_HASH,
    H_STATUS,
    H_TABLE_HASH,
    H_TIME,
    HandArrays,
    IntArray,
    fnv1a64,
    profile_knobs,
    time_micros,
)
from audit.fast.units import Unit
from audit.profiles import Profile
from audit.registry import hand_rules, sequence_rules
from audit.replay import Replay
from ingest.chunks import Chunk
from ingest.reader import QuarantineItem, read_chunk
from ingest.scan.scanner import ScanResult, scan
from schemas.records import HandRecord

#: H_STATUS of a row the reference reader quarantined (not a deal).
UNREADABLE = -1


@dataclass(slots=True)
class UnitResult:
    """A unit's answer. Per row (one per hand chunk, file order): ``deals`` columns
    ``D_*``; results and J results keyed by row."""

    unit: Unit
    deals: IntArray
    results: dict[int, AuditResult] = field(default_factory=dict)
    problems: list[QuarantineItem] = field(default_factory=list)
    #: The unit holds no hand at all, or cannot be read: the whole file goes to the
    #: reference reader (if no other unit of it has a hand).
    empty: bool = False


D_DEAL = 0  # 1: a readable hand (a deal), 0: quarantined
D_TABLE = 1
D_TIME = 2
D_HAND = 3
D_LOCAL_PREVIOUS = 4  # row of the deal before it at its table in this unit, -1: none
D_J_DONE = 5  # 1: the J certifier passed it after D_LOCAL_PREVIOUS
D_AMBIGUOUS = 6  # an equal time at its table in this unit: pair by hand id elsewhere
D_FIRST_LINE = 7
D_BYTE_START = 8  # offsets in the file
D_BYTE_END = 9
D_FLAGS = 10  # 1: the chunk was terminated by a blank line; 2: its last line has a line end
D_COLUMNS = 11


def read_unit(unit: Unit) -> bytes | None:
    """The unit's bytes (a plain file: a .gz was decompressed when it was planned), or
    None when they cannot be read (the reference path then reports the file)."""
    try:
        with open(unit.location, "rb") as f:
            f.seek(unit.start)
            return f.read() if unit.end < 0 else f.read(unit.end - unit.start)
    except OSError:
        return None


class _Unit:
    """The state of one unit's check (records parsed on demand, by row)."""

    def __init__(self, unit: Unit, data: bytes, scanned: ScanResult, profile: Profile) -> None:
        self.unit, self.data, self.scanned, self.profile = unit, data, scanned, profile
        self.arrays: HandArrays = scanned.arrays
        self.records: dict[int, HandRecord | None] = {}
        self.replays: dict[str, Replay] = {}
        self.out = UnitResult(unit, np.zeros((len(self.arrays), D_COLUMNS), dtype=np.int64))

    def chunk(self, row: int) -> Chunk:
        return self.scanned.chunk(self.data, row, self.unit.start)

    def read(self, row: int) -> HandRecord | None:
        """The reference reader's record of ``row`` (None: quarantined, reported once)."""
        if row in self.records:
            return self.records[row]
        got = read_chunk(self.unit.path, self.chunk(row))
        if isinstance(got, QuarantineItem):
            self.out.problems.append(got)
            self.arrays.hands[row, H_STATUS] = UNREADABLE
            self.records[row] = None
            return None
        self.records[row] = got.record
        return got.record


def check_unit(unit: Unit, profile: Profile) -> UnitResult:
    """Scan, certify and (where needed) audit the hands of ``unit``."""
    data = read_unit(unit)
    if data is None:
        return UnitResult(unit, np.zeros((0, D_COLUMNS), dtype=np.int64), empty=True)
    # The reference chunker skips a BOM only at the very start of a file.
    scanned = scan(np.frombuffer(data, dtype=np.uint8), unit.first_line,
                   skip_bom=unit.start == 0)
    state = _Unit(unit, data, scanned, profile)
    if not len(state.arrays):
        state.out.empty = True
        return state.out
    _audit_hands(state)
    _audit_sequences(state)
    return state.out


def _audit_hands(state: _Unit) -> None:
    a, profile = state.arrays, state.profile
    knobs, progression = profile_knobs(profile)
    certified = (certify_betting(a.hands, a.seats, a.events, a.cards, knobs)
                 & certify_cards(a.hands, a.seats, a.events, a.cards, knobs, progression))
    rules = hand_rules(profile)
    hands, deals = a.hands, state.out.deals
    for row in np.flatnonzero(certified == 0).tolist():
        record = state.read(row)
        if record is None:
            continue
        result = audit_hand(record, profile, rules, state.replays)
        if result.findings or result.unverifiable or result.errors:
            state.out.results[row] = result
        # A row the scanner could not read gets its pairing facts from the record.
        hands[row, H_TABLE_HASH] = fnv1a64(record.table_id.encode())
        hands[row, H_TIME] = time_micros(record)
        hands[row, H_HAND_HASH] = fnv1a64(record.hand_id.encode())
    deals[:, D_DEAL] = hands[:, H_STATUS] != UNREADABLE
    deals[:, D_TABLE] = hands[:, H_TABLE_HASH]
    deals[:, D_TIME] = hands[:, H_TIME]
    deals[:, D_HAND] = hands[:, H_HAND_HASH]
    deals[:, D_FIRST_LINE] = hands[:, H_FIRST_LINE]
    deals[:, D_BYTE_START] = hands[:, H_BYTE_START] + state.unit.start
    deals[:, D_BYTE_END] = hands[:, H_BYTE_END] + state.unit.start
    deals[:, D_FLAGS] = state.scanned.terminated + 2 * state.scanned.newline


def _audit_sequences(state: _Unit) -> None:
    a, profile, deals = state.arrays, state.profile, state.out.deals
    rows = np.flatnonzero(deals[:, D_DEAL])
    deals[:, D_LOCAL_PREVIOUS] = -1
    if not sequence_rules(profile) or not len(rows):
        deals[:, D_J_DONE] = 1
        return
    order, previous, ambiguous = pair_deals(a.hands[rows])
    order, previous = rows[order], np.where(previous >= 0, rows[np.maximum(previous, 0)], -1)
    deals[order, D_AMBIGUOUS] = ambiguous
    deals[order, D_LOCAL_PREVIOUS] = previous
    knobs, progression = profile_knobs(profile)
    certified = certify_sequence(a.hands, a.seats, a.events, a.cards, knobs, progression,
                                 order, previous)
    deals[order, D_J_DONE] = certified


def reference_pairs(pairs: list[tuple[int, tuple[str, Chunk], tuple[str, Chunk] | None]],
                    profile: Profile) -> list[tuple[int, AuditResult]]:
    """The reference J rules on pairs of deals the certifiers refused (runs in a worker).

    Each pair is ``(key, (path, chunk), previous (path, chunk) or None)``; the result
    of the later deal comes back under its key.
    """
    out: list[tuple[int, AuditResult]] = []
    with no_cyclic_gc():
        for key, (path, chunk), before in pairs:
            current = read_chunk(path, chunk)
            if isinstance(current, QuarantineItem):
                continue
            previous = None if before is None else read_chunk(*before)
            pair = [current.record]
            if previous is not None and not isinstance(previous, QuarantineItem):
                pair.insert(0, previous.record)
            out.extend((key, extra) for extra in audit_sequences(pair, profile)
                       if extra.hand_id == current.record.hand_id)
    return out


def warm_up() -> None:
    """Compile (or load from the cache) every compiled function, on an empty input."""
    scanned = scan(np.zeros(0, dtype=np.uint8))
    a = scanned.arrays
    knobs, progression = profile_knobs(Profile("warm-up"))
    certify_betting(a.hands, a.seats, a.events, a.cards, knobs)
    certify_cards(a.hands, a.seats, a.events, a.cards, knobs, progression)
    empty = np.zeros(0, dtype=np.int64)
    certify_sequence(a.hands, a.seats, a.events, a.cards, knobs, progression, empty, empty)


def warm_pool(workers: int) -> ProcessPoolExecutor:
    """A process pool whose workers start with the compiled code already loaded.

    Loading the compiled certifiers costs each new interpreter about a second; forked
    workers inherit them from this process instead (no thread has started here, so
    forking is safe). Elsewhere the platform's default start method is used.
    """
    if "fork" not in multiprocessing.get_all_start_methods():
        return process_pool(workers)
    warm_up()
    return process_pool(workers, multiprocessing.get_context("fork"))
