"""Compiled passes that lay a batch's staging rows out as the replay's flat arrays.

The store audit's workers read their batch's rows from a read of many batches, as the
store gave them (:mod:`audit.facts.shared_reads`): a batch's seat and line rows are
scattered among the others', in no guaranteed order. :func:`tally` and :func:`place`
find the batch's rows and put them in order (by hand, then seat or line: a counting
pass, then an insertion sort per hand, as the rows mostly come in order) as row numbers;
:func:`fill_hands`, :func:`fill_seats` and :func:`fill_events` then read each row once,
through those numbers, straight from the Arrow buffers, into arrays made by the caller
(kept from batch to batch: :class:`audit.facts.arrays.TableMemory`). Nothing is taken,
sorted or copied column by column before.

A column travels as a tuple of its buffers (made by :mod:`audit.facts.staging`):

- fixed width (integers, booleans as bits): ``(values, validity, offset)``;
- string: ``(offsets, data, validity, offset)``;
- list of strings: ``(offsets, validity, offset, strings)``.

``validity`` is empty when the column has no null; row ``r`` is at ``offset + r``. A
word the layout codes (section, actor, verb, card, game, openers) is looked up in a
:func:`vocabulary` (a small open-addressed table, each candidate checked byte by byte);
a word outside it counts as unknown (the caller refuses the batch).
"""

from __future__ import annotations

from typing import Any, TypeAlias

import numpy as np

from ingest.scan.layout import (
    E_ACTOR,
    E_ALL_IN,
    E_AMOUNT,
    E_CARDS_COUNT,
    E_CARDS_START,
    E_DRAWN_COUNT,
    E_DRAWN_START,
    E_LINE,
    E_READING,
    E_SEAT,
    E_SECTION,
    E_SIDE_POT,
    E_TO_AMOUNT,
    E_VERB,
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
    H_HAND_HASH,
    H_JACKPOT,
    H_JOKER,
    H_OPENERS,
    H_POT,
    H_RAKE,
    H_SEAT_COUNT,
    H_SEAT_START,
    H_SMALL,
    H_STATUS,
    H_TABLE_HASH,
    H_TIME,
    READING_NONE,
    S_PLAYER_HASH,
    S_SEAT,
    S_STACK,
)
from ingest.scan.tokens import fnv1a64, kernel

#: A column's buffers, or a vocabulary (see the module docstring).
Column: TypeAlias = tuple[Any, ...]
#: A looked-up word outside its vocabulary.
UNKNOWN = -(1 << 40)


@kernel
def _valid(bits: np.ndarray, at: int) -> bool:
    return bits.shape[0] == 0 or ((bits[at >> 3] >> (at & 7)) & 1) == 1


@kernel
def _int(column: Column, row: int, null: int) -> int:
    values, bits, offset = column
    at = offset + row
    return int(values[at]) if _valid(bits, at) else null


@kernel
def _flag(column: Column, row: int) -> int:
    data, bits, offset = column
    at = offset + row
    if not _valid(bits, at):
        return 0
    return (data[at >> 3] >> (at & 7)) & 1


@kernel
def _hash(column: Column, row: int) -> int:
    """FNV-1a 64 of the string at ``row`` (a null as the empty string)."""
    offsets, data, bits, offset = column
    at = offset + row
    if not _valid(bits, at):
        return fnv1a64(data, 0, 0)
    return fnv1a64(data, offsets[at], offsets[at + 1])


#: Slots of a vocabulary's table (a power of two, well above any vocabulary's size).
SLOTS = 1024


@kernel
def slot(data: np.ndarray, lo: int, hi: int) -> int:
    """The first slot a word ``data[lo:hi]`` is looked for in (from its length and three
    of its bytes: no pass over the word before the one that compares it)."""
    n = hi - lo
    if n <= 0:
        return 0
    key = (n * 40503) ^ (int(data[lo]) * 2654435761) ^ (int(data[hi - 1]) * 2246822519) \
        ^ (int(data[lo + (n >> 1)]) * 3266489917)
    return (key ^ (key >> 15)) & (SLOTS - 1)


