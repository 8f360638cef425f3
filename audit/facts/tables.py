"""The fact tables: what the replay of a batch of hands establishes, as typed columns.

Every rule reads these tables and nothing else (plus the profile). Two producers
fill them and must agree exactly (``tests/audit/facts``):

- :func:`audit.facts.replay.replay_facts`, the compiled replay over the flat arrays
  of :mod:`audit.facts.layout` (the scanner's output, or ``from_records``);
- :func:`audit.facts.reference.reference_facts`, the readable Python replay
  (:class:`audit.replay.Replay`) over parsed records.

Four numpy record arrays and one card array (:class:`Facts`):

``hands`` (:data:`HAND`)
    one row per hand: the header, where its seats, actions and pots are, and the
    hand's replayed facts (opener, where the draw began, the misdeal, the chips in).
``actions`` (:data:`ACTION`)
    one row per line of play in log order: the line as written, then the betting
    state *before* it (whose turn, the bet to call, the raise count, the seat's
    stake and status) and what it moved, as :class:`audit.replay.Step` holds them.
``seats`` (:data:`SEAT`)
    one row per ``Seat N`` header line: the seat's state at the end of the hand and
    its cards (ranges of :attr:`Facts.cards`), the dealt and final hands and their
    strengths.
``pots`` (:data:`POT`)
    one row per pot (main pot 0, then side pots): amount, eligible seats, and the
    showdown for it (contenders, who should win, whose hand is unknown or fouled).
``cards``
    card codes (``schemas.records.CARD_CODES`` positions: rank * 4 + suit, 52 the
    joker, 53 unknown): the lines' cards first (the layout's ``cards``, so an action's
    ``cards_start`` indexes both), then each seat's lists in seat-row order.

Conventions: seat numbers are 1..10 and 0 means none; a line index or row of -1
means none; an amount of -1 means the log gave none; a card range with count -1 is
``None`` (count 0 is an empty list). Seat sets are bit masks (bit ``n`` for seat
``n``); card sets are masks too (bit = card code, 0..52, and bit 53 when the list holds
a ``??``: :func:`card_mask`). Strengths are :func:`audit.evaluator.evaluate`'s, or
:data:`INVALID` / :data:`UNKNOWN` / :data:`NOT_EVALUATED`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from audit.replay.state import Known, SeatStatus

I1, I4, I8, B, U8 = np.int8, np.int32, np.int64, np.bool_, np.uint64

#: Strength of cards that are not five distinct cards of the deck (evaluate raises).
INVALID = -1
#: Strength of cards the log does not give (``??``, or no cards at all).
UNKNOWN = -2
#: Strength of a line that is not a ``shows`` line (not evaluated).
NOT_EVALUATED = -3


HAND = np.dtype([
    # the header
    ("status", I1), ("game", I1), ("small", I8), ("big", I8), ("ante", I8), ("joker", B),
    ("button", I1), ("jackpot", I4), ("openers", I1), ("carried", I8), ("pot", I8),
    ("rake", I8), ("carried_out", I8), ("time", I8), ("table", I8), ("hand_hash", I8),
    ("first_line", I4),
    # False: not replayed (the scanner could not read it, or a seat number repeats)
    ("replayed", B),
    # where the hand's rows are
    ("seat_start", I4), ("seat_count", I4), ("action_start", I4), ("action_count", I4),
    ("pot_start", I4), ("pot_count", I4),
    # what the replay found
    ("required", I1),  # the minimum openers: the header, else the house progression
    ("opener", I1),  # the opener at the end (the declarer after a false opener)
    ("original_opener", I1), ("opens_index", I4), ("opened_all_in", B),
    ("draw_index", I4),  # first line of the draw (or of AFTER DRAW if nobody drew)
    ("misdeal_index", I4), ("pot_total", I8), ("penalties", I8),
    ("first_play", I4),  # the first player line after the deal
    # known cards named again by a line dealing, drawing or burning cards, or by a discard
    # that may reveal a seat's ?? cards, after an earlier such line named them
    ("cards_repeated", I4),
], align=True)

ACTION = np.dtype([
    # the line as the log gives it
    ("hand", I4), ("index", I4), ("line", I4), ("section", I1), ("actor", I1), ("verb", I1),
    ("seat", I1), ("amount", I8), ("to_amount", I8), ("says_all_in", B), ("side_pot", I4),
    ("cards_start", I4), ("cards_count", I4), ("drawn_start", I4), ("drawn_count", I4),
    ("reading", I1),
    # the state before the line (audit.replay.Step)
    ("street", I1), ("betting", B), ("turn", I1), ("in_turn", B), ("in_hand", B),
    ("status", I1), ("all_in", B), ("current_bet", I8), ("stake", I8), ("level", I4),
    ("multi_level", I4), ("contenders", I4), ("may_raise", B), ("pot_open", B),
    ("opener", I1), ("unit", I8),
    # what the line did
    ("chips", I8), ("level_after", I4), ("bet_after", I8), ("round_start", I4),
    ("position", I1),  # the seat's place clockwise from left of the button, -1: unseated
    ("received_start", I4), ("received_count", I4),  # cards handed off the deck, draw on
    ("strength", I4),  # a shows line's cards
    ("cards_mask", U8), ("drawn_mask", U8),  # the line's cards as a set (card masks)
], align=True)

SEAT = np.dtype([
    ("hand", I4), ("seat", I1), ("position", I1), ("player", I8), ("start_stack", I8),
    # the seat at the end of the hand (audit.replay.SeatState)
    ("dealt_in", B), ("folded", B), ("dead", B), ("fouled", B), ("false_opener", B),
    ("all_in", B), ("stood_pat", B), ("split_openers", B), ("mucked", B),
    ("ante", I8), ("total", I8), ("penalties", I8), ("withdrawn", I8), ("returned", I8),
    ("collected", I8), ("stack", I8),
    ("shown_index", I4), ("mucked_index", I4),  # the last shows / mucks line, -1: none
    # the draw
    ("at_draw", B),  # in the hand when the draw began (never after a misdeal)
    ("short_at_draw", B), ("stake_at_draw", I8), ("bet_at_draw", I8),
    # cards (ranges of Facts.cards)
    ("dealt_start", I4), ("dealt_count", I4), ("discards_start", I4), ("discards_count", I4),
    ("drawn_start", I4), ("drawn_count", I4), ("fifth_start", I4), ("fifth_count", I4),
    ("mismatch_start", I4), ("mismatch_count", I4),
    ("dealt_hand_start", I4), ("dealt_hand_count", I4),  # as the log proves it, -1: unknown
    ("final_start", I4), ("final_count", I4),
    ("dealt_strength", I4), ("final_strength", I4),
    ("dealt_mask", U8), ("discards_mask", U8), ("drawn_mask", U8), ("fifth_mask", U8),
    # openers under the deal's minimum and the house's bobtail rule (Known)
    ("had_openers", I1),  # the cards dealt were openers (or a valid proof shows them)
    ("proof", I1),  # the seat showed openers (shows openers, or its shown hand proves them)
    ("kept_openers", I1),  # the cards it kept through the draw hold openers (R-JB 10)
], align=True)

POT = np.dtype([
    ("hand", I4), ("number", I4), ("amount", I8), ("eligible", I4), ("cap", I8),
    # the showdown for this pot (bit masks of seats)
    ("contenders", I4), ("winners", I4), ("unknown", I4), ("fouled", I4), ("best", I4),
], align=True)

Table = npt.NDArray[np.void]

#: Columns whose "none" is not 0 (-1, or NOT_EVALUATED): what a fresh row holds.
_DEFAULTS: dict[np.dtype, dict[str, int]] = {
    HAND: {"opens_index": -1, "draw_index": -1, "misdeal_index": -1, "first_play": -1},
    ACTION: {"position": -1, "strength": NOT_EVALUATED},
    SEAT: {"shown_index": -1, "mucked_index": -1, "dealt_hand_count": -1, "final_count": -1,
           "dealt_strength": UNKNOWN, "final_strength": UNKNOWN},
    POT: {"cap": -1, "best": -1},
}


def new_table(dtype: np.dtype, rows: int) -> Table:
    """``rows`` fresh rows of a fact table: zeros, and each column's "none"."""
    table = np.zeros(rows, dtype=dtype)
    for name, value in _DEFAULTS.get(dtype, {}).items():
        table[name] = value
    return table
