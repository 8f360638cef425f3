"""The store's staging tables read back into the flat arrays the audit replays.

``openers audit`` and the nightly job audit hands already in the store: they read the
typed rows ingest wrote (``stg_hands``, ``stg_seats``, ``stg_actions``; see
``schemas/ddl/20_staging.sql``), never the raw text again. :func:`read_staging` turns
the rows of some hands into :class:`~ingest.scan.layout.HandArrays` -- the same rows
:func:`audit.facts.layout.from_records` gives for the records ingest stored (tested) --
and :class:`StagingLabels` gives the words a finding quotes (ids, players, readings).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import duckdb
import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from audit.facts.layout import _reading
from ingest.scan.layout import (
    ACTOR_CODE,
    CARD,
    E_ACTOR,
    E_ALL_IN,
    E_AMOUNT,
    E_CARDS_COUNT,
    E_CARDS_START,
    E_COLUMNS,
    E_DRAWN_COUNT,
    E_DRAWN_START,
    E_LINE,
    E_READING,
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
    H_COLUMNS,
    H_EVENT_COUNT,
    H_EVENT_START,
    H_FIRST_LINE,
    H_GAME,
    H_HAND_HASH,
    H_JACKPOT,
    H_JOKER,
    H_OPENERS,
    H_POT,
    H_RAKE,
    H_SEAT_COUNT,
    H_SEAT_START,
    H_SMALL,
    H_TABLE_HASH,
    H_TIME,
    OPENERS_ABSENT,
    OPENERS_CODE,
    READING_NONE,
    S_COLUMNS,
    S_PLAYER_HASH,
    S_SEAT,
    S_STACK,
    SECTION_ORDER,
    V_SHOWS,
    HandArrays,
    IntArray,
    V,
    ranges,
)
from schemas.records import Game

_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)
_SECTION = {s.value: i for i, s in enumerate(SECTION_ORDER)}
_ACTOR = {a.value: code for a, code in ACTOR_CODE.items()}
_VERB = {v.value: code for v, code in V.items()}
_OPENERS = {o.value: code for o, code in OPENERS_CODE.items()}


def _strings(column: pa.Array | pa.ChunkedArray) -> pa.StringArray:
    """One contiguous string array of ``column`` (nulls as empty strings)."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if column.type != pa.string():
        column = column.cast(pa.string())
    return column.fill_null("")


def _fnv_distinct(texts: pa.StringArray) -> IntArray:
    """FNV-1a 64 of each string's UTF-8, one byte position at a time over all strings."""
    count = len(texts)
    offsets = np.frombuffer(texts.buffers()[1], dtype=np.int32)[
        texts.offset:texts.offset + count + 1]
    data = texts.buffers()[2]
    raw = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
    starts = offsets[:-1].astype(np.int64)
    lengths = (offsets[1:] - offsets[:-1]).astype(np.int64)
    h = np.full(count, _FNV_OFFSET, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(int(lengths.max()) if count else 0):
            live = np.flatnonzero(lengths > j)
            h[live] = (h[live] ^ raw[starts[live] + j].astype(np.uint64)) * _FNV_PRIME
    return h.view(np.int64)


def fnv1a64_column(column: pa.Array | pa.ChunkedArray) -> IntArray:
    """:func:`ingest.scan.layout.fnv1a64` of each value's UTF-8, as int64 (each distinct
    value hashed once: ids repeat)."""
    encoded = pc.dictionary_encode(_strings(column))
    hashes = _fnv_distinct(encoded.dictionary)
    return hashes[encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)]


def fnv1a64_many(texts: Sequence[str]) -> IntArray:
    """:func:`ingest.scan.layout.fnv1a64` of each text's UTF-8, as int64."""
    return fnv1a64_column(pa.array(list(texts), pa.string()))