@kernel
def _word(data: np.ndarray, lo: int, hi: int, vocabulary: Column) -> int:
    """The code of the word ``data[lo:hi]``, or :data:`UNKNOWN`."""
    table, starts, text, codes = vocabulary
    at = slot(data, lo, hi)
    while table[at] >= 0:
        w = table[at]
        s = starts[w]
        if starts[w + 1] - s == hi - lo:
            same = True
            for k in range(hi - lo):
                if text[s + k] != data[lo + k]:
                    same = False
                    break
            if same:
                return codes[w]
        at = (at + 1) & (SLOTS - 1)
    return UNKNOWN


def vocabulary(words: dict[str, int]) -> Column:
    """``(table, starts, text, codes)`` of ``words``: each word's place in ``text`` and
    its code, and a table of :data:`SLOTS` holding each word's number at its
    :func:`slot` (or the next free one), -1 in the others."""
    encoded = [w.encode() for w in words]
    starts = np.cumsum([0, *map(len, encoded)]).astype(np.int64)
    text = np.frombuffer(b"".join(encoded) + b"\0", dtype=np.uint8)
    table = np.full(SLOTS, -1, dtype=np.int64)
    for number in range(len(encoded)):
        at = slot(text, int(starts[number]), int(starts[number + 1]))
        while table[at] >= 0:
            at = (at + 1) & (SLOTS - 1)
        table[at] = number
    return table, starts, text, np.array(list(words.values()), dtype=np.int64)


@kernel
def _code(column: Column, row: int, vocabulary: Column, null: int) -> int:
    """The code of the string at ``row`` (``null`` for a null)."""
    offsets, data, bits, offset = column
    at = offset + row
    if not _valid(bits, at):
        return null
    return _word(data, offsets[at], offsets[at + 1], vocabulary)


@kernel
def tally(ordinal: np.ndarray, first: int, counts: np.ndarray) -> int:
    """``counts[k]``: the rows of ordinal ``first + k``; returns how many in all."""
    n = counts.shape[0]
    for k in range(n):
        counts[k] = 0
    total = 0
    for r in range(ordinal.shape[0]):
        o = ordinal[r] - first
        if 0 <= o < n:
            counts[o] += 1
            total += 1
    return total


@kernel
def place(ordinal: np.ndarray, within: np.ndarray, first: int, counts: np.ndarray,
          cursor: np.ndarray, rows: np.ndarray) -> None:
    """``rows``: the row numbers of ordinals ``first ...`` (``counts`` of each, from
    :func:`tally`), by ordinal then ``within`` (a stable sort: equal keys keep their
    order). ``cursor``: scratch, one per ordinal."""
    n = counts.shape[0]
    at = 0
    for k in range(n):
        cursor[k] = at
        at += counts[k]
    for r in range(ordinal.shape[0]):
        o = ordinal[r] - first
        if 0 <= o < n:
            rows[cursor[o]] = r
            cursor[o] += 1
    at = 0
    for k in range(n):
        for i in range(at + 1, at + counts[k]):
            row = rows[i]
            key = within[row]
            j = i - 1
            while j >= at and within[rows[j]] > key:
                rows[j + 1] = rows[j]
                j -= 1
            rows[j + 1] = row
        at += counts[k]


@kernel
def fill_hands(h: np.ndarray, first: int, seat_counts: np.ndarray,
               event_counts: np.ndarray, small: Column, big: Column,
               ante: Column, button: Column, jackpot: Column,
               carried: Column, pot: Column, rake: Column, time: Column,
               first_line: Column, joker: Column, carried_out: Column,
               game: Column, openers: Column, table_id: Column,
               hand_id: Column, games: Column, openers_codes: Column,
               absent: int, default_game: int) -> int:
    """The hand rows ``first ...`` of their table (in ordinal order there). Returns how
    many words were unknown (a game other than those of ``games`` is ``default_game``)."""
    unknown = 0
    seat_at = event_at = 0
    for k in range(h.shape[0]):
        r = first + k
        for c in range(h.shape[1]):
            h[k, c] = 0
        h[k, H_STATUS] = 0
        h[k, H_SMALL] = _int(small, r, 0)
        h[k, H_BIG] = _int(big, r, 0)
        h[k, H_ANTE] = _int(ante, r, 0)
        h[k, H_BUTTON] = _int(button, r, 0)
        h[k, H_JACKPOT] = _int(jackpot, r, 0)
        h[k, H_CARRIED] = _int(carried, r, 0)
        h[k, H_POT] = _int(pot, r, 0)
        h[k, H_RAKE] = _int(rake, r, 0)
        h[k, H_TIME] = _int(time, r, 0)
        h[k, H_FIRST_LINE] = _int(first_line, r, 0)
        h[k, H_JOKER] = _flag(joker, r)
        h[k, H_CARRIED_OUT] = _int(carried_out, r, -1)
        g = _code(game, r, games, default_game)
        h[k, H_GAME] = default_game if g == UNKNOWN else g
        o = _code(openers, r, openers_codes, absent)
        unknown += o == UNKNOWN
        h[k, H_OPENERS] = o
        h[k, H_TABLE_HASH] = _hash(table_id, r)
        h[k, H_HAND_HASH] = _hash(hand_id, r)
        h[k, H_BYTE_START] = -1
        h[k, H_BYTE_END] = -1
        h[k, H_SEAT_START] = seat_at
        h[k, H_SEAT_COUNT] = seat_counts[k]
        h[k, H_EVENT_START] = event_at
        h[k, H_EVENT_COUNT] = event_counts[k]
        seat_at += seat_counts[k]
        event_at += event_counts[k]
    return unknown


