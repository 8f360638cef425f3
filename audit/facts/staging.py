"""The store's staging tables read back into the flat arrays the audit replays.

``openers audit`` and the nightly job audit hands already in the store: they read the
typed rows ingest wrote (``stg_hands``, ``stg_seats``, ``stg_actions``; see
``schemas/ddl/20_staging.sql``), never the raw text again. :func:`read_rows` reads the
rows of many hands (a batch or several) with one query per table; :func:`staging_arrays`
lays one batch of them out as :class:`~ingest.scan.layout.HandArrays` -- the same rows
:func:`audit.facts.layout.from_records` gives for the records ingest stored (tested) --
in one compiled pass over the Arrow buffers (:mod:`audit.facts.staging_kernels`: no
take, sort or column copy before), and :class:`StagingLabels` gives the words a finding
quotes (ids, players, readings).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

import duckdb
import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from audit.facts.arrays import TableMemory
from audit.facts.id_ranges import id_ranges, in_ranges
from audit.facts.layout import _reading
from audit.facts.staging_kernels import (
    fill_events,
    fill_hands,
    fill_seats,
    place,
    tally,
    vocabulary,
)
from ingest.scan.layout import (
    ACTOR_CODE,
    CARD,
    E_COLUMNS,
    E_READING,
    E_VERB,
    GAME_DRAW_HIGH,
    GAME_JACKS_OR_BETTER,
    H_COLUMNS,
    H_EVENT_COUNT,
    H_EVENT_START,
    H_SEAT_COUNT,
    H_SEAT_START,
    OPENERS_ABSENT,
    OPENERS_CODE,
    READING_NONE,
    S_COLUMNS,
    S_SEAT,
    SECTION_ORDER,
    V_SHOWS,
    HandArrays,
    IntArray,
    V,
)
from schemas.records import Game

#: A column as the compiled passes take it (see :mod:`audit.facts.staging_kernels`).
Buffers: TypeAlias = tuple[Any, ...]
_NO_BITS = np.zeros(0, dtype=np.uint8)
_NO_BITS.flags.writeable = False


_SECTIONS = vocabulary({s.value: i for i, s in enumerate(SECTION_ORDER)})
_ACTORS = vocabulary({a.value: code for a, code in ACTOR_CODE.items()})
_VERBS = vocabulary({v.value: code for v, code in V.items()})
_OPENERS = vocabulary({o.value: code for o, code in OPENERS_CODE.items()})
_CARDS = vocabulary(CARD)
_GAMES = vocabulary({Game.DRAW_HIGH.value: GAME_DRAW_HIGH})


def _array(column: pa.Array | pa.ChunkedArray) -> pa.Array:
    if isinstance(column, pa.ChunkedArray):
        return column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()
    return column


def _view(buffer: pa.Buffer | None, dtype: type[np.generic]) -> np.ndarray:
    """A read-only view of ``buffer`` (one array type for the compiled code, whatever
    the buffer's origin)."""
    size = np.dtype(dtype).itemsize
    if buffer is None or buffer.size < size:
        out = np.zeros(1, dtype=dtype)
        out.flags.writeable = False
        return out
    out = np.frombuffer(buffer, dtype=dtype, count=buffer.size // size)
    out.flags.writeable = False  # a buffer Arrow made (not mapped) would give a writable one
    return out


def _bits(array: pa.Array) -> np.ndarray:
    return _NO_BITS if not array.null_count else _view(array.buffers()[0], np.uint8)


def _fixed(column: pa.Array | pa.ChunkedArray, dtype: type[np.generic]) -> Buffers:
    """An integer column (``dtype``: its width) or, as bytes, a boolean one."""
    array = _array(column)
    return _view(array.buffers()[1], dtype), _bits(array), array.offset


def _text(column: pa.Array | pa.ChunkedArray) -> Buffers:
    array = _array(column)
    if array.type != pa.string():
        array = array.cast(pa.string())
    buffers = array.buffers()
    return _view(buffers[1], np.int32), _view(buffers[2], np.uint8), _bits(array), array.offset


def _lists(column: pa.Array | pa.ChunkedArray) -> Buffers:
    array = _array(column)
    if array.type != pa.list_(pa.string()):
        array = array.cast(pa.list_(pa.string()))
    return _view(array.buffers()[1], np.int32), _bits(array), array.offset, _text(array.values)


def _ints(column: pa.Array | pa.ChunkedArray, null: int) -> IntArray:
    return np.asarray(column.fill_null(null).to_numpy(zero_copy_only=False), dtype=np.int64)


@dataclass(slots=True)
class StagingLabels:
    """The words of stored hands, from their staging rows (by hand row), looked up only
    when a finding needs them (most hands have none)."""

    hand_ids: pa.StringArray
    table_ids: pa.StringArray
    result_lines: IntArray
    #: Each hand's first seat row and event row, and how many (the arrays' columns).
    hands: IntArray
    seat_numbers: IntArray
    #: The read's players, and the read's row of each seat row.
    players: pa.StringArray
    player_rows: IntArray
    action_index: IntArray
    shows: npt.NDArray[np.bool_]
    #: The read's readings, and the read's row of each event row.
    readings: pa.StringArray
    reading_rows: IntArray

    def hand_id(self, hand: int) -> str:
        return str(self.hand_ids[hand].as_py())

    def table_id(self, hand: int) -> str:
        return str(self.table_ids[hand].as_py())

    def player_id(self, hand: int, seat: int) -> str:
        first = int(self.hands[hand, H_SEAT_START])
        for k in range(first, first + int(self.hands[hand, H_SEAT_COUNT])):
            if int(self.seat_numbers[k]) == seat:
                return str(self.players[int(self.player_rows[k])].as_py())
        return ""

    def reading(self, hand: int, index: int) -> str | None:
        first = int(self.hands[hand, H_EVENT_START])
        for k in range(first, first + int(self.hands[hand, H_EVENT_COUNT])):
            if int(self.action_index[k]) == index:
                value = (self.readings[int(self.reading_rows[k])].as_py() if self.shows[k]
                         else None)
                return None if value is None else str(value)
        return None

    def result_line(self, hand: int) -> int:
        return int(self.result_lines[hand])


@dataclass(frozen=True, slots=True)
class StagingRows:
    """A batch of the hands of a read (:func:`read_rows`): its ordinals ``first`` to
    ``first + count``, with the read's rows (the batch's among them, in no set order)."""

    hands: pa.Table
    seats: pa.Table
    actions: pa.Table
    first: int
    count: int


def read_rows(con: duckdb.DuckDBPyConnection, hand_ids: Sequence[str] | pa.Array
              ) -> tuple[pa.Table, pa.Table, pa.Table]:
    """The hands, seats and lines of stored hands, read with one query per table, as the
    store gives them (``ordinal``: the hand's place in ``hand_ids``; the hands in that
    order, their seats and lines in the store's).

    Each query joins the staging table once (the row groups of the ids' ranges), so
    reading many small groups together costs one scan, not one per group. Every id must
    be in ``stg_hands`` (the caller checks).
    """
    ids = hand_ids if isinstance(hand_ids, pa.Array) else pa.array(list(hand_ids), pa.string())
    con.register("_audit_order", pa.table({
        "hand_id": ids, "ordinal": pa.array(np.arange(len(ids)), pa.int64())}))
    # The ids' ranges are implied by the join; said outright, DuckDB skips the row groups
    # outside them (ids that share a table's prefix are stored together), so a read costs
    # the rows it asks for, not a scan of every staging row of the store: one range per
    # run of neighbouring ids (audit.facts.id_ranges), as a night's hands are at every table.
    ranges = id_ranges(ids)
    (in_hands, params), (in_seats, _), (in_actions, _) = (
        in_ranges(f"{alias}.hand_id", ranges) for alias in "hsa")
    try:
        hands = con.sql(
            "SELECT o.ordinal, h.hand_id, h.table_id, epoch_us(h.time) AS time, h.game, "
            "h.limit_small, h.limit_big, h.ante, h.joker, h.button, h.jackpot, h.openers, "
            "h.carried, h.pot, h.rake, h.carried_out, h.first_line, h.result_line "
            f"FROM _audit_order o JOIN stg_hands h USING (hand_id) WHERE {in_hands} "
            "ORDER BY o.ordinal", params=params
        ).to_arrow_table()
        seats = con.sql(
            "SELECT o.ordinal, s.seat, s.player_id, s.stack "
            f"FROM _audit_order o JOIN stg_seats s USING (hand_id) WHERE {in_seats}",
            params=params
        ).to_arrow_table()
        actions = con.sql(
            "SELECT o.ordinal, a.action_index, a.line, a.section, a.actor, a.verb, a.seat, "
            "a.amount, a.to_amount, a.cards, a.drawn, a.all_in, a.side_pot, a.reading "
            f"FROM _audit_order o JOIN stg_actions a USING (hand_id) WHERE {in_actions}",
            params=params
        ).to_arrow_table()
    finally:
        con.unregister("_audit_order")
    return hands, seats, actions


def fetch_staging(con: duckdb.DuckDBPyConnection, groups: Sequence[Sequence[str]]
                  ) -> list[StagingRows]:
    """The staging rows of each group of stored hands, read together (:func:`read_rows`)."""
    hands, seats, actions = (t.combine_chunks() for t in read_rows(
        con, [h for group in groups for h in group]))
    starts = np.cumsum([0, *(len(g) for g in groups)]).tolist()
    return [StagingRows(hands, seats, actions, first, len(group))
            for group, first in zip(groups, starts, strict=False)]


def read_staging(con: duckdb.DuckDBPyConnection, hand_ids: Sequence[str],
                 memory: TableMemory | None = None) -> tuple[HandArrays, StagingLabels]:
    """The arrays and labels of the stored hands ``hand_ids``, in that order.

    Every id must be in ``stg_hands`` (the caller checks).
    """
    return staging_arrays(fetch_staging(con, [hand_ids])[0], memory)


def _space(memory: TableMemory | None, name: str, dtype: type[np.generic],
           shape: tuple[int, ...]) -> np.ndarray:
    return (np.empty(shape, dtype=dtype) if memory is None
            else memory.array(f"staging {name}", dtype, shape))


def _in_order(memory: TableMemory | None, name: str, rows: pa.Table, within: str,
              first: int, counts: IntArray) -> IntArray:
    """The read's row numbers of the batch's rows of ``rows``, by hand then ``within``
    (``counts``: how many each hand has, counted here)."""
    ordinal = _fixed(rows.column("ordinal"), np.int64)[0]
    size = tally(ordinal, first, counts)
    order = _space(memory, f"{name} rows", np.int64, (size,))
    place(ordinal, _fixed(rows.column(within), np.int32)[0], first, counts,
          _space(memory, "cursor", np.int64, (len(counts),)), order)
    return order


def staging_arrays(rows: StagingRows, memory: TableMemory | None = None
                   ) -> tuple[HandArrays, StagingLabels]:
    """The arrays and labels of a batch of staging rows, in the order of its ordinals (in
    ``memory`` if given: dead by the next batch, see :class:`TableMemory`)."""
    first, count, hands, actions = rows.first, rows.count, rows.hands, rows.actions
    ordinal = hands.column("ordinal")
    if count and (ordinal[first].as_py() != first
                  or ordinal[first + count - 1].as_py() != first + count - 1):
        raise ValueError("a read's hands are not one row an ordinal, in order")
    seat_counts = _space(memory, "seat counts", np.int64, (count,))
    seat_rows = _in_order(memory, "seat", rows.seats, "seat", first, seat_counts)
    event_counts = _space(memory, "event counts", np.int64, (count,))
    event_rows = _in_order(memory, "event", actions, "action_index", first, event_counts)
    h = _space(memory, "hands", np.int64, (count, H_COLUMNS))
    column = hands.column
    unknown = fill_hands(
        h, first, seat_counts, event_counts, _fixed(column("limit_small"), np.int64),
        _fixed(column("limit_big"), np.int64), _fixed(column("ante"), np.int64),
        _fixed(column("button"), np.int32), _fixed(column("jackpot"), np.int32),
        _fixed(column("carried"), np.int64), _fixed(column("pot"), np.int64),
        _fixed(column("rake"), np.int64), _fixed(column("time"), np.int64),
        _fixed(column("first_line"), np.int32), _fixed(column("joker"), np.uint8),
        _fixed(column("carried_out"), np.int64), _text(column("game")),
        _text(column("openers")), _text(column("table_id")), _text(column("hand_id")),
        _GAMES, _OPENERS, OPENERS_ABSENT, GAME_JACKS_OR_BETTER)
    s = _space(memory, "seats", np.int64, (len(seat_rows), S_COLUMNS))
    seats = rows.seats.column
    fill_seats(s, seat_rows, _fixed(seats("seat"), np.int32), _fixed(seats("stack"), np.int64),
               _text(seats("player_id")))
    e = _space(memory, "events", np.int64, (len(event_rows), E_COLUMNS))
    index = _space(memory, "action index", np.int64, (len(event_rows),))
    col = actions.column
    card_lists, drawn_lists = _lists(col("cards")), _lists(col("drawn"))
    cards = _space(memory, "cards", np.int8, (len(card_lists[3][0]) + len(drawn_lists[3][0]),))
    used, bad = fill_events(
        e, cards, index, event_rows, _fixed(col("action_index"), np.int32),
        _fixed(col("line"), np.int32), _text(col("section")), _text(col("actor")),
        _text(col("verb")), _fixed(col("seat"), np.int32), _fixed(col("amount"), np.int64),
        _fixed(col("to_amount"), np.int64), _fixed(col("all_in"), np.uint8),
        _fixed(col("side_pot"), np.int32), card_lists, drawn_lists, _SECTIONS, _ACTORS,
        _VERBS, _CARDS)
    if unknown or bad:
        raise ValueError(f"{unknown + bad} staging value(s) outside the layout's codes")
    shows = e[:, E_VERB] == V_SHOWS
    readings = _array(col("reading"))
    _read_readings(e, shows, event_rows, readings)
    hand_rows = hands.slice(first, count)
    labels = StagingLabels(
        _array(hand_rows.column("hand_id")), _array(hand_rows.column("table_id")),
        _ints(hand_rows.column("result_line"), 0), h, s[:, S_SEAT],
        _array(seats("player_id")), seat_rows, index, shows, readings, event_rows)
    return HandArrays(h, s, e, cards[:used]), labels


def _read_readings(e: IntArray, shows: npt.NDArray[np.bool_], event_rows: IntArray,
                   readings: pa.Array) -> None:
    """The category of each ``shows`` line's reading (each distinct reading named once)."""
    lines = np.flatnonzero(shows)
    if not len(lines):
        return
    encoded = pc.dictionary_encode(readings.take(pa.array(event_rows[lines])))
    named = np.array([_reading(r) for r in encoded.dictionary.to_pylist()] + [READING_NONE],
                     dtype=np.int64)
    index = encoded.indices.fill_null(len(named) - 1).to_numpy(zero_copy_only=False)
    e[lines, E_READING] = named[np.asarray(index, dtype=np.int64)]


def warm_up() -> None:
    """Compile (or load from the cache) the layout passes, on an empty read of the types
    the store's reads have."""
    hands = pa.table({
        "ordinal": pa.array([], pa.int64()), "hand_id": pa.array([], pa.string()),
        "table_id": pa.array([], pa.string()), "time": pa.array([], pa.int64()),
        "game": pa.array([], pa.string()), "limit_small": pa.array([], pa.int64()),
        "limit_big": pa.array([], pa.int64()), "ante": pa.array([], pa.int64()),
        "joker": pa.array([], pa.bool_()), "button": pa.array([], pa.int32()),
        "jackpot": pa.array([], pa.int32()), "openers": pa.array([], pa.string()),
        "carried": pa.array([], pa.int64()), "pot": pa.array([], pa.int64()),
        "rake": pa.array([], pa.int64()), "carried_out": pa.array([], pa.int64()),
        "first_line": pa.array([], pa.int32()), "result_line": pa.array([], pa.int32())})
    seats = pa.table({"ordinal": pa.array([], pa.int64()), "seat": pa.array([], pa.int32()),
                      "player_id": pa.array([], pa.string()),
                      "stack": pa.array([], pa.int64())})
    cards = pa.array([], pa.list_(pa.string()))
    actions = pa.table({
        "ordinal": pa.array([], pa.int64()), "action_index": pa.array([], pa.int32()),
        "line": pa.array([], pa.int32()), "section": pa.array([], pa.string()),
        "actor": pa.array([], pa.string()), "verb": pa.array([], pa.string()),
        "seat": pa.array([], pa.int32()), "amount": pa.array([], pa.int64()),
        "to_amount": pa.array([], pa.int64()), "cards": cards, "drawn": cards,
        "all_in": pa.array([], pa.bool_()), "side_pot": pa.array([], pa.int32()),
        "reading": pa.array([], pa.string())})
    staging_arrays(StagingRows(hands, seats, actions, 0, 0))
