"""Read the store's staging tables in batches of hands, as flat arrays compiled code can walk.

The analysis never reads raw text (dbt layering): ``stg_hands``, ``stg_seats`` and
``stg_actions`` give every hand, seat and line of play typed. Hands come in the order
a table dealt them (table, time, hand id), ``batch_hands`` at a time, so memory does
not grow with the store: a batch is three groups of numpy arrays,

- hands (one row each, ``h_*``), with the range of their seats and of their lines;
- seats (``s_*``), a hand's seats in seat order;
- lines (``a_*``), as the store gave them, with ``a_order`` listing them in log order
  hand by hand (compiled code walks them through it: no column is reordered), and
  their cards as codes in one flat ``cards`` array (``rank * 4 + suit``, 52 the joker,
  53 unknown, as the layout of the rest of the project).

Players, dealers and tables become small integers through :class:`Names`, shared by
every batch of a run.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import duckdb
import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from audit.integrity.prng import hand_keys
from audit.profiles import Profile
from schemas.records import CARD_CODES, SECTION_ORDER, Actor, Game, Openers, Verb

I8 = npt.NDArray[np.int8]
I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]

VERBS: tuple[Verb, ...] = tuple(Verb)
#: Verb codes (position in :class:`Verb`), as compiled code compares them.
VERB = {verb: code for code, verb in enumerate(VERBS)}
SECTION = {section: code for code, section in enumerate(SECTION_ORDER)}
ACTORS: tuple[Actor, ...] = tuple(Actor)
ACTOR = {actor: code for code, actor in enumerate(ACTORS)}
JOKER_CODE = 52
UNKNOWN_CODE = 53
#: Minimum openers as the lowest pair rank code that opens (9 jacks .. 12 aces), 0 for ANY.
OPENERS_CODE = {Openers.ANY: 0, Openers.JJ: 9, Openers.QQ: 10, Openers.KK: 11, Openers.AA: 12}

BATCH_HANDS = 50_000

#: The cardroom's local day of a hand (its Time at the offset its log wrote).
LOCAL_DAY_SQL = "CAST(timezone('UTC', h.time) + to_minutes(h.utc_offset_minutes) AS DATE)"
_HANDS_SQL = f"""
SELECT h.hand_id, h.table_id, coalesce(h.dealer_id, '') AS dealer_id,
       epoch_ms(h.time) AS time_ms, h.utc_offset_minutes, {LOCAL_DAY_SQL} AS day,
       h.joker, h.button, h.game, h.openers, h.jackpot, h.limit_small, h.limit_big
FROM stg_hands h
WHERE ($since IS NULL OR {LOCAL_DAY_SQL} >= $since)
  AND ($until IS NULL OR {LOCAL_DAY_SQL} <= $until)
ORDER BY h.table_id, h.time, h.hand_id
"""

_COUNT_SQL = f"""
SELECT count(*) FROM stg_hands h
WHERE ($since IS NULL OR {LOCAL_DAY_SQL} >= $since)
  AND ($until IS NULL OR {LOCAL_DAY_SQL} <= $until)
"""

# The ids' range is implied by the join; said outright, DuckDB skips the row groups outside
# it (a table's ids share a prefix and are stored together): a batch reads its own rows, not
# every staging row of the store. No ORDER BY: sorting is faster in numpy.
_SEATS_SQL = """
SELECT c.ord, s.seat, s.player_id
FROM stg_seats s JOIN _integrity_batch c USING (hand_id)
WHERE s.hand_id BETWEEN $low AND $high
"""

#: Code of each word a column may hold (the card codes of the rest of the project).
_SECTION_CODE = {s.value: code for s, code in SECTION.items()}
_ACTOR_CODE = {a.value: code for a, code in ACTOR.items()}
_VERB_CODE = {v.value: code for v, code in VERB.items()}
_CARD_CODE = {card: code for code, card in enumerate(CARD_CODES)}


def _code_of(column: str, words: dict[str, int]) -> str:
    """SQL giving the code of a word column: its place in ``words`` (codes 0..n-1), -1 for
    another word. DuckDB finds it once per distinct word of a compressed block, far
    cheaper than handing the texts over and coding them here."""
    ordered = sorted(words, key=words.__getitem__)
    if [words[w] for w in ordered] != list(range(len(ordered))) or any("'" in w for w in words):
        raise ValueError(f"not a list of plain words coded 0..n-1: {words}")
    listed = ", ".join(f"'{w}'" for w in ordered)
    return f"CAST(coalesce(list_position([{listed}], a.{column}), 0) - 1 AS TINYINT)"


# No ORDER BY: sorting is faster in numpy.
_ACTIONS_SQL = f"""
SELECT c.ord, a.action_index, {_code_of("section", _SECTION_CODE)} AS section,
       {_code_of("actor", _ACTOR_CODE)} AS actor, {_code_of("verb", _VERB_CODE)} AS verb,
       coalesce(a.seat, -1) AS seat, coalesce(a.amount, 0) AS amount,
       coalesce(a.to_amount, 0) AS to_amount, a.all_in, a.cards, a.drawn