def _codes(column: pa.Array | pa.ChunkedArray, table: dict[str, int], default: int = 0
           ) -> IntArray:
    """A string column's values by code (``default`` for nulls), decoded per distinct value."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    encoded = pc.dictionary_encode(column)
    codes = np.array([table[v] for v in encoded.dictionary.to_pylist()] + [default],
                     dtype=np.int64)
    index = encoded.indices.fill_null(len(codes) - 1).to_numpy(zero_copy_only=False)
    return codes[np.asarray(index, dtype=np.int64)]


def _ints(column: pa.Array, null: int) -> IntArray:
    return np.asarray(column.fill_null(null).to_numpy(zero_copy_only=False), dtype=np.int64)


@dataclass(slots=True)
class StagingLabels:
    """The words of stored hands, from their staging rows (by hand row), looked up only
    when a finding needs them (most hands have none)."""

    hand_ids: list[str]
    table_ids: list[str]
    result_lines: IntArray
    #: Each hand's first seat row and event row, and how many (the arrays' columns).
    hands: IntArray
    seat_numbers: IntArray
    players: pa.StringArray
    action_index: IntArray
    shows: npt.NDArray[np.bool_]
    readings: pa.StringArray

    def hand_id(self, hand: int) -> str:
        return self.hand_ids[hand]

    def table_id(self, hand: int) -> str:
        return self.table_ids[hand]

    def player_id(self, hand: int, seat: int) -> str:
        first = int(self.hands[hand, H_SEAT_START])
        for k in range(first, first + int(self.hands[hand, H_SEAT_COUNT])):
            if int(self.seat_numbers[k]) == seat:
                return str(self.players[k].as_py())
        return ""

    def reading(self, hand: int, index: int) -> str | None:
        first = int(self.hands[hand, H_EVENT_START])
        for k in range(first, first + int(self.hands[hand, H_EVENT_COUNT])):
            if int(self.action_index[k]) == index:
                value = self.readings[k].as_py() if self.shows[k] else None
                return None if value is None else str(value)
        return None

    def result_line(self, hand: int) -> int:
        return int(self.result_lines[hand])


@dataclass(frozen=True, slots=True)
class StagingRows:
    """The staging rows of some hands, by hand (``ordinal``: the hand's place in
    ``hand_ids``) then seat or line, as :func:`staging_arrays` reads them."""

    hand_ids: list[str]
    hands: pa.Table
    seats: pa.Table
    actions: pa.Table


def read_rows(con: duckdb.DuckDBPyConnection, hand_ids: Sequence[str]
              ) -> tuple[pa.Table, pa.Table, pa.Table]:
    """The hands, seats and lines of stored hands, read with one query per table, as the
    store gives them (``ordinal``: the hand's place in ``hand_ids``; the hands in that
    order, their seats and lines in the store's).

    Each query joins the whole staging table once, so reading many small groups together
    costs one scan, not one per group. Every id must be in ``stg_hands`` (the caller
    checks).
    """
    con.register("_audit_order", pa.table({
        "hand_id": pa.array(list(hand_ids), pa.string()),
        "ordinal": pa.array(np.arange(len(hand_ids)), pa.int64())}))
    # The range of the ids is implied by the join; said outright, DuckDB skips the row
    # groups outside it (ids that share a table's prefix are stored together), so a read
    # costs the rows it asks for, not a scan of every staging row of the store.
    bounds = [min(hand_ids), max(hand_ids)] if hand_ids else ["", ""]
    try:
        hands = con.sql(
            "SELECT o.ordinal, h.table_id, epoch_us(h.time) AS time, h.game, h.limit_small, "
            "h.limit_big, h.ante, h.joker, h.button, h.jackpot, h.openers, h.carried, h.pot, "
            "h.rake, h.carried_out, h.first_line, h.result_line "
            "FROM _audit_order o JOIN stg_hands h USING (hand_id) "
            "WHERE h.hand_id BETWEEN $1 AND $2 ORDER BY o.ordinal", params=bounds
        ).to_arrow_table()
        seats = con.sql(
            "SELECT o.ordinal, s.seat, s.player_id, s.stack "
            "FROM _audit_order o JOIN stg_seats s USING (hand_id) "
            "WHERE s.hand_id BETWEEN $1 AND $2", params=bounds
        ).to_arrow_table()
        actions = con.sql(
            "SELECT o.ordinal, a.action_index, a.line, a.section, a.actor, a.verb, a.seat, "
            "a.amount, a.to_amount, a.cards, a.drawn, a.all_in, a.side_pot, a.reading "
            "FROM _audit_order o JOIN stg_actions a USING (hand_id) "
            "WHERE a.hand_id BETWEEN $1 AND $2", params=bounds
        ).to_arrow_table()
    finally:
        con.unregister("_audit_order")
    return hands, seats, actions


def group_rows(hand_ids: list[str], first: int, hands: pa.Table, seats: pa.Table,
               actions: pa.Table) -> StagingRows:
    """The rows of the hands ``hand_ids`` (ordinals ``first`` onwards) of a read by
    :func:`read_rows`, by hand then seat or line, their ordinals counted from 0.

    Sorting here costs far less than an ORDER BY that moves the card lists."""
    return StagingRows(hand_ids, *(_group(rows, first, len(hand_ids), within) for rows, within
                                   in ((hands, None), (seats, "seat"),
                                       (actions, "action_index"))))


def _group(rows: pa.Table, first: int, count: int, within: str | None) -> pa.Table:
    ordinal = _ints(rows.column("ordinal"), 0)
    if within is None:  # in ordinal order already
        mine = np.arange(*np.searchsorted(ordinal, [first, first + count]))
    else:
        mine = np.flatnonzero((ordinal >= first) & (ordinal < first + count))
        mine = mine[np.lexsort((_ints(rows.column(within), 0)[mine], ordinal[mine]))]
    part = rows.take(pa.array(mine))
    return part.set_column(rows.schema.get_field_index("ordinal"), "ordinal",
                           pa.array(ordinal[mine] - first, pa.int64()))


def fetch_staging(con: duckdb.DuckDBPyConnection, groups: Sequence[Sequence[str]]
                  ) -> list[StagingRows]:
    """The staging rows of each group of stored hands, read together (:func:`read_rows`)."""
    # One chunk each: a take from a chunked table joins its chunks again on every call.
    read = [t.combine_chunks() for t in read_rows(con, [h for group in groups for h in group])]
    starts = np.cumsum([0, *(len(g) for g in groups)]).tolist()
    return [group_rows(list(group), first, *read)
            for group, first in zip(groups, starts, strict=False)]


def staging_arrays(rows: StagingRows) -> tuple[HandArrays, StagingLabels]:
    """The arrays and labels of fetched staging rows, in the order of their ids."""
    return _arrays(rows.hand_ids, rows.hands, rows.seats, rows.actions)


def read_staging(con: duckdb.DuckDBPyConnection, hand_ids: Sequence[str]
                 ) -> tuple[HandArrays, StagingLabels]:
    """The arrays and labels of the stored hands ``hand_ids``, in that order.

    Every id must be in ``stg_hands`` (the caller checks).
    """
    return staging_arrays(fetch_staging(con, [hand_ids])[0])


def _counts(ordinals: IntArray, size: int) -> IntArray:
    return np.bincount(ordinals, minlength=size).astype(np.int64)


def _arrays(hand_ids: list[str], hands: pa.Table, seats: pa.Table, actions: pa.Table
            ) -> tuple[HandArrays, StagingLabels]:
    n = len(hand_ids)
    h = np.zeros((n, H_COLUMNS), dtype=np.int64)
    col = hands.column
    draw_high = _ints(pc.equal(col("game"), Game.DRAW_HIGH.value).cast(pa.int64()), 0)
    h[:, H_GAME] = np.where(draw_high != 0, GAME_DRAW_HIGH, GAME_JACKS_OR_BETTER)
    for column, name in ((H_SMALL, "limit_small"), (H_BIG, "limit_big"), (H_ANTE, "ante"),
                         (H_BUTTON, "button"), (H_JACKPOT, "jackpot"), (H_CARRIED, "carried"),
                         (H_POT, "pot"), (H_RAKE, "rake"), (H_TIME, "time"),
                         (H_FIRST_LINE, "first_line")):
        h[:, column] = _ints(col(name), 0)
    h[:, H_JOKER] = _ints(col("joker").cast(pa.int64()), 0)
    h[:, H_CARRIED_OUT] = _ints(col("carried_out"), -1)
    h[:, H_OPENERS] = _codes(col("openers"), _OPENERS, OPENERS_ABSENT)
    h[:, H_TABLE_HASH] = fnv1a64_column(col("table_id"))
    h[:, H_HAND_HASH] = fnv1a64_many(hand_ids)
    h[:, H_BYTE_START] = h[:, H_BYTE_END] = -1
    seat_owner = _ints(seats.column("ordinal"), 0)
    h[:, H_SEAT_COUNT] = _counts(seat_owner, n)
    h[:, H_SEAT_START] = np.cumsum(h[:, H_SEAT_COUNT]) - h[:, H_SEAT_COUNT]
    s = np.zeros((len(seat_owner), S_COLUMNS), dtype=np.int64)
    s[:, S_SEAT] = _ints(seats.column("seat"), 0)
    s[:, S_STACK] = _ints(seats.column("stack"), 0)
    players = _strings(seats.column("player_id"))
    s[:, S_PLAYER_HASH] = fnv1a64_column(players)
    owner = _ints(actions.column("ordinal"), 0)
    h[:, H_EVENT_COUNT] = _counts(owner, n)
    h[:, H_EVENT_START] = np.cumsum(h[:, H_EVENT_COUNT]) - h[:, H_EVENT_COUNT]
    e, cards = _events(actions)
    reading = actions.column("reading")
    labels = StagingLabels(
        hand_ids, col("table_id").to_pylist(), _ints(col("result_line"), 0), h, s[:, S_SEAT],
        players, _ints(actions.column("action_index"), 0), e[:, E_VERB] == V_SHOWS,
        reading.combine_chunks() if isinstance(reading, pa.ChunkedArray) else reading)
    return HandArrays(h, s, e, cards), labels


def _list_codes(column: pa.ChunkedArray) -> tuple[IntArray, npt.NDArray[np.int8]]:
    """Per row the length of a card list (-1 for null), and every card's code."""
    lists = column.combine_chunks()
    lengths = np.asarray(pc.list_value_length(lists).fill_null(-1).to_numpy(
        zero_copy_only=False), dtype=np.int64)
    codes = _codes(pc.list_flatten(lists), CARD).astype(np.int8)
    return lengths, codes


def _events(actions: pa.Table) -> tuple[IntArray, npt.NDArray[np.int8]]:
    col = actions.column
    count = actions.num_rows
    e = np.zeros((count, E_COLUMNS), dtype=np.int64)
    e[:, E_SECTION] = _codes(col("section"), _SECTION)
    e[:, E_ACTOR] = _codes(col("actor"), _ACTOR)
    e[:, E_VERB] = _codes(col("verb"), _VERB)
    e[:, E_SEAT] = _ints(col("seat"), 0)
    e[:, E_AMOUNT] = _ints(col("amount"), -1)
    e[:, E_TO_AMOUNT] = _ints(col("to_amount"), -1)
    e[:, E_ALL_IN] = _ints(col("all_in").cast(pa.int64()), 0)
    e[:, E_SIDE_POT] = _ints(col("side_pot"), 0)
    e[:, E_LINE] = _ints(col("line"), 0)
    shows = np.flatnonzero(e[:, E_VERB] == V_SHOWS)
    e[:, E_READING] = READING_NONE
    if len(shows):  # each distinct reading named once
        encoded = pc.dictionary_encode(col("reading").take(pa.array(shows)).combine_chunks())
        named = np.array([_reading(r) for r in encoded.dictionary.to_pylist()] + [READING_NONE],
                         dtype=np.int64)
        index = encoded.indices.fill_null(len(named) - 1).to_numpy(zero_copy_only=False)
        e[shows, E_READING] = named[np.asarray(index, dtype=np.int64)]
    card_lengths, card_codes = _list_codes(col("cards"))
    drawn_lengths, drawn_codes = _list_codes(col("drawn"))
    # Each line's cards, then its drawn cards, as from_records lays them out.
    per_line = np.maximum(card_lengths, 0) + np.maximum(drawn_lengths, 0)
    starts = np.cumsum(per_line) - per_line
    e[:, E_CARDS_START], e[:, E_CARDS_COUNT] = starts, card_lengths
    e[:, E_DRAWN_START] = starts + np.maximum(card_lengths, 0)
    e[:, E_DRAWN_COUNT] = drawn_lengths
    cards = np.zeros(int(per_line.sum()), dtype=np.int8)
    cards[ranges(starts, card_lengths)] = card_codes
    cards[ranges(e[:, E_DRAWN_START], drawn_lengths)] = drawn_codes
    return e, cards


