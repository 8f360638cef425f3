"""The flat arrays of a batch of hands: the record layout the compiled scanner writes.

A batch of hands is four numpy arrays, so compiled code can walk them:

- ``hands``: one row per hand, columns ``H_*``;
- ``seats``: one row per ``Seat N`` header line, columns ``S_*``;
- ``events``: one row per line inside a section, in log order, columns ``E_*``;
- ``cards``: every card of every line, as codes (``card_code``).

Codes mirror :mod:`schemas.records`: a verb is its position in :class:`Verb`, a
section its position in ``SECTION_ORDER``, a card its position in ``CARD_CODES``
(rank * 4 + suit for the 52 cards, 52 the joker, 53 unknown). The layout lives
below both ingest and audit: the scanner (:mod:`ingest.scan.scanner`) fills it, the
audit's compiled code reads it; ``audit.facts.layout.from_records`` builds it from
parsed records (the reference the scanner is tested against).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from schemas.records import (
    CARD_CODES,
    SECTION_ORDER,
    Actor,
    HandRecord,
    Openers,
    Verb,
)

IntArray = npt.NDArray[np.int64]
CardArray = npt.NDArray[np.int8]

# ---- codes -------------------------------------------------------------------------
VERBS: tuple[Verb, ...] = tuple(Verb)
V = {verb: code for code, verb in enumerate(VERBS)}
V_ANTES = V[Verb.ANTES]
V_DEALT = V[Verb.DEALT]
V_CHECKS = V[Verb.CHECKS]
V_OPENS = V[Verb.OPENS]
V_BETS = V[Verb.BETS]
V_CALLS = V[Verb.CALLS]
V_RAISES = V[Verb.RAISES]
V_FOLDS = V[Verb.FOLDS]
V_SHOWS_OPENERS = V[Verb.SHOWS_OPENERS]
V_DISCARDS = V[Verb.DISCARDS]
V_STANDS_PAT = V[Verb.STANDS_PAT]
V_SHOWS = V[Verb.SHOWS]
V_MUCKS = V[Verb.MUCKS]
V_COLLECTS = V[Verb.COLLECTS]
V_BURNS = V[Verb.BURNS]
V_EXPOSES = V[Verb.EXPOSES]
V_DEALS = V[Verb.DEALS]
V_RETURNS = V[Verb.RETURNS]
V_MISDEAL = V[Verb.MISDEAL]
V_DRAWS_FIFTH = V[Verb.DRAWS_FIFTH]
V_SPLITS_OPENERS = V[Verb.SPLITS_OPENERS]
V_FALSE_OPENERS = V[Verb.FALSE_OPENERS]
V_PENALTY = V[Verb.PENALTY]
V_WITHDRAWS = V[Verb.WITHDRAWS]
V_DECLARES_OPENERS = V[Verb.DECLARES_OPENERS]
V_RETRIEVES_HAND = V[Verb.RETRIEVES_HAND]
V_FOULED_HAND = V[Verb.FOULED_HAND]
V_POT_PLAYS = V[Verb.POT_PLAYS]
V_POT_KILLED = V[Verb.POT_KILLED]
V_NOTE = V[Verb.NOTE]

SEC_ANTES, SEC_DEAL, SEC_BEFORE_DRAW, SEC_DRAW, SEC_AFTER_DRAW, SEC_SHOWDOWN, SEC_RESULT = (
    range(len(SECTION_ORDER)))

ACTOR_SEAT, ACTOR_DEALER, ACTOR_FLOOR = 0, 1, 2
ACTOR_CODE = {Actor.SEAT: ACTOR_SEAT, Actor.DEALER: ACTOR_DEALER, Actor.FLOOR: ACTOR_FLOOR}

CARD = {code: i for i, code in enumerate(CARD_CODES)}
JOKER_CODE = CARD["Jk"]  # 52
UNKNOWN_CODE = CARD["??"]  # 53

GAME_JACKS_OR_BETTER, GAME_DRAW_HIGH = 0, 1
#: ``Openers`` header: absent, or the minimum pair rank (9 = jacks ... 12 = aces), ANY.
OPENERS_ABSENT, OPENERS_ANY = -1, 0
OPENERS_CODE = {Openers.ANY: OPENERS_ANY, Openers.JJ: 9, Openers.QQ: 10, Openers.KK: 11,
                Openers.AA: 12}

#: ``shows [..] (READING)``: no reading, a reading naming no category, else the
#: category's level (0 high card ... 9 five aces, as ``HandCategory.level``).
READING_NONE, READING_UNKNOWN = -1, -2

# ---- hand columns ------------------------------------------------------------------
H_STATUS = 0  # 0: read by the scanner (always 0 from records); >0: a reason it was not
H_GAME = 1
H_SMALL = 2  # cents
H_BIG = 3
H_ANTE = 4
H_JOKER = 5  # 0/1
H_BUTTON = 6
H_JACKPOT = 7
H_OPENERS = 8  # OPENERS_* or 9..12
H_CARRIED = 9
H_POT = 10
H_RAKE = 11
H_CARRIED_OUT = 12  # -1: no `Passed out: carried` line
H_TIME = 13  # microseconds since the epoch, UTC
H_TABLE_HASH = 14  # fnv1a64 of the table id
H_HAND_HASH = 15  # fnv1a64 of the hand id
H_SEAT_START = 16
H_SEAT_COUNT = 17
H_EVENT_START = 18
H_EVENT_COUNT = 19
H_BYTE_START = 20  # the hand's text in its buffer (scanner only; -1 from records)
H_BYTE_END = 21
H_FIRST_LINE = 22
H_COLUMNS = 23

# ---- seat columns ------------------------------------------------------------------
S_SEAT = 0
S_STACK = 1
S_PLAYER_HASH = 2
S_COLUMNS = 3

# ---- event columns -----------------------------------------------------------------
E_SECTION = 0
E_ACTOR = 1
E_VERB = 2
E_SEAT = 3  # 0 when the line names no seat
E_AMOUNT = 4  # -1 when None
E_TO_AMOUNT = 5  # -1 when None
E_ALL_IN = 6
E_SIDE_POT = 7  # 0 for the main pot / none
E_CARDS_START = 8
E_CARDS_COUNT = 9  # -1 when the line has no card list
E_DRAWN_START = 10
E_DRAWN_COUNT = 11  # -1 when None
E_READING = 12
E_LINE = 13
E_COLUMNS = 14


@dataclass(slots=True)
class HandArrays:
    """A batch of hands as flat arrays (see the module docstring)."""

    hands: IntArray
    seats: IntArray
    events: IntArray
    cards: CardArray

    def __len__(self) -> int:
        return int(self.hands.shape[0])


def ranges(starts: IntArray, counts: IntArray) -> IntArray:
    """The positions of many ranges ``[starts[i], starts[i] + counts[i])``, one range after
    another: a hand's seat or event rows, a line's cards (a negative count, the layout's
    "absent", is an empty range)."""
    counts = np.maximum(counts, 0)
    before = np.cumsum(counts) - counts
    return np.repeat(starts - before, counts) + np.arange(int(counts.sum()), dtype=np.int64)


_FNV_OFFSET = 0xCBF29CE484222325
_FNV_PRIME = 0x100000001B3
_MASK = (1 << 64) - 1


def fnv1a64(data: bytes) -> int:
    """FNV-1a 64 of ``data`` as a signed int64 (the compiled scanner computes the same)."""
    h = _FNV_OFFSET
    for byte in data:
        h = ((h ^ byte) * _FNV_PRIME) & _MASK
    return h - (1 << 64) if h >= 1 << 63 else h


def time_micros(record: HandRecord) -> int:
    """``Time`` as microseconds since the epoch (UTC); a naive time is taken as UTC."""
    t = record.time
    seconds = int(t.timestamp()) if t.tzinfo else int(
        (t - t.replace(year=1970, month=1, day=1, hour=0, minute=0, second=0,
                       microsecond=0)).total_seconds())
    return seconds * 1_000_000 + t.microsecond


# ---- text spans (the scanner only): where a read hand's strings are in its buffer ----
# Byte offsets [start, end) in the scanned buffer, for the staging rows (the arrays
# above carry hashes of the ids, which the audit needs, not their text).
P_HAND = 0  # the hand id: start at P_HAND, end at P_HAND + 1
P_TABLE = 2
P_ROOM = 4  # -1, -1 when there is no Room line
P_DEALER = 6  # -1, -1 when there is no Dealer line
P_OFFSET_MINUTES = 8  # the UTC offset `Time` was written with
P_RESULT_LINE = 9  # the line of `Pot:`
P_COLUMNS = 10


@dataclass(slots=True)
class Spans:
    """Where the text of each read hand's strings is: per hand (``P_*`` columns), per
    seat row (the player id's start and end) and per event row (the text the line
    carries: a showdown reading, or a floor note's text; -1 when the line has none)."""

    hands: IntArray
    seats: IntArray
    events: IntArray
