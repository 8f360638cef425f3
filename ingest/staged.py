"""The readable hands of a batch, column-wise: their raw rows and their staging rows.

:class:`HandRows` is what a batch of read hands becomes before it is stored: one
``raw_hands`` row per hand (in reading order) and its ``stg_hands``, ``stg_seats`` and
``stg_actions`` rows, each tagged with its hand's row (``_hand``) so a batch can be
cut and joined without touching a Python object per hand.

The columns that repeat a few texts (``section``, ``actor``, ``verb``) or their hand's id
(``hand_id`` of seats and actions) are held as Arrow dictionaries while in flight
(:data:`CODED`): a code per row instead of a copy of its text, written by DuckDB as the
same VARCHAR values.

They are built two ways, which must give equal rows for any hand both can read:

- :func:`scanned_rows` straight from the compiled scanner's arrays and text spans,
  for the hands it reads (the ordinary ones): all column operations, no record;
- :func:`parsed_rows` from the reference parser's records, for every other hand and
  for the JSON Lines form.

``tests/ingest/test_staged.py`` proves the equality on generated rooms, every
fixture and mutated hands.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from ingest.frames import RAW_HANDS, STG_ACTIONS, STG_HANDS, STG_SEATS, hand_tables, raw_table
from ingest.reader import ParsedHand
from ingest.scan.layout import (
    ACTOR_CODE,
    E_ACTOR,
    E_ALL_IN,
    E_AMOUNT,
    E_CARDS_COUNT,
    E_CARDS_START,
    E_DRAWN_COUNT,
    E_DRAWN_START,
    E_LINE,
    E_SEAT,
    E_SECTION,
    E_SIDE_POT,
    E_TO_AMOUNT,
    E_VERB,
    GAME_DRAW_HIGH,
    GAME_JACKS_OR_BETTER,
    H_ANTE,
    H_BIG,
    H_BUTTON,
    H_BYTE_END,
    H_BYTE_START,
    H_CARRIED,
    H_CARRIED_OUT,
    H_EVENT_COUNT,
    H_EVENT_START,
    H_FIRST_LINE,
    H_GAME,
    H_JACKPOT,
    H_JOKER,
    H_OPENERS,
    H_POT,
    H_RAKE,
    H_SEAT_COUNT,
    H_SEAT_START,
    H_SMALL,
    H_TIME,
    OPENERS_CODE,
    P_DEALER,
    P_HAND,
    P_OFFSET_MINUTES,
    P_RESULT_LINE,
    P_ROOM,
    P_TABLE,
    S_SEAT,
    S_STACK,
    V_NOTE,
    VERBS,
    ranges,
)
from ingest.scan.scanner import ScanResult
from ingest.scan.text import card_lists, gather
from schemas.records import CARD_CODES, SECTION_ORDER, Game

__all__ = ["CODED", "HAND", "HandRows", "parsed_rows", "scanned_rows"]

IntArray = npt.NDArray[np.int64]
#: The column of every staging table that names its hand's raw row (dropped on insert).
HAND = "_hand"
_INT = pa.int32()
_CENTS = pa.int64()

_CARDS = pa.array(CARD_CODES, pa.string())
_SECTIONS = pa.array([s.value for s in SECTION_ORDER], pa.string())
_ACTORS = pa.array([a.value for a, _ in sorted(ACTOR_CODE.items(), key=lambda kv: kv[1])])
_VERBS = pa.array([v.value for v in VERBS], pa.string())
_GAMES = pa.array([Game.JACKS_OR_BETTER.value, Game.DRAW_HIGH.value], pa.string())
assert (GAME_JACKS_OR_BETTER, GAME_DRAW_HIGH) == (0, 1)
# Openers codes (-1 absent, 0 ANY, 9..12 JJ..AA) shifted by one, to names (null: absent).
_OPENERS: list[str | None] = [None] * 14
for _openers, _code in OPENERS_CODE.items():
    _OPENERS[_code + 1] = _openers.value
_OPENERS_NAMES = pa.array(_OPENERS, pa.string())

#: The columns of each staging table held as dictionaries in flight (see the module
#: docstring): codes into a few names, or each row's hand (its ``_hand``) into the ids.
CODED = {"stg_seats": ("hand_id",), "stg_actions": ("hand_id", "section", "actor", "verb")}
_CODE = pa.int32()  # ``dictionary_encode`` gives these, so both builders' types agree
_CODED_TEXT = pa.dictionary(_CODE, pa.string())


@functools.lru_cache(maxsize=16)
def _in_flight(name: str, schema: pa.Schema) -> pa.Schema:
    """A staging table's schema as :class:`HandRows` holds it: its coded columns as
    dictionaries, and ``_hand``."""
    coded = CODED.get(name, ())
    return pa.schema([f.with_type(_CODED_TEXT) if f.name in coded else f for f in schema]
                     ).append(pa.field(HAND, _INT))


@functools.lru_cache(maxsize=16)
def _empty(schema: pa.Schema) -> pa.Table:
    """A table of no row (Arrow tables are immutable: one per schema; making one costs
    about a millisecond)."""
    return schema.empty_table()


def _coded(codes: npt.NDArray[np.integer], names: pa.Array) -> pa.DictionaryArray:
    """The texts ``names[codes]`` as a dictionary column (no text copied)."""
    return pa.DictionaryArray.from_arrays(
        pa.array(np.asarray(codes, dtype=np.int32), _CODE), names)


@dataclass
class HandRows:
    """Hands as rows: ``raw`` (``raw_hands`` columns, one row per hand, in reading
    order) and ``staging`` (``stg_hands``, ``stg_seats``, ``stg_actions``, each with a
    ``_hand`` column: the row of its hand in ``raw``)."""

    raw: pa.Table
    staging: dict[str, pa.Table]

    def __len__(self) -> int:
        return int(self.raw.num_rows)

    @staticmethod
    def empty() -> HandRows:
        """No hand."""
        return HandRows(_empty(RAW_HANDS), {
            name: _empty(_in_flight(name, schema)) for name, schema in _STAGING.items()})

    def take(self, rows: IntArray) -> HandRows:
        """The hands at ``rows`` (increasing), renumbered from 0."""
        rows = np.asarray(rows, dtype=np.int64)
        if len(rows) == len(self) and (not len(rows) or rows[-1] == len(rows) - 1):
            return self  # every hand, in order
        if len(rows) and rows[-1] - rows[0] == len(rows) - 1:
            return self._slice(int(rows[0]), len(rows))
        renumber = np.full(len(self), -1, dtype=np.int32)
        renumber[rows] = np.arange(len(rows), dtype=np.int32)
        staging = {}
        for name, table in self.staging.items():
            new = renumber[table.column(HAND).to_numpy()]
            keep = np.flatnonzero(new >= 0)
            staging[name] = table.take(keep).set_column(
                table.schema.get_field_index(HAND), HAND, pa.array(new[keep], _INT))
        return HandRows(self.raw.take(rows), staging)

    def _slice(self, start: int, count: int) -> HandRows:
        """Hands ``start`` .. ``start + count`` (a cheap view: rows are in hand order)."""
        staging = {}
        for name, table in self.staging.items():
            own = table.column(HAND).to_numpy()
            lo, hi = np.searchsorted(own, [start, start + count])
            part = table.slice(int(lo), int(hi - lo))
            staging[name] = part.set_column(part.schema.get_field_index(HAND), HAND,
                                            pa.array(own[lo:hi] - np.int32(start), _INT))
        return HandRows(self.raw.slice(start, count), staging)

    @staticmethod
    def concat(parts: Sequence[HandRows]) -> HandRows:
        """The hands of ``parts``, in order."""
        parts = [p for p in parts if len(p)]
        if not parts:
            return HandRows.empty()
        if len(parts) == 1:
            return parts[0]
        starts = np.cumsum([0, *(len(p) for p in parts)])
        staging = {}
        for name in _STAGING:
            tables = []
            for start, part in zip(starts, parts, strict=False):
                table = part.staging[name]
                shifted = table.column(HAND).to_numpy() + np.int32(start)
                tables.append(table.set_column(table.schema.get_field_index(HAND), HAND,
                                               pa.array(shifted, _INT)))
            staging[name] = pa.concat_tables(tables)
        return HandRows(pa.concat_tables([p.raw for p in parts]), staging)

    def tables(self) -> dict[str, pa.Table]:
        """The staging tables as the store takes them (without ``_hand``)."""
        return {name: table.drop_columns([HAND]) for name, table in self.staging.items()}


_STAGING = {"stg_hands": STG_HANDS, "stg_seats": STG_SEATS, "stg_actions": STG_ACTIONS}


def parsed_rows(hands: Sequence[ParsedHand]) -> HandRows:
    """The rows of hands read by the reference parser (or from JSON Lines)."""
    if not hands:
        return HandRows.empty()
    tables = hand_tables(hands)
    seats = np.repeat(np.arange(len(hands), dtype=np.int32),
                      [len(h.record.seats) for h in hands])
    actions = np.repeat(np.arange(len(hands), dtype=np.int32),
                        [len(h.record.actions) for h in hands])
    own = {"stg_hands": np.arange(len(hands), dtype=np.int32), "stg_seats": seats,
           "stg_actions": actions}
    raw = raw_table(hands)
    staging = {}
    for name, table in tables.items():
        for column in CODED.get(name, ()):
            at = table.schema.get_field_index(column)
            coded = (_coded(own[name], raw.column("hand_id").combine_chunks())
                     if column == "hand_id" else pc.dictionary_encode(table.column(column)))
            table = table.set_column(at, column, coded)
        staging[name] = table.append_column(HAND, pa.array(own[name], _INT))
    return HandRows(raw, staging)


def _ints(values: IntArray, kind: pa.DataType, null: int | None = None) -> pa.Array:
    """An Arrow integer column straight from ``values`` (null where it equals ``null``)."""
    data = np.ascontiguousarray(values, dtype=np.int64 if kind == _CENTS else np.int32)
    bitmap, nulls = None, 0
    if null is not None:
        valid = data != null
        nulls = len(data) - int(np.count_nonzero(valid))
        if nulls:
            bitmap = pa.py_buffer(np.packbits(valid, bitorder="little"))
    return pa.Array.from_buffers(kind, len(data), [bitmap, pa.py_buffer(data)],
                                 null_count=nulls)


def _bools(values: IntArray) -> pa.Array:
    bits = np.packbits(np.asarray(values) != 0, bitorder="little")
    return pa.Array.from_buffers(pa.bool_(), len(values), [None, pa.py_buffer(bits)])


#: The two bytes of each card code's name, for the compiled card lists.
_CARD_NAMES = np.frombuffer("".join(CARD_CODES).encode(), dtype=np.uint8).reshape(-1, 2).copy()


def _sha256s(text: pa.StringArray) -> pa.Array:
    """The SHA-256 hex digest of each string's UTF-8."""
    offsets = np.frombuffer(text.buffers()[1], dtype=np.int32)[text.offset:][:len(text) + 1]
    data = memoryview(text.buffers()[2])
    sha256 = hashlib.sha256
    # Python ints from one ``tolist``: indexing a NumPy array per hand costs as much as a hash.
    bounds = offsets.tolist()
    return pa.array([sha256(data[start:end]).hexdigest()
                     for start, end in itertools.pairwise(bounds)], pa.string())


