"""The audit's side of the flat arrays: the profile knobs, and the arrays built from records.

The record layout itself (the ``H_*``, ``S_*``, ``E_*`` columns, the codes, the
:class:`HandArrays`) lives below ingest and audit in :mod:`ingest.scan.layout`, where
the compiled scanner fills it; it is re-exported here. :func:`from_records` builds the
arrays from parsed records (slowly, in Python): it is the reference the compiled
scanner is tested against, and how hands the scanner does not read (and JSON Lines
hands) reach the compiled replay. :func:`profile_knobs` gives the compiled replay the
house's knobs.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from audit.evaluator import HandCategory, reading_category
from audit.profiles import (
    DiscardsSetAside,
    FalseOpenerStyle,
    PassedOutButton,
    Profile,
    ProgressionEnd,
)
from ingest.scan.layout import *  # noqa: F403 (the record layout, re-exported)
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
    READING_UNKNOWN,
    S_COLUMNS,
    SECTION_ORDER,
    HandArrays,
    IntArray,
    V,
    fnv1a64,
    time_micros,
)
from schemas.records import Game, HandRecord, Verb


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
            ev[E_ACTOR] = ACTOR_CODE[a.actor]
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