FROM stg_actions a JOIN _integrity_batch c USING (hand_id)
WHERE a.hand_id BETWEEN $low AND $high
"""


@dataclass
class Names:
    """Ids of players, dealers and tables as small integers, shared by a run's batches."""

    players: dict[str, int] = field(default_factory=dict)
    dealers: dict[str, int] = field(default_factory=dict)
    tables: dict[str, int] = field(default_factory=dict)

    @staticmethod
    def _codes(book: dict[str, int], values: pa.Array) -> I32:
        encoded = pc.dictionary_encode(values).combine_chunks() if isinstance(
            values, pa.ChunkedArray) else pc.dictionary_encode(values)
        words = encoded.dictionary.to_pylist()
        mapping = np.array([book.setdefault(w, len(book)) for w in words], dtype=np.int32)
        return mapping[encoded.indices.to_numpy(zero_copy_only=False)]

    def player_codes(self, values: pa.Array) -> I32:
        """Player ids as integers."""
        return self._codes(self.players, values)

    def dealer_codes(self, values: pa.Array) -> I32:
        """Dealer ids as integers ('' for a hand with no Dealer header)."""
        return self._codes(self.dealers, values)

    def table_codes(self, values: pa.Array) -> I32:
        """Table ids as integers."""
        return self._codes(self.tables, values)

    @staticmethod
    def invert(book: dict[str, int]) -> list[str]:
        """Index -> id."""
        out = [""] * len(book)
        for name, code in book.items():
            out[code] = name
        return out


@dataclass
class Batch:
    """A batch of hands in table-deal order, as flat arrays (see the module docstring)."""

    first: int  #: position of the batch's first hand among every hand of the run
    hand_ids: list[str]
    h_key: npt.NDArray[np.uint64]
    h_table: I32
    h_dealer: I32
    h_time_ms: I64
    h_offset: npt.NDArray[np.int16]  #: minutes the room's clock is ahead of UTC
    h_day: I32  #: local day, days since 1970-01-01
    h_joker: npt.NDArray[np.bool_]
    h_button: I8
    h_openers: I8  #: OPENERS_CODE of the deal (header, else the house progression)
    h_small: I64
    h_big: I64
    h_seat_start: I32
    h_seat_count: I32
    h_act_start: I32  #: the hand's first line in ``a_order``
    h_act_count: I32
    s_seat: I8
    s_player: I32
    a_order: npt.NDArray[np.intp]  #: the lines' rows in log order, hand after hand
    a_section: I8
    a_actor: I8
    a_verb: I8
    a_seat: I8
    a_amount: I64
    a_to: I64
    a_all_in: npt.NDArray[np.bool_]
    a_cards_start: I32
    a_cards_count: I8  #: -1: the line names no card list (an unrecorded burn)
    a_drawn_start: I32
    a_drawn_count: I8
    cards: I8

    def __len__(self) -> int:
        return len(self.hand_ids)


def _offsets(ords: I64, n: int) -> tuple[I32, I32]:
    counts = np.bincount(ords, minlength=n).astype(np.int32)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int32)
    return starts, counts


def _encoded(column: pa.Array | pa.ChunkedArray, codes: dict[str, int]) -> I64:
    """A column of words as their codes (-1 for a word the table does not know)."""
    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    encoded = pc.dictionary_encode(array)
    lookup = np.array([codes.get(w, -1) for w in encoded.dictionary.to_pylist()] + [-1],
                      dtype=np.int64)
    index = encoded.indices.fill_null(len(lookup) - 1).to_numpy(zero_copy_only=False)
    return lookup[index]


def _two_byte_codes() -> I8:
    """Code of each two-byte card text, by its bytes as one 16-bit number (-1: no card)."""
    table = np.full(1 << 16, -1, dtype=np.int8)
    for card, code in _CARD_CODE.items():
        raw = card.encode()
        if len(raw) == 2:
            table[raw[0] << 8 | raw[1]] = code
    return table


_CARD_BY_BYTES = _two_byte_codes()


