"""The flat arrays the fast path works on, and how to build them from records.

A batch of hands is four numpy arrays, so compiled code can walk them:

- ``hands``: one row per hand, columns ``H_*``;
- ``seats``: one row per ``Seat N`` header line, columns ``S_*``;
- ``events``: one row per line inside a section, in log order, columns ``E_*``;
- ``cards``: every card of every line, as codes (``card_code``).

Codes mirror :mod:`schemas.records`: a verb is its position in :class:`Verb`, a
section its position in ``SECTION_ORDER``, a card its position in ``CARD_CODES``
(rank * 4 + suit for the 52 cards, 52 the joker, 53 unknown). :func:`from_records`
builds the arrays from parsed records (slowly, in Python): it is the reference the
compiled scanner is tested against, and what certifier tests start from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from audit.evaluator import HandCategory
from audit.profiles import (
    DiscardsSetAside,
    FalseOpenerStyle,
    PassedOutButton,
    Profile,
    ProgressionEnd,
)
from audit.rules.p404_hand_misread import reading_category
from schemas.records import (
    CARD_CODES,
    SECTION_ORDER,
    Actor,
    Game,
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

SEC_ANTES, SEC_DEAL, SEC_BEFORE_DRAW, SEC_DRAW, SEC_AFTER_DRAW, SEC_SHOWDOWN, SEC_RESULT = (
    range(len(SECTION_ORDER)))

ACTOR_SEAT, ACTOR_DEALER, ACTOR_FLOOR = 0, 1, 2
_ACTOR = {Actor.SEAT: ACTOR_SEAT, Actor.DEALER: ACTOR_DEALER, Actor.FLOOR: ACTOR_FLOOR}

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


def _reading(text: str | None) -> int:
    if text is None:
        return READING_NONE
    named: HandCategory | None = reading_category(text)
    return READING_UNKNOWN if named is None else named.level


def from_records(records: Sequence[HandRecord]) -> HandArrays:
    """The arrays of ``records``, in order (the reference for the compiled scanner)."""
    hands = np.zeros((len(records), H_COLUMNS), dtype=np.int64)
    seat_rows: list[tuple[int, int, int]] = []
    event_rows: list[list[int]] = []
    cards: list[int] = []
    for h, r in enumerate(records):
        row = hands[h]
        row[H_GAME] = GAME_DRAW_HIGH if r.game is Game.DRAW_HIGH else GAME_JACKS_OR_BETTER
        row[H_SMALL], row[H_BIG], row[H_ANTE] = r.limit_small, r.limit_big, r.ante
        row[H_JOKER], row[H_BUTTON], row[H_JACKPOT] = int(r.joker), r.button, r.jackpot
        row[H_OPENERS] = OPENERS_ABSENT if r.openers is None else OPENERS_CODE[r.openers]
        row[H_CARRIED], row[H_POT], row[H_RAKE] = r.carried, r.pot, r.rake
        row[H_CARRIED_OUT] = -1 if r.carried_out is None else r.carried_out
        row[H_TIME] = time_micros(r)
        row[H_TABLE_HASH] = fnv1a64(r.table_id.encode())
        row[H_HAND_HASH] = fnv1a64(r.hand_id.encode())
        row[H_SEAT_START], row[H_SEAT_COUNT] = len(seat_rows), len(r.seats)
        row[H_EVENT_START], row[H_EVENT_COUNT] = len(event_rows), len(r.actions)
        row[H_BYTE_START] = row[H_BYTE_END] = -1
        row[H_FIRST_LINE] = r.first_line
        seat_rows.extend((s.seat, s.stack, fnv1a64(s.player_id.encode())) for s in r.seats)
        for a in r.actions:
            ev = [0] * E_COLUMNS
            ev[E_SECTION] = SECTION_ORDER.index(a.section)
            ev[E_ACTOR] = _ACTOR[a.actor]
            ev[E_VERB] = V[a.verb]
            ev[E_SEAT] = a.seat or 0
            ev[E_AMOUNT] = -1 if a.amount is None else a.amount
            ev[E_TO_AMOUNT] = -1 if a.to_amount is None else a.to_amount
            ev[E_ALL_IN] = int(a.all_in)
            ev[E_SIDE_POT] = a.side_pot or 0
            ev[E_CARDS_START] = len(cards)
            ev[E_CARDS_COUNT] = -1 if a.cards is None else len(a.cards)
            cards.extend(CARD[c] for c in a.cards or ())
            ev[E_DRAWN_START] = len(cards)
            ev[E_DRAWN_COUNT] = -1 if a.drawn is None else len(a.drawn)
            cards.extend(CARD[c] for c in a.drawn or ())
            ev[E_READING] = _reading(a.reading) if a.verb is Verb.SHOWS else READING_NONE
            ev[E_LINE] = a.line
            event_rows.append(ev)
    return HandArrays(
        hands,
        np.array(seat_rows, dtype=np.int64).reshape(-1, S_COLUMNS),
        np.array(event_rows, dtype=np.int64).reshape(-1, E_COLUMNS),
        np.array(cards, dtype=np.int8),
    )


# ---- house knobs -------------------------------------------------------------------
K_CAP_RAISES = 0  # -1: no cap
K_AFTER_DRAW_MULTIPLE = 1
K_BOBTAIL = 2
K_ABANDON_PENALTY = 3  # -1: none
K_BUTTON_STAYS = 4  # 1: the button stays after a passed-out deal (Foster)
K_FATTENING = 5  # -1: none
K_ANTE_LIMIT = 6  # -1: none
K_FALSE_OPENER_STYLE = 7  # position in FalseOpenerStyle
K_PASSED_OPENERS_MAY_DECLARE = 8
K_UNPROVEN_PENALTY_ANTES = 9
K_UNPROVEN_REJACKPOT = 10
K_DISCARDS_SET_ASIDE = 11  # position in DiscardsSetAside
K_PROGRESSION_CYCLE = 12  # 1: cycle, 0: repeat the last entry
K_COLUMNS = 13


def profile_knobs(profile: Profile) -> tuple[IntArray, IntArray]:
    """The profile's knobs (``K_*``) and its openers progression (OPENERS codes)."""
    p = profile
    knobs = np.zeros(K_COLUMNS, dtype=np.int64)
    knobs[K_CAP_RAISES] = -1 if p.cap_raises is None else p.cap_raises
    knobs[K_AFTER_DRAW_MULTIPLE] = p.after_draw_multiple
    knobs[K_BOBTAIL] = int(p.bobtail)
    knobs[K_ABANDON_PENALTY] = -1 if p.abandon_penalty is None else p.abandon_penalty
    knobs[K_BUTTON_STAYS] = int(p.passed_out_button is PassedOutButton.STAYS)
    knobs[K_FATTENING] = -1 if p.fattening is None else p.fattening
    knobs[K_ANTE_LIMIT] = -1 if p.ante_limit is None else p.ante_limit
    knobs[K_FALSE_OPENER_STYLE] = list(FalseOpenerStyle).index(p.false_opener)
    knobs[K_PASSED_OPENERS_MAY_DECLARE] = int(p.passed_openers_may_declare)
    knobs[K_UNPROVEN_PENALTY_ANTES] = p.unproven_opener_penalty_antes
    knobs[K_UNPROVEN_REJACKPOT] = int(p.unproven_opener_rejackpot)
    knobs[K_DISCARDS_SET_ASIDE] = list(DiscardsSetAside).index(p.discards_set_aside)
    knobs[K_PROGRESSION_CYCLE] = int(p.progression_end is ProgressionEnd.CYCLE)
    progression = np.array([OPENERS_CODE[o] for o in p.openers_progression], dtype=np.int64)
    return knobs, progression
