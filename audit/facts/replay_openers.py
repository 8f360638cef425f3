"""The openers of each seat in the compiled replay: did it hold them, did it show them.

:func:`write_openers` fills the seats table's ``had_openers`` and ``proof`` (a
:class:`~audit.facts.tables.Known`), the answers of ``had_openers`` and ``proof`` in
:mod:`audit.rules._openers` under the deal's minimum (``hands.required``) and the
house's bobtail rule, from the seat's card ranges and its ``shows openers`` lines.
The openers tests are :mod:`audit.facts.evaluate`'s (equal to
:mod:`audit.opening` on every hand; -1 where the reference raises).

Card ranges are ``(start, count)`` of the facts' card array; the work buffers hold
copies, so the multiset differences (``minus``) can remove cards in place.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from audit.facts.evaluate import holds_openers, is_openers
from audit.facts.replay_state import UNKNOWN_CARD, inline_kernel, kernel
from audit.facts.tables import Known
from ingest.scan.layout import ACTOR_SEAT, V_SHOWS_OPENERS

Cards = npt.NDArray[np.int8]
Table = Any  # a fact table (numpy record array)
Record = Any

_YES, _NO, _UNKNOWN = int(Known.YES), int(Known.NO), int(Known.UNKNOWN)


@kernel
def _copy(buf: Cards, size: int, cards: Cards, start: int, count: int) -> int:
    """Append ``cards[start:start + count]`` to ``buf[:size]``; the new size."""
    for i in range(max(count, 0)):
        buf[size + i] = cards[start + i]
    return size + max(count, 0)


@kernel
def _known(buf: Cards, size: int) -> bool:
    for i in range(size):  # noqa: SIM110 (a plain loop compiles best)
        if buf[i] == UNKNOWN_CARD:
            return False
    return True


@kernel
def _minus(buf: Cards, size: int, cards: Cards, start: int, count: int) -> int:
    """``buf[:size]`` less the multiset ``cards[start:start + count]``, in place; -1 when
    ``buf`` lacks one of them (:func:`audit.replay.cards.minus`)."""
    for i in range(start, start + max(count, 0)):
        card = cards[i]
        found = -1
        for j in range(size):
            if buf[j] == card:
                found = j
                break
        if found < 0:
            return -1
        for j in range(found, size - 1):
            buf[j] = buf[j + 1]
        size -= 1
    return size


@kernel
def _valid_openers(buf: Cards, size: int, minimum: int, bobtail: bool) -> bool:
    """``holds_openers``, reading repeated or impossible cards as no proof at all."""
    return size <= 5 and holds_openers(buf, 0, size, minimum, bobtail) == 1


@inline_kernel
def _kept(pool: Cards, seat: Record, shown_start: int, shown_count: int, kept: Cards,
          work: Cards) -> int:
    """The cards the seat kept, read off its shown hand, into ``kept``; -1 if unreadable.

    The shown cards less those drawn; or, where the drawn cards are unrecorded, the dealt
    cards less the discards when the shown hand holds them all.
    """
    size = _copy(work, 0, pool, seat.drawn_start, seat.drawn_count)
    size = _copy(work, size, pool, seat.fifth_start, seat.fifth_count)
    if _known(work, size):
        got = _copy(kept, 0, pool, shown_start, shown_count)
        got = _minus(kept, got, pool, seat.drawn_start, seat.drawn_count)
        if got >= 0:
            got = _minus(kept, got, pool, seat.fifth_start, seat.fifth_count)
        if got >= 0:
            return got
    dealt = seat.dealt_hand_count
    discards = _copy(work, 0, pool, seat.discards_start, seat.discards_count)
    if dealt < 0 or not _known(work, discards):
        return -1
    rest = _copy(kept, 0, pool, seat.dealt_hand_start, dealt)
    rest = _minus(kept, rest, pool, seat.discards_start, seat.discards_count)
    if rest < 0:
        return -1
    shown = _copy(work, 0, pool, shown_start, shown_count)
    if _minus(work, shown, kept, 0, rest) < 0:
        return -1
    return rest


@inline_kernel
def proof(pool: Cards, actions: Table, first: int, count: int, n: int, seat: Record,
          minimum: int, bobtail: bool, kept: Cards, work: Cards) -> int:
    """Did seat ``n`` show openers (R-JB 3): a ``Known`` value (``_openers.proof``)."""
    dealt = seat.dealt_hand_count
    unknown = False
    for e in range(first, first + count):
        a = actions[e]
        if a.verb != V_SHOWS_OPENERS or a.actor != ACTOR_SEAT or a.seat != n:
            continue
        size = _copy(work, 0, pool, a.cards_start, a.cards_count)
        if not _known(work, size):
            unknown = True
        elif _valid_openers(work, size, minimum, bobtail):
            if dealt < 0:
                return _YES
            rest = _copy(kept, 0, pool, seat.dealt_hand_start, dealt)
            if _minus(kept, rest, work, 0, size) >= 0:
                return _YES
    if seat.shown_index < 0:
        return _UNKNOWN if unknown else _NO
    shown = actions[first + seat.shown_index]
    shown_start, shown_count = shown.cards_start, max(shown.cards_count, 0)
    got = _kept(pool, seat, shown_start, shown_count, kept, work)
    if got < 0:
        size = _copy(work, 0, pool, shown_start, shown_count)
        size = _copy(work, size, pool, seat.drawn_start, seat.drawn_count)
        size = _copy(work, size, pool, seat.fifth_start, seat.fifth_count)
        unknown = unknown or not _known(work, size)
        return _UNKNOWN if unknown else _NO
    if _known(kept, got) and _valid_openers(kept, got, minimum, bobtail):
        return _YES  # the cards it kept were dealt to it and already open
    size = _copy(kept, got, pool, seat.discards_start, seat.discards_count)
    if not _known(kept, size):
        unknown = True
    elif size == 5 and _valid_openers(kept, size, minimum, bobtail):
        return _YES
    return _UNKNOWN if unknown else _NO


@inline_kernel
def _openers_in(pool: Cards, start: int, count: int, minimum: int, bobtail: bool,
                work: Cards, index: npt.NDArray[np.int64]) -> int:
    """``_openers.openers_in`` of the dealt cards: 1 / 0, -1 where the reference raises.

    More than five cards: some five of them in ``itertools.combinations`` order; the
    first combination that raises decides, as ``any`` over them does.
    """
    if count == 5:
        return is_openers(pool, start, count, minimum, bobtail)
    if count < 5:
        return holds_openers(pool, start, count, minimum, bobtail)
    for i in range(5):
        index[i] = i
    while True:
        for i in range(5):
            work[i] = pool[start + index[i]]
        got = is_openers(work, 0, 5, minimum, bobtail)
        if got != 0:
            return got
        i = 4
        while i >= 0 and index[i] == count - 5 + i:
            i -= 1
        if i < 0:
            return 0
        index[i] += 1
        for j in range(i + 1, 5):
            index[j] = index[j - 1] + 1


@inline_kernel
def kept_openers(pool: Cards, actions: Table, first: int, seat: Record, minimum: int,
                 bobtail: bool, kept: Cards) -> int:
    """Do the cards the seat kept through the draw hold openers (R-JB 10): a ``Known``.

    YES when its shown hand less the cards it drew is known and holds openers; else
    from the cards dealt less the discards (every discard among them); UNKNOWN when
    neither can be read.
    """
    if seat.shown_index >= 0:
        shown = actions[first + seat.shown_index]
        size = _copy(kept, 0, pool, shown.cards_start, shown.cards_count)
        size = _minus(kept, size, pool, seat.drawn_start, seat.drawn_count)
        if size >= 0:
            size = _minus(kept, size, pool, seat.fifth_start, seat.fifth_count)
        if size >= 0 and _known(kept, size) and _valid_openers(kept, size, minimum, bobtail):
            return _YES
    if seat.dealt_hand_count < 0:
        return _UNKNOWN
    size = _copy(kept, 0, pool, seat.discards_start, seat.discards_count)
    if not _known(kept, size):
        return _UNKNOWN
    size = _copy(kept, 0, pool, seat.dealt_hand_start, seat.dealt_hand_count)
    size = _minus(kept, size, pool, seat.discards_start, seat.discards_count)
    if size < 0:
        return _UNKNOWN
    held = holds_openers(kept, 0, size, minimum, bobtail)
    return _UNKNOWN if held < 0 else _YES if held == 1 else _NO


@inline_kernel
def write_openers(pool: Cards, hand: Record, seats: Table, actions: Table, bobtail: bool,
                  kept: Cards, work: Cards, index: npt.NDArray[np.int64]) -> None:
    """Fill ``had_openers`` and ``proof`` of the hand's seats."""
    minimum = hand.required
    first, count = hand.action_start, hand.action_count
    shows = False  # a hand without a shows openers line: no seat's lines need reading
    for e in range(first, first + count):
        if actions[e].verb == V_SHOWS_OPENERS:
            shows = True
            break
    for r in range(hand.seat_start, hand.seat_start + hand.seat_count):
        seat = seats[r]
        shown = proof(pool, actions, first, count if shows else 0, seat.seat, seat, minimum,
                      bobtail, kept, work)
        seat.proof = shown
        if seat.dealt_hand_count >= 0:
            held = _openers_in(pool, seat.dealt_hand_start, seat.dealt_hand_count, minimum,
                               bobtail, work, index)
            seat.had_openers = _UNKNOWN if held < 0 else _YES if held == 1 else _NO
        else:
            seat.had_openers = _YES if shown == _YES else _UNKNOWN
        seat.kept_openers = kept_openers(pool, actions, first, seat, minimum, bobtail, kept)
