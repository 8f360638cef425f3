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

from audit.facts.hashes import fnv1a64_column, fnv1a64_many, one_string_array
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

_SECTION = {s.value: i for i, s in enumerate(SECTION_ORDER)}
_ACTOR = {a.value: code for a, code in ACTOR_CODE.items()}
_VERB = {v.value: code for v, code in V.items()}
_OPENERS = {o.value: code for o, code in OPENERS_CODE.items()}


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
    #: The read's ``reading`` column, and the row of it each event row is.
    readings: pa.StringArray
    reading_rows: IntArray

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
                value = (self.readings[int(self.reading_rows[k])].as_py() if self.shows[k]
                         else None)
                return None if value is None else str(value)
        return None

    def result_line(self, hand: int) -> int:
        return int(self.result_lines[hand])


@dataclass(frozen=True, slots=True)
class StagingRows:
    """The staging rows of some hands in a read by :func:`read_rows`: their hands' rows
    (in the order of ``hand_ids``), and which of the read's seat and line rows are theirs,
    by hand then seat or line (row numbers: the rows themselves are not copied)."""

    hand_ids: list[str]
    #: The ordinal of ``hand_ids[0]`` in the read.
    first: int
    hands: pa.Table
    seats: pa.Table
    actions: pa.Table
    seat_rows: IntArray
    event_rows: IntArray


def _enum(values: Sequence[str]) -> str:
    return "ENUM(" + ", ".join("'" + v.replace("'", "''") + "'" for v in values) + ")"


#: The words of a line read as DuckDB enums: Arrow dictionary columns, a byte a value and
#: a few words each (coded from the dictionary by :func:`_codes`), not a string a row.
_SECTION_ENUM = _enum(list(_SECTION))
_ACTOR_ENUM = _enum(list(_ACTOR))
_VERB_ENUM = _enum(list(_VERB))
_CARD_ENUM = _enum(list(CARD))


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
            f"SELECT o.ordinal, a.action_index, a.line, CAST(a.section AS {_SECTION_ENUM}) "
            f"AS section, CAST(a.actor AS {_ACTOR_ENUM}) AS actor, CAST(a.verb AS "
            f"{_VERB_ENUM}) AS verb, a.seat, a.amount, a.to_amount, CAST(a.cards AS "
            f"{_CARD_ENUM}[]) AS cards, CAST(a.drawn AS {_CARD_ENUM}[]) AS drawn, a.all_in, "
            "a.side_pot, a.reading "
            "FROM _audit_order o JOIN stg_actions a USING (hand_id) "
            "WHERE a.hand_id BETWEEN $1 AND $2", params=bounds
        ).to_arrow_table()
    finally:
        con.unregister("_audit_order")
    return hands, seats, actions


def group_rows(hand_ids: list[str], first: int, hands: pa.Table, seats: pa.Table,
               actions: pa.Table) -> StagingRows:
    """The rows of the hands ``hand_ids`` (ordinals ``first`` onwards) of a read by
    :func:`read_rows` (tables of one chunk), by hand then seat or line.

    Sorting row numbers here costs far less than an ORDER BY that moves the card lists
    (and the store gives a hand's rows in order: most reads need no sort at all)."""
    ordinal = _ints(_one(hands.column("ordinal")), 0)
    lo, hi = np.searchsorted(ordinal, [first, first + len(hand_ids)])  # in ordinal order
    return StagingRows(hand_ids, first, hands.slice(lo, hi - lo), seats, actions,
                       _mine(seats, first, len(hand_ids), "seat"),
                       _mine(actions, first, len(hand_ids), "action_index"))


def _mine(rows: pa.Table, first: int, count: int, within: str) -> IntArray:
    """The rows of ordinals ``first`` to ``first + count``, by ordinal then ``within``."""
    ordinal = _one(rows.column("ordinal")).to_numpy()
    mine = np.flatnonzero((ordinal >= first) & (ordinal < first + count))
    key = (ordinal[mine] << 32) | _at(rows.column(within), mine, 0)
    if len(key) > 1 and bool(np.any(key[1:] < key[:-1])):
        mine = mine[np.argsort(key, kind="stable")]
    return mine


def _one(column: pa.Array | pa.ChunkedArray) -> pa.Array:
    if isinstance(column, pa.ChunkedArray):
        return column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()
    return column


def fetch_staging(con: duckdb.DuckDBPyConnection, groups: Sequence[Sequence[str]]
                  ) -> list[StagingRows]:
    """The staging rows of each group of stored hands, read together (:func:`read_rows`)."""
    # One chunk each, as a shared read's files give them (a column is taken whole).
    read = [t.combine_chunks() for t in read_rows(con, [h for group in groups for h in group])]
    starts = np.cumsum([0, *(len(g) for g in groups)]).tolist()
    return [group_rows(list(group), first, *read)
            for group, first in zip(groups, starts, strict=False)]


