"""The compiled replay's working state for one hand, and its card lists.

:mod:`audit.facts.replay` keeps, per hand, one :data:`SEAT_STATE` record per seat
number (rows 1..10; row 0 unused) and one :data:`ROUND_STATE` record: the fields of
:class:`audit.replay.SeatState` and the private betting-round state of
:class:`audit.replay.Replay` (``_bet``, ``_level``, ``_pending`` ...), sets of seats
as one flag per seat row. Each seat's card lists (dealt, discards, drawn, fifth, and
the discards it did not hold) live in ``lists[seat, kind, :]`` with their lengths in
``lengths[seat, kind]``, sized for the batch's largest hand.

The helpers here are the list operations of :mod:`audit.replay.cards` and
:meth:`audit.replay.SeatState.hand_after_draw`, in the same order (``list.remove``
takes the first match), so the compiled lists equal the reference's.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

UNKNOWN_CARD = 53  # audit.facts.layout.UNKNOWN_CODE
SLOTS = 11  # seat numbers 1..10 index the rows directly

# Kinds of card list.
DEALT, DISCARDS, DRAWN, FIFTH, MISMATCH = range(5)
KINDS = 5

B, I4, I8 = np.bool_, np.int32, np.int64

SEAT_STATE = np.dtype([
    ("seated", B), ("row", I4), ("position", I4), ("next", I4),
    ("dealt_in", B), ("folded", B), ("dead", B), ("fouled", B), ("false_opener", B),
    ("all_in", B), ("stood_pat", B), ("split_openers", B), ("mucked", B),
    ("stake", I8), ("total", I8), ("ante", I8), ("penalties", I8), ("withdrawn", I8),
    ("returned", I8), ("collected", I8), ("stack", I8),
    ("shown_index", I4), ("mucked_index", I4),
    # betting-round sets of Replay: _pending, _full_acted, _no_reraise
    ("pending", B), ("full_acted", B), ("no_reraise", B),
    # a fold or dead ruling so far (seats_at_draw's "gone"), and as the draw began
    ("gone", B), ("gone_at_draw", B),
    ("short_at_draw", B), ("stake_at_draw", I8), ("bet_at_draw", I8),
], align=True)

ROUND_STATE = np.dtype([
    ("street", I4), ("bet", I8), ("level", I8), ("multi", I8), ("ptr", I4),
    ("contenders", I4), ("round_start", I4), ("unit", I8), ("unit_before", I8),
    ("unit_after", I8), ("pot_open", B), ("opener", I4), ("original_opener", I4),
    ("opens_index", I4), ("opened_all_in", B), ("draw_index", I4), ("misdeal_index", I4),
    ("penalties", I8), ("count", I4), ("first_play", I4),
], align=True)

#: The decorator of the replay's compiled functions that allocate nothing: numba's
#: reference counting of the array arguments of a function it does not inline cost
#: more than half of the replay's time, and these functions never own an array.
_OPTIONS: dict[str, Any] = {"cache": True, "nogil": True, "_nrt": False}
kernel = njit(**_OPTIONS)
#: The decorator of the functions the replay calls per line or per seat: inlined (numba
#: IR) into their caller. A call passes every array exploded into its fields on the
#: stack (sixty words for a line's arguments), which cost the line loop half its time;
#: inlined into :func:`audit.facts.replay._replay_all` (itself without reference
#: counting), they cost nothing. Not for a function called from many places: each
#: inlined copy is compiled again.
inline_kernel = njit(**_OPTIONS, inline="always")

CardLists = npt.NDArray[np.int8]
Lengths = npt.NDArray[np.int64]


@inline_kernel
def mask_of(cards: npt.NDArray[np.int8], start: int, count: int) -> np.uint64:
    """The cards of a range as a set: bit ``code`` for each (``??`` is bit 53)."""
    mask = np.uint64(0)
    for i in range(start, start + max(count, 0)):
        mask |= np.uint64(1) << np.uint64(cards[i])
    return mask


@inline_kernel
def append(lists: CardLists, lengths: Lengths, n: int, kind: int,
           cards: npt.NDArray[np.int8], start: int, count: int) -> None:
    """Extend seat ``n``'s list ``kind`` with ``cards[start:start + count]``."""
    k = lengths[n, kind]
    for i in range(max(count, 0)):
        lists[n, kind, k + i] = cards[start + i]
    lengths[n, kind] = k + max(count, 0)


@inline_kernel
def _remove(buf: npt.NDArray[np.int8], size: int, card: int) -> int:
    """Remove the first ``card`` of ``buf[:size]``; the new size (unchanged if absent)."""
    for i in range(size):
        if buf[i] == card:
            for j in range(i, size - 1):
                buf[j] = buf[j + 1]
            return size - 1
    return size


@inline_kernel
def holds(buf: npt.NDArray[np.int8], size: int, card: int) -> bool:
    """``card in buf[:size]``."""
    for i in range(size):  # noqa: SIM110 (a plain loop compiles best)
        if buf[i] == card:
            return True
    return False


@inline_kernel
def known(buf: npt.NDArray[np.int8], size: int) -> bool:
    """No ``??`` in ``buf[:size]``."""
    return not holds(buf, size, UNKNOWN_CARD)


@inline_kernel
def hand_after_draw(lists: CardLists, lengths: Lengths, n: int,
                    out: npt.NDArray[np.int8]) -> int:
    """:meth:`SeatState.hand_after_draw` of seat ``n`` into ``out``; its length."""
    size = lengths[n, DEALT]
    for i in range(size):
        out[i] = lists[n, DEALT, i]
    for i in range(lengths[n, DISCARDS]):
        card = lists[n, DISCARDS, i]
        if holds(out, size, card):
            size = _remove(out, size, card)
        elif holds(out, size, UNKNOWN_CARD):
            size = _remove(out, size, UNKNOWN_CARD)
    for kind in (DRAWN, FIFTH):
        for i in range(lengths[n, kind]):
            out[size] = lists[n, kind, i]
            size += 1
    return size


@inline_kernel
def minus(buf: npt.NDArray[np.int8], size: int, lists: CardLists, lengths: Lengths, n: int,
          kind: int) -> int:
    """:func:`audit.replay.cards.minus` in place: ``buf[:size]`` less seat ``n``'s list
    ``kind``; -1 when the list holds a card ``buf`` lacks."""
    for i in range(lengths[n, kind]):
        card = lists[n, kind, i]
        if not holds(buf, size, card):
            return -1
        size = _remove(buf, size, card)
    return size
