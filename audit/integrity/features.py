"""What every test reads from a batch: seats, draws and decisions with their people attached.

:class:`BatchView` joins the compiled pass (:mod:`audit.integrity.replay`) with the
batch's hands: each seat row gets its player, dealer, table, deck and the randomized
PIT of its dealt hand; each draw and each decision its hand and people. Hand rows are
global (``batch.first + row``) so evidence can name hands after the last batch.
:class:`Lookup` turns integers back into ids at the end of a run.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from audit.facts.evaluate import strengths_of_hands
from audit.integrity.frames import Batch, Names
from audit.integrity.laws import hand_law
from audit.integrity.prng import PURPOSE_DEALT, uniforms_of
from audit.integrity.replay import Replayed
from schemas.display import local_time_text

I32 = npt.NDArray[np.int32]
I64 = npt.NDArray[np.int64]


def pair_key(a: I64 | int, b: I64 | int) -> I64:
    """One int64 per (a, b) of non-negative ints below 2**31 (a in the high half)."""
    return (np.asarray(a, dtype=np.int64) << 32) | np.asarray(b, dtype=np.int64)


def split_key(key: I64) -> tuple[I64, I64]:
    """The (a, b) of :func:`pair_key`."""
    k = np.asarray(key, dtype=np.int64)
    return k >> 32, k & 0xFFFFFFFF


@dataclass
class BatchView:
    """A batch as the tests read it (see the module docstring)."""

    batch: Batch
    replayed: Replayed
    #: The dealer code of hands with no Dealer header (-1 if none): no dealer cell for them.
    no_dealer: int
    #: Global row of each hand of the batch.
    hand_row: I64
    #: Every seat's five dealt cards are known, in a regular hand.
    hand_complete: npt.NDArray[np.bool_]
    # per seat row
    seat_hand: I32
    seat_row: I64  #: global hand row of the seat's hand
    seat_player: I32
    seat_dealer: I32
    seat_table: I32
    seat_joker: npt.NDArray[np.bool_]
    seat_number: npt.NDArray[np.int8]
    #: Strength of the dealt hand (-1 unless five known cards in a regular hand).
    dealt_strength: I64
    #: Randomized PIT of the dealt hand against its deck's law (nan where not known).
    dealt_u: npt.NDArray[np.float64]
    # per draw
    draw_hand: I32
    draw_seat: I32  #: seat row
    draw_player: I32
    draw_dealer: I32
    draw_table: I32


def view(batch: Batch, replayed: Replayed, names: Names) -> BatchView:
    """Attach people and PITs to a replayed batch."""
    seats = replayed.seats
    seat_hand = seats.hand
    ok = seats.dealt_ok
    strength = np.full(len(seat_hand), -1, dtype=np.int64)
    if ok.any():
        strength[ok] = strengths_of_hands(seats.dealt[ok])
    u = np.full(len(seat_hand), np.nan)
    joker = batch.h_joker[seat_hand]
    for deck_joker in (False, True):
        pick = ok & (joker == deck_joker)
        if pick.any():
            law = hand_law(deck_joker)
            v = uniforms_of(batch.h_key[seat_hand[pick]], batch.s_seat[pick].astype(np.int64),
                            PURPOSE_DEALT)
            u[pick] = law.randomized_pit(strength[pick], v)
    draw_seat = replayed.draws.seat_row
    known = np.bincount(seat_hand, weights=ok, minlength=len(batch)).astype(np.int64)
    complete = (known == batch.h_seat_count) & ~replayed.irregular
    draw_hand = seat_hand[draw_seat]
    return BatchView(
        batch=batch, replayed=replayed, no_dealer=names.dealers.get("", -1),
        hand_row=batch.first + np.arange(len(batch), dtype=np.int64), hand_complete=complete,
        seat_hand=seat_hand, seat_row=batch.first + seat_hand.astype(np.int64),
        seat_player=batch.s_player, seat_dealer=batch.h_dealer[seat_hand],
        seat_table=batch.h_table[seat_hand], seat_joker=joker, seat_number=batch.s_seat,
        dealt_strength=strength, dealt_u=u,
        draw_hand=draw_hand, draw_seat=draw_seat, draw_player=batch.s_player[draw_seat],
        draw_dealer=batch.h_dealer[draw_hand], draw_table=batch.h_table[draw_hand],
    )


class Lookup:
    """Ids and times of a run's players, dealers, tables and hands, for cells and alerts."""

    def __init__(self, names: Names) -> None:
        self._names = names
        self._hand_ids: list[pa.Array] = []
        self._times: list[I64] = []
        self._offsets_min: list[npt.NDArray[np.int16]] = []
        self._offsets: list[int] = []
        self._players: list[str] = []
        self._dealers: list[str] = []
        self._tables: list[str] = []

    def add_batch(self, batch: Batch) -> None:
        """Remember a batch's hand ids and times (compactly, as Arrow strings).

        The times are copied: in the integrity worker a batch's arrays are views of the
        batch's whole mapped file (:mod:`audit.integrity.parallel`), and a view kept here
        would keep every batch's file mapped until the run ends."""
        self._offsets.append(batch.first)
        self._hand_ids.append(pa.array(batch.hand_ids, pa.string()))
        self._times.append(batch.h_time_ms.copy())
        self._offsets_min.append(batch.h_offset.copy())

    def freeze(self) -> None:
        """Build the index -> id tables once every batch has been read."""
        self._players = Names.invert(self._names.players)
        self._dealers = Names.invert(self._names.dealers)
        self._tables = Names.invert(self._names.tables)

    def player(self, code: int) -> str:
        """Player id of a code."""
        return self._players[int(code)]

    def dealer(self, code: int) -> str:
        """Dealer id of a code ('' for hands without a Dealer header)."""
        return self._dealers[int(code)]

    def table(self, code: int) -> str:
        """Table id of a code."""
        return self._tables[int(code)]

    def _locate(self, row: int) -> tuple[int, int]:
        batch = int(np.searchsorted(self._offsets, row, side="right")) - 1
        return batch, row - self._offsets[batch]

    def hand_id(self, row: int) -> str:
        """Hand id of a global hand row."""
        batch, at = self._locate(int(row))
        return str(self._hand_ids[batch][at].as_py())

    def time_text(self, row: int) -> str:
        """The hand's time as the room's clock showed it, with its offset (the project's one
        format: ``2026-11-28 21:04:12 -08:00``)."""
        batch, at = self._locate(int(row))
        ms = int(self._times[batch][at])
        return local_time_text(datetime.fromtimestamp(ms / 1000, UTC),
                               int(self._offsets_min[batch][at]))

    def time_ms(self, row: int) -> int:
        """The hand's time in milliseconds since the epoch."""
        batch, at = self._locate(int(row))
        return int(self._times[batch][at])
