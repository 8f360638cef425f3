"""One row per deal, for the deal-sequence (J) rules: a table's deals in time order.

The J rules compare each deal with the one before it at its table. They read two
small tables made from a batch's facts (:func:`deals_of`), which stack over every
batch of a run (:func:`stack`) however the input was cut into files or units:

``deals`` (:data:`DEAL`)
    one row per hand: its header, where it is in the input (``place``), and what the
    next deal needs from it (chips carried forward, forfeited money, its antes, the
    opener found without openers after the draw ...);
``seats`` (:data:`DEAL_SEAT`)
    one row per seat of each deal: the player, dealt in or not, the ante it paid, the
    lines a finding about it points to.

:func:`pair` puts the deals in order (table, ``Time``, hand id, as
:func:`audit.engine.sequence_pairs` does), keeps the first copy of a hand given twice,
and gives each deal the row of the one before it at its table (``previous``, -1 on a
table's first deal) -- the ``shift`` the J rules are written against.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from audit.facts.context import Batch, IntArray
from ingest.scan.layout import SEC_ANTES, SEC_DRAW
from schemas.records import Verb

I1, I4, I8, B = np.int8, np.int32, np.int64, np.bool_

DEAL = np.dtype([
    ("table", I8), ("time", I8), ("hand_hash", I8),
    ("place", I8),  # the hand's place in the input (the caller's key: results go there)
    ("batch", I4), ("hand", I4),  # the batch it came from and its row there (for labels)
    ("replayed", B),
    ("seat_start", I4), ("seat_count", I4),
    ("seat_mask", I4),  # the seated seat numbers, bit n for seat n
    # the header
    ("jackpot", I4), ("button", I1), ("ante", I8), ("carried", I8), ("carried_out", I8),
    ("game", I1), ("openers", I1), ("first_line", I4),
    # what the deal leaves the next one
    ("misdealt", B), ("passed_out", B),
    ("carried_forward", I8),  # the chips it leaves in the pot for the next deal
    ("forfeited", I8),  # money lost to the pot by a ruling, in a carried pot (J506)
    # its antes (lines ``antes X`` with X > 0) and where play went on after them
    ("antes_total", I8), ("antes_count", I4),
    ("antes_seats", I8),  # their seats in log order, four bits each (the first sixteen)
    ("first_ante_index", I4),
    ("first_ante_line", I4), ("first_ante_seat", I1),
    ("after_antes_index", I4), ("after_antes_line", I4),
    # the opener, and the floor finding it without openers once the draw began (J508)
    ("original_opener", I1), ("opens_line", I4),
    ("found_unproven_index", I4), ("found_unproven_line", I4),
], align=True)

DEAL_SEAT = np.dtype([
    ("deal", I4), ("seat", I1), ("player", I8), ("dealt_in", B), ("ante", I8),
    ("stack", I8), ("penalties", I8), ("false_opener", B),
    # its first ANTES or DEALT line (where a finding about the seat points), its last
    # ANTES line, and the line where it opened or declared openers all-in
    ("anchor_index", I4), ("anchor_line", I4), ("ante_index", I4), ("ante_line", I4),
    ("all_in_declaration_line", I4),
], align=True)

_NONE = {"first_ante_index": -1, "first_ante_line": -1, "after_antes_index": -1,
         "after_antes_line": -1, "opens_line": -1, "found_unproven_index": -1,
         "found_unproven_line": -1}
_SEAT_NONE = {"anchor_index": -1, "anchor_line": -1, "ante_index": -1, "ante_line": -1,
              "all_in_declaration_line": -1}


#: A deal table: one contiguous column per field of its dtype (:data:`DEAL`,
#: :data:`DEAL_SEAT`), written and read a column at a time, never a row at a time.
Frame = dict[str, np.ndarray]


def new_frame(dtype: np.dtype, rows: int, none: dict[str, int] | None = None) -> Frame:
    """``rows`` fresh rows of a deal table: zeros, and the columns of ``none`` filled."""
    frame = {}
    for name in dtype.names or ():
        value = (none or {}).get(name, 0)
        frame[name] = np.full(rows, value, dtype=dtype.fields[name][0])  # type: ignore[index]
    return frame


@dataclass(slots=True)
class Deals:
    """The deal tables of one or more batches (see the module docstring)."""

    deals: Frame
    seats: Frame

    def __len__(self) -> int:
        return len(self.deals["place"])


def _first(keys: IntArray, values: IntArray, size: int) -> IntArray:
    """Per key (0..size-1) the value of its first row (rows in log order); -1 if none."""
    out = np.full(size, -1, dtype=np.int64)
    out[keys[::-1]] = values[::-1]  # numpy writes in order: the first row of a key stays
    return out


def _last(keys: IntArray, values: IntArray, size: int) -> IntArray:
    out = np.full(size, -1, dtype=np.int64)
    out[keys] = values  # numpy writes in order: the last row of a key stays
    return out


def deals_of(ctx: Batch, places: IntArray, batch: int = 0) -> Deals:
    """The deal tables of every hand of ``ctx`` (``places``: each hand's input key)."""
    h, a, s = ctx.hands, ctx.actions, ctx.seats
    n = len(ctx)
    deals = new_frame(DEAL, n, _NONE)
    for name in ("table", "time", "hand_hash", "replayed", "seat_start", "seat_count",
                 "jackpot", "button", "ante", "carried", "carried_out", "game", "openers",
                 "first_line", "original_opener"):
        deals[name][:] = getattr(h, name if name != "hand_hash" else "hand_hash")
    deals["place"][:], deals["batch"][:], deals["hand"][:] = places, batch, np.arange(n)
    misdealt = h.misdeal_index >= 0
    carried_out = h.carried_out >= 0
    deals["misdealt"][:] = misdealt
    deals["passed_out"][:] = carried_out & ~misdealt
    deals["carried_forward"][:] = np.where(carried_out, h.carried_out,
                                        np.where(misdealt, h.carried, 0))
    dead = np.where(s.dead, np.maximum(s.total - s.ante, 0), 0)
    dead_money = np.bincount(s.hand, weights=dead, minlength=n).astype(np.int64)
    deals["forfeited"][:] = np.where(carried_out & ~misdealt, h.penalties + dead_money, 0)
    antes = ctx.rows(Verb.ANTES)
    antes = antes[a.amount[antes] > 0]
    deals["seat_mask"][:] = np.bincount(s.hand, weights=np.left_shift(1, s.seat.astype(np.int64)),
                                     minlength=n).astype(np.int64)
    deals["antes_total"][:] = np.bincount(a.hand[antes], weights=a.amount[antes], minlength=n)
    rank = np.arange(len(antes)) - _first(a.hand[antes], np.arange(len(antes)), n)[a.hand[antes]]
    packed = np.where(rank < 16, np.left_shift(a.seat[antes].astype(np.int64), 4 * rank), 0)
    seats_packed = np.zeros(n, dtype=np.int64)  # integers: too wide for bincount's floats
    np.add.at(seats_packed, a.hand[antes], packed)
    deals["antes_seats"][:] = seats_packed
    deals["antes_count"][:] = np.bincount(a.hand[antes], minlength=n)
    first = _first(a.hand[antes], antes, n)
    has = first >= 0
    deals["first_ante_index"][has] = a.index[first[has]]
    deals["first_ante_line"][has] = a.line[first[has]]
    deals["first_ante_seat"][has] = a.seat[first[has]]
    later = np.flatnonzero(a.section != SEC_ANTES)
    first = _first(a.hand[later], later, n)
    has = first >= 0
    deals["after_antes_index"][has] = a.index[first[has]]
    deals["after_antes_line"][has] = a.line[first[has]]
    opened = h.opens_index >= 0
    deals["opens_line"][opened] = a.line[h.action_start[opened] + h.opens_index[opened]]
    rulings = ctx.rows(Verb.FALSE_OPENERS)
    rulings = rulings[(a.section[rulings] >= SEC_DRAW)
                      & (a.seat[rulings] == h.original_opener[a.hand[rulings]])
                      & (h.original_opener[a.hand[rulings]] != 0)]
    first = _first(a.hand[rulings], rulings, n)
    has = first >= 0
    deals["found_unproven_index"][has] = a.index[first[has]]
    deals["found_unproven_line"][has] = a.line[first[has]]
    return Deals(deals, _seats_of(ctx))


def _seats_of(ctx: Batch) -> Frame:
    a, s = ctx.actions, ctx.seats
    seats = new_frame(DEAL_SEAT, len(s), _SEAT_NONE)
    seats["deal"][:], seats["seat"][:], seats["player"][:] = s.hand, s.seat, s.player
    seats["stack"][:] = s.start_stack
    for name in ("dealt_in", "ante", "penalties", "false_opener"):
        seats[name][:] = getattr(s, name)
    size = len(ctx) * 16
    key_of_seat = s.hand.astype(np.int64) * 16 + s.seat

    def put(rows: IntArray, pick: Callable[[IntArray, IntArray, int], IntArray],
            index: str, line: str | None) -> None:
        keys = a.hand[rows].astype(np.int64) * 16 + a.seat[rows]
        chosen = pick(keys, rows, size)[key_of_seat]
        has = chosen >= 0
        seats[index][has] = a.index[chosen[has]]
        if line is not None:
            seats[line][has] = a.line[chosen[has]]

    # the first ANTES or DEALT line: the earlier of each verb's first (no sort of both)
    first_ante, first_dealt = (_first(a.hand[rows].astype(np.int64) * 16 + a.seat[rows], rows,
                                      size)[key_of_seat]
                               for rows in (ctx.rows(Verb.ANTES), ctx.rows(Verb.DEALT)))
    anchor = np.where((first_ante >= 0) & ((first_dealt < 0) | (first_ante < first_dealt)),
                      first_ante, first_dealt)
    has = anchor >= 0
    seats["anchor_index"][has] = a.index[anchor[has]]
    seats["anchor_line"][has] = a.line[anchor[has]]
    put(ctx.rows(Verb.ANTES), _last, "ante_index", "ante_line")
    declaring = ctx.rows(Verb.OPENS, Verb.DECLARES_OPENERS)
    declaring = declaring[a.says_all_in[declaring] | a.all_in[declaring]]
    keys = a.hand[declaring].astype(np.int64) * 16 + a.seat[declaring]
    chosen = _first(keys, declaring, size)[key_of_seat]
    seats["all_in_declaration_line"][chosen >= 0] = a.line[chosen[chosen >= 0]]
    return seats


def stack(parts: Sequence[Deals]) -> Deals:
    """The deal tables of several batches as one (seat rows renumbered)."""
    if not parts:
        return Deals(new_frame(DEAL, 0, _NONE), new_frame(DEAL_SEAT, 0, _SEAT_NONE))
    deals = {name: np.concatenate([p.deals[name] for p in parts]) for name in parts[0].deals}
    seats = {name: np.concatenate([p.seats[name] for p in parts]) for name in parts[0].seats}
    counts = np.array([len(p) for p in parts])
    offsets = np.repeat(np.cumsum(counts) - counts, [len(p.seats["deal"]) for p in parts])
    seats["deal"] += offsets
    seat_counts = np.array([len(p.seats["deal"]) for p in parts])
    deals["seat_start"] += np.repeat(np.cumsum(seat_counts) - seat_counts, counts)
    return Deals(deals, seats)


def pair(deals: Deals, hand_id: Callable[[int], str]) -> npt.NDArray[np.int64]:
    """Each deal's previous deal at its table (-1: first, or a repeated hand's later copy).

    Deals are ordered by table, ``Time``, then hand id (``hand_id(row)`` is asked only
    where two deals of a table share a time); a hand given twice is one deal, its first
    copy in the input.
    """
    d = deals.deals
    n = len(deals)
    previous = np.full(n, -1, dtype=np.int64)
    if not n:
        return previous
    order = np.lexsort((d["place"], d["time"], d["table"]))
    table, time = d["table"][order], d["time"][order]
    tied = np.zeros(n, dtype=bool)
    tied[1:] = (table[1:] == table[:-1]) & (time[1:] == time[:-1])
    tied[:-1] |= tied[1:]
    if tied.any():
        order = _by_hand_id(order, tied, table, time, hand_id)
    # A hand given twice: the later copies (by input place) drop out of the sequence.
    by_hand = np.lexsort((d["place"], d["hand_hash"]))
    again = np.zeros(n, dtype=bool)
    again[by_hand[1:]] = d["hand_hash"][by_hand][1:] == d["hand_hash"][by_hand][:-1]
    kept = order[~again[order]]
    same = d["table"][kept][1:] == d["table"][kept][:-1]
    previous[kept[1:][same]] = kept[:-1][same]
    previous[again] = -2  # not in the sequence at all
    return previous


def _by_hand_id(order: IntArray, tied: npt.NDArray[np.bool_], table: IntArray,
                time: IntArray, hand_id: Callable[[int], str]) -> IntArray:
    """Within each run of deals sharing a table and time, order by hand id."""
    out = order.copy()
    i = 0
    n = len(order)
    while i < n:
        if not tied[i]:
            i += 1
            continue
        j = i
        while j + 1 < n and table[j + 1] == table[i] and time[j + 1] == time[i]:
            j += 1
        run = order[i:j + 1].tolist()
        out[i:j + 1] = sorted(run, key=lambda r: (hand_id(r), r))
        i = j + 1
    return out