CardArray = npt.NDArray[np.int8]


@dataclass(slots=True)
class Facts:
    """The fact tables of a batch of hands (see the module docstring)."""

    hands: Table
    actions: Table
    seats: Table
    pots: Table
    cards: CardArray

    def __len__(self) -> int:
        return int(self.hands.shape[0])


__all__ = ["Known", "SeatStatus"]


def card_mask(codes: Iterable[int]) -> int:
    """The set of card codes as a mask (bit = code; ``??`` is bit 53)."""
    mask = 0
    for code in codes:
        mask |= 1 << int(code)
    return mask


def card_list(cards: CardArray, start: int, count: int) -> tuple[int, ...] | None:
    """The codes of one card range (None for a count of -1)."""
    if count < 0:
        return None
    return tuple(int(c) for c in cards[start:start + count])


def seats_of(mask: int) -> tuple[int, ...]:
    """The seat numbers of a bit mask, in increasing order."""
    return tuple(n for n in range(1, 11) if mask >> n & 1)


def take(facts: Facts, hands: Sequence[int]) -> Facts:
    """The facts of some hands (rows of ``facts.hands``, in the order given).

    Seat, action and pot rows follow their hands and are renumbered; the card array is
    shared as it is (card ranges keep their positions).
    """
    picked = np.asarray(hands, dtype=np.int64)
    out_hands = facts.hands[picked].copy()
    parts: dict[str, list[Table]] = {"actions": [], "seats": [], "pots": []}
    starts = {"actions": "action", "seats": "seat", "pots": "pot"}
    for name, prefix in starts.items():
        table = getattr(facts, name)
        first, count = out_hands[f"{prefix}_start"], out_hands[f"{prefix}_count"]
        rows = [np.arange(f, f + c) for f, c in zip(first.tolist(), count.tolist(), strict=True)]
        index = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
        part = table[index].copy()
        part["hand"] = np.repeat(np.arange(len(picked)), count)
        parts[name].append(part)
        out_hands[f"{prefix}_start"] = np.cumsum(count) - count
    return Facts(out_hands, parts["actions"][0], parts["seats"][0], parts["pots"][0],
                 facts.cards)