def staging_arrays(rows: StagingRows) -> tuple[HandArrays, StagingLabels]:
    """The arrays and labels of fetched staging rows, in the order of their ids."""
    hand_ids, hands, seats, actions = rows.hand_ids, rows.hands, rows.seats, rows.actions
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
    seat_rows, event_rows = rows.seat_rows, rows.event_rows
    scol = seats.column
    h[:, H_SEAT_COUNT] = _counts(_at(scol("ordinal"), seat_rows, 0) - rows.first, n)
    h[:, H_SEAT_START] = np.cumsum(h[:, H_SEAT_COUNT]) - h[:, H_SEAT_COUNT]
    s = np.zeros((len(seat_rows), S_COLUMNS), dtype=np.int64)
    s[:, S_SEAT] = _at(scol("seat"), seat_rows, 0)
    s[:, S_STACK] = _at(scol("stack"), seat_rows, 0)
    players = one_string_array(_one(scol("player_id")).take(pa.array(seat_rows)))
    s[:, S_PLAYER_HASH] = fnv1a64_column(players)
    owner = _at(actions.column("ordinal"), event_rows, 0) - rows.first
    h[:, H_EVENT_COUNT] = _counts(owner, n)
    h[:, H_EVENT_START] = np.cumsum(h[:, H_EVENT_COUNT]) - h[:, H_EVENT_COUNT]
    e, cards = _events(actions, event_rows)
    labels = StagingLabels(
        hand_ids, col("table_id").to_pylist(), _ints(col("result_line"), 0), h, s[:, S_SEAT],
        players, _at(actions.column("action_index"), event_rows, 0), e[:, E_VERB] == V_SHOWS,
        _one(actions.column("reading")), event_rows)
    return HandArrays(h, s, e, cards), labels


def read_staging(con: duckdb.DuckDBPyConnection, hand_ids: Sequence[str]
                 ) -> tuple[HandArrays, StagingLabels]:
    """The arrays and labels of the stored hands ``hand_ids``, in that order.

    Every id must be in ``stg_hands`` (the caller checks).
    """
    return staging_arrays(fetch_staging(con, [hand_ids])[0])


def _counts(ordinals: IntArray, size: int) -> IntArray:
    return np.bincount(ordinals, minlength=size).astype(np.int64)


def _at(column: pa.Array | pa.ChunkedArray, rows: IntArray, null: int) -> IntArray:
    """An integer (or boolean) column's values at ``rows`` (``null`` for nulls)."""
    values = _one(column)
    if values.null_count or pa.types.is_boolean(values.type):
        values = values.take(pa.array(rows))
        if pa.types.is_boolean(values.type):
            values = values.cast(pa.int8())
        values = values.fill_null(null)
        return np.asarray(values.to_numpy(zero_copy_only=False), dtype=np.int64)
    return np.asarray(values.to_numpy()[rows], dtype=np.int64)


def _lookup(values: pa.Array, table: dict[str, int]) -> tuple[IntArray, npt.NDArray[np.integer]]:
    """Words (strings, or a dictionary column as an enum reads) as their codes and each
    row's index into them."""
    if not pa.types.is_dictionary(values.type):
        values = pc.dictionary_encode(values)
    codes = np.array([table[v] for v in values.dictionary.to_pylist()], dtype=np.int64)
    return codes, values.indices.to_numpy()


def _codes_at(column: pa.Array | pa.ChunkedArray, rows: IntArray, table: dict[str, int]
              ) -> IntArray:
    """A column of words (never null) at ``rows``, by code."""
    codes, index = _lookup(_one(column), table)
    return codes[index[rows]]


def _list_codes(column: pa.Array | pa.ChunkedArray, rows: IntArray
                ) -> tuple[IntArray, npt.NDArray[np.int8]]:
    """Per row of ``rows`` the length of a card list (-1 for null), and every card's code."""
    lists = _one(column)
    offsets = lists.offsets.to_numpy()  # into lists.values, whatever the slice
    starts = offsets[rows].astype(np.int64)
    lengths = offsets[rows + 1] - starts
    if lists.null_count:
        bits = np.unpackbits(np.frombuffer(lists.buffers()[0], np.uint8), bitorder="little")
        lengths = np.where(bits[lists.offset + rows] != 0, lengths, -1)
    codes, index = _lookup(lists.values, CARD)
    return lengths, codes[index[ranges(starts, lengths)]].astype(np.int8)


def _events(actions: pa.Table, rows: IntArray) -> tuple[IntArray, npt.NDArray[np.int8]]:
    col = actions.column
    e = np.zeros((len(rows), E_COLUMNS), dtype=np.int64)
    e[:, E_SECTION] = _codes_at(col("section"), rows, _SECTION)
    e[:, E_ACTOR] = _codes_at(col("actor"), rows, _ACTOR)
    e[:, E_VERB] = _codes_at(col("verb"), rows, _VERB)
    e[:, E_SEAT] = _at(col("seat"), rows, 0)
    e[:, E_AMOUNT] = _at(col("amount"), rows, -1)
    e[:, E_TO_AMOUNT] = _at(col("to_amount"), rows, -1)
    e[:, E_ALL_IN] = _at(col("all_in"), rows, 0)
    e[:, E_SIDE_POT] = _at(col("side_pot"), rows, 0)
    e[:, E_LINE] = _at(col("line"), rows, 0)
    shows = np.flatnonzero(e[:, E_VERB] == V_SHOWS)
    e[:, E_READING] = READING_NONE
    if len(shows):  # each distinct reading named once
        readings = _one(col("reading")).take(pa.array(rows[shows]))
        encoded = pc.dictionary_encode(readings)
        named = np.array([_reading(r) for r in encoded.dictionary.to_pylist()] + [READING_NONE],
                         dtype=np.int64)
        index = encoded.indices.fill_null(len(named) - 1).to_numpy(zero_copy_only=False)
        e[shows, E_READING] = named[np.asarray(index, dtype=np.int64)]
    card_lengths, card_codes = _list_codes(col("cards"), rows)
    drawn_lengths, drawn_codes = _list_codes(col("drawn"), rows)
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