def _card_codes(cards: pa.Array) -> I8:
    """Codes of a flat array of card texts (-1 for a text that is no card, or NULL).

    Every card text is two bytes, so each is looked up by its bytes, with no hashing;
    an array with any other length goes through :func:`_encoded`."""
    if cards.type != pa.string() or cards.null_count or cards.buffers()[2] is None:
        return _encoded(cards, _CARD_CODE).astype(np.int8)
    offsets = np.frombuffer(cards.buffers()[1], dtype=np.int32)[
        cards.offset:cards.offset + len(cards) + 1]
    data = cards.buffers()[2]
    if not np.all(np.diff(offsets) == 2):
        return _encoded(cards, _CARD_CODE).astype(np.int8)
    # every text two bytes, one after the other: each card is one big-endian 16-bit number
    pairs = np.frombuffer(data, dtype=">u2", count=len(cards), offset=int(offsets[0]))
    return _CARD_BY_BYTES[pairs]


def _flatten(column: pa.ChunkedArray, base: int) -> tuple[I32, I8, I8]:
    """Start, count (-1 for NULL) and flat card codes of a list column of cards; starts
    shifted by ``base``. Chunk by chunk: the lists' texts are never copied together."""
    starts, counts, codes = [], [], []
    for chunk in column.chunks:
        valid = chunk.is_valid().to_numpy(zero_copy_only=False)
        offsets = chunk.offsets.to_numpy()
        count = np.diff(offsets).astype(np.int8)
        count[~valid] = -1
        starts.append((offsets[:-1] - offsets[0] + base).astype(np.int32))
        counts.append(count)
        codes.append(_card_codes(chunk.flatten()))
        base += int(offsets[-1] - offsets[0])
    if not starts:
        return np.zeros(0, np.int32), np.zeros(0, np.int8), np.zeros(0, np.int8)
    return np.concatenate(starts), np.concatenate(counts), np.concatenate(codes)


def _word_index(column: pa.ChunkedArray | pa.Array) -> tuple[I64, list[str | None]]:
    """Each value's index among the column's distinct values, and those values (None last,
    for NULL)."""
    array = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    encoded = pc.dictionary_encode(array)
    words: list[str | None] = [*encoded.dictionary.to_pylist(), None]
    index = encoded.indices.fill_null(len(words) - 1).to_numpy(zero_copy_only=False)
    return index.astype(np.int64), words


def _openers_codes(hands: pa.Table, profile: Profile) -> I8:
    """Each hand's minimum openers (its header's, else the house's for its game and jackpot),
    worked out once per distinct (header, game, jackpot)."""
    header, header_words = _word_index(hands.column("openers"))
    game, game_words = _word_index(hands.column("game"))
    jackpots, jackpot = np.unique(hands.column("jackpot").to_numpy(zero_copy_only=False)
                                  .astype(np.int64), return_inverse=True)
    combos, which = np.unique((header * len(game_words) + game) * len(jackpots)
                              + jackpot.reshape(-1), return_inverse=True)
    codes = np.empty(len(combos), dtype=np.int8)
    for i, combo in enumerate(combos.tolist()):
        rest, j = divmod(combo, len(jackpots))
        h, g = divmod(rest, len(game_words))
        opens, name = header_words[h], game_words[g]
        minimum = Openers(opens) if opens else profile.openers_for(int(jackpots[j]),
                                                                   Game(name))
        codes[i] = OPENERS_CODE[minimum]
    return codes[which.reshape(-1)]


def count_hands(con: duckdb.DuckDBPyConnection, *, since: date | None = None,
                until: date | None = None) -> int:
    """How many stored hands :func:`read_batches` gives for the window."""
    return int(con.execute(_COUNT_SQL, {"since": since, "until": until}).fetchall()[0][0])


def read_batches(con: duckdb.DuckDBPyConnection, profile: Profile, names: Names, *,
                 since: date | None = None, until: date | None = None,
                 batch_hands: int = BATCH_HANDS) -> Iterator[Batch]:
    """Every stored hand whose local day is in [since, until], in table-deal order, by batches.

    The hands stream from a second cursor (the batch's own queries run on ``con`` meanwhile),
    so only a batch of them is held at a time, whatever the size of the store.
    """
    con.execute("SET enable_progress_bar = false")
    stream = con.cursor()
    try:
        reader = stream.sql(_HANDS_SQL, params={"since": since, "until": until}
                            ).to_arrow_reader(batch_hands)
        first = 0
        for part in _exactly(reader, batch_hands):
            yield _batch(con, part, first, profile, names)
            first += part.num_rows
    finally:
        stream.close()