@kernel
def fill_seats(s: np.ndarray, rows: np.ndarray, seat: Column, stack: Column,
               player: Column) -> None:
    """The seat rows ``rows`` of their table, in that order."""
    for k in range(rows.shape[0]):
        r = rows[k]
        s[k, S_SEAT] = _int(seat, r, 0)
        s[k, S_STACK] = _int(stack, r, 0)
        s[k, S_PLAYER_HASH] = _hash(player, r)


@kernel
def _cards(lists: Column, r: int, vocabulary: Column,
           cards: np.ndarray, at: int) -> tuple[int, int]:
    """The card list at ``r`` coded into ``cards`` from ``at``: its length (-1 for a
    null) and how many cards were unknown."""
    offsets, bits, offset, strings = lists
    i = offset + r
    if not _valid(bits, i):
        return -1, 0
    unknown = 0
    lo, hi = offsets[i], offsets[i + 1]
    for k in range(lo, hi):
        code = _code(strings, k, vocabulary, 0)
        unknown += code == UNKNOWN
        cards[at + k - lo] = code
    return hi - lo, unknown


@kernel
def fill_events(e: np.ndarray, cards: np.ndarray, index: np.ndarray,
                rows: np.ndarray, action_index: Column, line: Column,
                section: Column, actor: Column, verb: Column,
                seat: Column, amount: Column, to_amount: Column,
                all_in: Column, side_pot: Column, card_lists: Column,
                drawn_lists: Column, sections: Column, actors: Column,
                verbs: Column, card_codes: Column) -> tuple[int, int]:
    """The line rows ``rows`` of their table, in that order, each line's cards then its
    drawn cards laid out in ``cards`` one line after another (``index``: each line's
    action index). Returns the cards laid out and how many words were unknown."""
    unknown = 0
    at = 0
    for k in range(rows.shape[0]):
        r = rows[k]
        index[k] = _int(action_index, r, 0)
        sec = _code(section, r, sections, 0)
        act = _code(actor, r, actors, 0)
        vrb = _code(verb, r, verbs, 0)
        unknown += (sec == UNKNOWN) + (act == UNKNOWN) + (vrb == UNKNOWN)
        e[k, E_SECTION] = sec
        e[k, E_ACTOR] = act
        e[k, E_VERB] = vrb
        e[k, E_SEAT] = _int(seat, r, 0)
        e[k, E_AMOUNT] = _int(amount, r, -1)
        e[k, E_TO_AMOUNT] = _int(to_amount, r, -1)
        e[k, E_ALL_IN] = _flag(all_in, r)
        e[k, E_SIDE_POT] = _int(side_pot, r, 0)
        e[k, E_LINE] = _int(line, r, 0)
        e[k, E_READING] = READING_NONE
        count, bad = _cards(card_lists, r, card_codes, cards, at)
        e[k, E_CARDS_START] = at
        e[k, E_CARDS_COUNT] = count
        at += max(count, 0)
        drawn, worse = _cards(drawn_lists, r, card_codes, cards, at)
        e[k, E_DRAWN_START] = at
        e[k, E_DRAWN_COUNT] = drawn
        at += max(drawn, 0)
        unknown += bad + worse
    return at, unknown