def scanned_rows(buf: npt.NDArray[np.uint8], result: ScanResult, rows: IntArray, file: str,
                 offset: int = 0) -> HandRows:
    """The rows of the hands at ``rows`` of ``result`` (each read by the scanner), whose
    buffer ``buf`` starts at ``offset`` in the file ``file``."""
    if not len(rows):
        return HandRows.empty()
    a, spans = result.arrays, result.spans
    hands, text = a.hands[rows], spans.hands[rows]
    n = len(rows)
    raw_text = gather(buf, hands[:, H_BYTE_START], hands[:, H_BYTE_END], drop_cr=True)
    hand_id = gather(buf, text[:, P_HAND], text[:, P_HAND + 1])
    sha = _sha256s(raw_text)
    first_line = _ints(hands[:, H_FIRST_LINE], _INT)
    files = pa.array([file] * n, pa.string())
    raw = pa.table({
        "hand_id": hand_id, "sha256": sha, "source_file": files, "first_line": first_line,
        "end_offset": pa.array(result.end_offset[rows] + offset, pa.int64()),
        "form": pa.array(["text"] * n, pa.string()), "raw_text": raw_text,
    }, schema=RAW_HANDS)

    seat_rows = ranges(hands[:, H_SEAT_START], hands[:, H_SEAT_COUNT])
    seat_hand = np.repeat(np.arange(n, dtype=np.int32), hands[:, H_SEAT_COUNT])
    # Only read hands have seat and event rows, in order: every read hand's rows are
    # all of them, with no copy.
    every = len(seat_rows) == len(a.seats)
    seats = a.seats if every else a.seats[seat_rows]
    player = spans.seats if every else spans.seats[seat_rows]
    stg_seats = pa.table({
        "hand_id": _coded(seat_hand, hand_id), "seat": _ints(seats[:, S_SEAT], _INT),
        "player_id": gather(buf, player[:, 0], player[:, 1]),
        "stack": _ints(seats[:, S_STACK], _CENTS), HAND: pa.array(seat_hand, _INT),
    })

    counts = hands[:, H_EVENT_COUNT]
    event_rows = ranges(hands[:, H_EVENT_START], counts)
    event_hand = np.repeat(np.arange(n, dtype=np.int32), counts)
    every = len(event_rows) == len(a.events)
    events = a.events if every else a.events[event_rows]
    text_span = spans.events if every else spans.events[event_rows]
    # An event's text span is its showdown reading, or a floor note's text.
    is_note = events[:, E_VERB] == V_NOTE
    reading = np.where(is_note[:, None], -1, text_span) if is_note.any() else text_span
    index = np.arange(len(event_rows)) - np.repeat(np.cumsum(counts) - counts, counts)
    stg_actions = pa.table({
        "hand_id": _coded(event_hand, hand_id),
        "action_index": _ints(index, _INT), "line": _ints(events[:, E_LINE], _INT),
        "section": _coded(events[:, E_SECTION], _SECTIONS),
        "actor": _coded(events[:, E_ACTOR], _ACTORS),
        "verb": _coded(events[:, E_VERB], _VERBS),
        "seat": _ints(events[:, E_SEAT], _INT, 0),
        "amount": _ints(events[:, E_AMOUNT], _CENTS, -1),
        "to_amount": _ints(events[:, E_TO_AMOUNT], _CENTS, -1),
        "cards": card_lists(a.cards, events[:, E_CARDS_START], events[:, E_CARDS_COUNT],
                            _CARD_NAMES),
        "drawn": card_lists(a.cards, events[:, E_DRAWN_START], events[:, E_DRAWN_COUNT],
                            _CARD_NAMES),
        "all_in": _bools(events[:, E_ALL_IN]),
        "side_pot": _ints(events[:, E_SIDE_POT], _INT, 0),
        "reading": gather(buf, reading[:, 0], reading[:, 1]),
        "note": (gather(buf, np.where(is_note, text_span[:, 0], -1), text_span[:, 1])
                 if is_note.any() else pa.nulls(len(event_rows), pa.string())),
        HAND: pa.array(event_hand, _INT),
    })

    stg_hands = pa.table({
        "hand_id": hand_id, "table_id": gather(buf, text[:, P_TABLE], text[:, P_TABLE + 1]),
        "time": pa.array(hands[:, H_TIME], pa.timestamp("us", tz="UTC")),
        "utc_offset_minutes": _ints(text[:, P_OFFSET_MINUTES], _INT),
        "room": gather(buf, text[:, P_ROOM], text[:, P_ROOM + 1]),
        "dealer_id": gather(buf, text[:, P_DEALER], text[:, P_DEALER + 1]),
        "game": _GAMES.take(pa.array(hands[:, H_GAME])),
        "limit_small": _ints(hands[:, H_SMALL], _CENTS),
        "limit_big": _ints(hands[:, H_BIG], _CENTS), "ante": _ints(hands[:, H_ANTE], _CENTS),
        "joker": _bools(hands[:, H_JOKER]), "button": _ints(hands[:, H_BUTTON], _INT),
        "jackpot": _ints(hands[:, H_JACKPOT], _INT),
        "openers": _OPENERS_NAMES.take(pa.array(hands[:, H_OPENERS] + 1)),
        "carried": _ints(hands[:, H_CARRIED], _CENTS), "pot": _ints(hands[:, H_POT], _CENTS),
        "rake": _ints(hands[:, H_RAKE], _CENTS),
        "carried_out": _ints(hands[:, H_CARRIED_OUT], _CENTS, -1),
        "n_seats": _ints(hands[:, H_SEAT_COUNT], _INT),
        "n_actions": _ints(counts, _INT), "first_line": first_line,
        "result_line": _ints(text[:, P_RESULT_LINE], _INT), "source_file": files,
        "sha256": sha, HAND: pa.array(np.arange(n, dtype=np.int32)),
    })
    staging = {"stg_hands": stg_hands, "stg_seats": stg_seats, "stg_actions": stg_actions}
    for name, schema in _STAGING.items():
        flight = _in_flight(name, schema)
        if not staging[name].schema.equals(flight):  # built as the store's types: no copy
            staging[name] = staging[name].cast(flight)
    return HandRows(raw, staging)