def _exactly(reader: pa.RecordBatchReader, rows: int) -> Iterator[pa.Table]:
    """The reader's rows as tables of ``rows`` rows each (the last one shorter)."""
    pending: list[pa.RecordBatch] = []
    held = 0
    for record in reader:
        pending.append(record)
        held += record.num_rows
        while held >= rows:
            table = pa.Table.from_batches(pending).combine_chunks()
            yield table.slice(0, rows)
            rest = table.slice(rows)
            pending, held = rest.to_batches(), rest.num_rows
    if held:
        yield pa.Table.from_batches(pending, schema=reader.schema).combine_chunks()


def _batch(con: duckdb.DuckDBPyConnection, part: pa.Table, first: int, profile: Profile,
           names: Names) -> Batch:
    n = part.num_rows
    hand_ids = part.column("hand_id").to_pylist()
    con.register("_integrity_batch", pa.table({
        "hand_id": part.column("hand_id"), "ord": pa.array(np.arange(n, dtype=np.int64))}))
    bounds = {"low": min(hand_ids), "high": max(hand_ids)} if hand_ids else {"low": "", "high": ""}
    try:
        seats = con.sql(_SEATS_SQL, params=bounds).to_arrow_table()
        acts = con.sql(_ACTIONS_SQL, params=bounds).to_arrow_table()
    finally:
        con.unregister("_integrity_batch")
    # Lines in log order: one stable sort of one key (the rows come nearly in order: a
    # sort of runs); the columns stay as they came (compiled code reads them through it).
    ords = acts.column("ord").to_numpy()
    order = np.argsort(ords << 32 | acts.column("action_index").to_numpy().astype(np.int64),
                       kind="stable")
    # Seats by hand, in seat order (a seat is an INTEGER: shifted to sort as unsigned).
    seat_ords = seats.column("ord").to_numpy()
    seat_numbers = seats.column("seat").to_numpy()
    by_seat = np.argsort(seat_ords << 32 | (seat_numbers.astype(np.int64) + (1 << 31)),
                         kind="stable")
    seat_start, seat_count = _offsets(seat_ords, n)
    # in seat order before coding: new players get their codes in order of appearance
    players = seats.column("player_id").take(by_seat)
    act_start, act_count = _offsets(ords, n)
    c_start, c_count, c_flat = _flatten(acts.column("cards"), 0)
    d_start, d_count, d_flat = _flatten(acts.column("drawn"), len(c_flat))

    def column(name: str, dtype: type) -> npt.NDArray[Any]:
        # Always a fresh writable array: a zero-copy view (one chunk, no nulls) would be
        # read-only, and compiled code taking it compiles a second time for that type.
        return np.array(acts.column(name).to_numpy(zero_copy_only=False), dtype=dtype)

    days = part.column("day").cast(pa.int32()).to_numpy()
    return Batch(
        first=first,
        hand_ids=hand_ids,
        h_key=hand_keys(hand_ids),
        h_table=names.table_codes(part.column("table_id")),
        h_dealer=names.dealer_codes(part.column("dealer_id")),
        h_time_ms=part.column("time_ms").to_numpy().astype(np.int64),
        h_offset=part.column("utc_offset_minutes").to_numpy(zero_copy_only=False)
        .astype(np.int16),
        h_day=days.astype(np.int32),
        h_joker=part.column("joker").to_numpy(zero_copy_only=False).astype(np.bool_),
        h_button=part.column("button").to_numpy().astype(np.int8),
        h_openers=_openers_codes(part, profile),
        h_small=part.column("limit_small").to_numpy().astype(np.int64),
        h_big=part.column("limit_big").to_numpy().astype(np.int64),
        h_seat_start=seat_start,
        h_seat_count=seat_count,
        h_act_start=act_start,
        h_act_count=act_count,
        s_seat=seat_numbers[by_seat].astype(np.int8),
        s_player=names.player_codes(players),
        a_order=order,
        a_section=column("section", np.int8),
        a_actor=column("actor", np.int8),
        a_verb=column("verb", np.int8),
        a_seat=column("seat", np.int8),
        a_amount=column("amount", np.int64),
        a_to=column("to_amount", np.int64),
        a_all_in=column("all_in", np.bool_),
        a_cards_start=c_start,
        a_cards_count=c_count,
        a_drawn_start=d_start,
        a_drawn_count=d_count,
        cards=np.concatenate((c_flat, d_flat)).astype(np.int8, copy=False),
    )
