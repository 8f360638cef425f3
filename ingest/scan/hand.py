"""Compiled reader of one hand chunk into the layout's rows (or a reason it did not).

The grammar read here is the canonical subset of :func:`ingest.parser.parse_hand`:
printable-ASCII lines with single spaces, the header (:mod:`ingest.scan.header`),
the seven section lines in order, the RESULT lines and every verb of the format's
players, dealer and floor (:mod:`ingest.scan.lines`). A line outside it gives the
chunk a positive status and no rows, and the caller hands the chunk to the reference
reader: being unread is always safe, reading differently from the reference never is.
"""

from __future__ import annotations

import numpy as np

from ingest.scan.header import (
    KEY_ANTE,
    KEY_BUTTON,
    KEY_DEALER,
    KEY_GAME,
    KEY_HAND,
    KEY_JACKPOT,
    KEY_JOKER,
    KEY_LIMIT,
    KEY_OPENERS,
    KEY_ROOM,
    KEY_SEAT,
    KEY_TABLE,
    KEY_TIME,
    REQUIRED_KEYS,
    header_line,
)
from ingest.scan.layout import (
    ACTOR_DEALER,
    ACTOR_FLOOR,
    ACTOR_SEAT,
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
    H_CARRIED,
    H_CARRIED_OUT,
    H_GAME,
    H_HAND_HASH,
    H_JACKPOT,
    H_JOKER,
    H_OPENERS,
    H_SMALL,
    H_TABLE_HASH,
    H_TIME,
    OPENERS_ABSENT,
    P_DEALER,
    P_HAND,
    P_OFFSET_MINUTES,
    P_RESULT_LINE,
    P_ROOM,
    P_TABLE,
    SEC_RESULT,
)
from ingest.scan.lines import (
    dealer_line,
    floor_line,
    line_end,
    player_line,
    result_line,
    section_line,
)
from ingest.scan.tokens import (
    READING_NONE,
    ST_BYTES,
    ST_HEADER,
    ST_LINE,
    ST_MISSING,
    ST_READ,
    ST_RESULT,
    ST_SECTION,
    card_code,
    kernel,
)


@kernel
def scan_hand(buf: np.ndarray, start: int, end: int, first_line: int, hand: np.ndarray,
              events: np.ndarray, n_events: int, cards: np.ndarray, n_cards: int,
              seat_stack: np.ndarray, seat_hash: np.ndarray, span: np.ndarray,
              event_spans: np.ndarray, seat_text: np.ndarray) -> tuple[int, int, int, int]:
    """Read the chunk buf[start:end] into ``hand`` (zeroed by the caller) and the event
    and card rows from n_events/n_cards: (status, seat mask, new n_events, new n_cards).

    Unless the status is ST_READ the rows written are garbage and the counts 0. The
    seats go to ``seat_stack``/``seat_hash``/``seat_text`` (by seat number, the mask
    says which); the caller writes the seat rows. ``span`` is the hand's row of text
    spans (``P_*``, set to -1 by the caller), ``event_spans`` the events' rows. The
    per-line readers take only the buffer and return values; every array write is
    here, which keeps the per-line calls cheap. The caller guarantees room for a row
    per line and a card per 3 bytes.
    """
    hand[H_JACKPOT] = 1
    hand[H_OPENERS] = OPENERS_ABSENT
    hand[H_CARRIED_OUT] = -1
    section = -1
    seen = 0
    seat_mask = 0
    result_seen = 0
    line = first_line
    pos = start
    while pos < end:
        ls = pos
        i, le = line_end(buf, pos, end)
        if i < 0:
            return ST_BYTES, 0, 0, 0
        # Blank, comment, indented or right-padded lines are the reference's to judge.
        if le == ls or buf[ls] == 32 or buf[ls] == 35 or buf[le - 1] == 32:
            return ST_BYTES, 0, 0, 0
        first = buf[ls]
        pos = i + 1
        line += 1
        if first == 42:  # "*"
            position = section_line(buf, ls, le)
            if position <= section:
                return ST_SECTION, 0, 0, 0
            if section < 0:
                if seen & REQUIRED_KEYS != REQUIRED_KEYS:
                    return ST_MISSING, 0, 0, 0
                seats_listed = 0
                for seat in range(1, 11):
                    seats_listed += (seat_mask >> seat) & 1
                if seats_listed < 2:
                    return ST_MISSING, 0, 0, 0
            section = position
            continue
        if section < 0:
            status, key, value, second, third, text_start, text_end = header_line(buf, ls, le)
            if status != ST_READ:
                return status, 0, 0, 0
            if key == KEY_SEAT:
                if seat_mask & (1 << value):
                    return ST_HEADER, 0, 0, 0  # the reference rejects a repeated seat
                seat_mask |= 1 << value
                seat_stack[value] = second
                seat_hash[value] = third
                seat_text[value, 0] = text_start
                seat_text[value, 1] = text_end
                continue
            if seen & key:
                return ST_HEADER, 0, 0, 0
            seen |= key
            if key == KEY_LIMIT:
                hand[H_SMALL] = value
                hand[H_BIG] = second
            elif key != KEY_ROOM and key != KEY_DEALER:
                hand[_key_column(key)] = value
            text_column = _span_column(key)
            if text_column >= 0:
                span[text_column] = text_start
                span[text_column + 1] = text_end
            elif key == KEY_TIME:
                span[P_OFFSET_MINUTES] = second
            continue
        if section == SEC_RESULT and (first == 80 or first == 82):  # P, R
            bit, column, value = result_line(buf, ls, le)
            if bit:
                if value < 0 or result_seen & bit:
                    return ST_RESULT, 0, 0, 0
                result_seen |= bit
                hand[column] = value
                if bit == 1:
                    span[P_RESULT_LINE] = line - 1
                continue
        # The line's text argument (a reading, a note) ends before its ")" or at its end.
        text_end = le - 1
        if first == 83:  # S
            verb, seat, value, to_value, at, count, drawn_at, drawn, reading, reading_at, \
                all_in, side_pot = player_line(buf, ls, le)
            actor = ACTOR_SEAT
        elif first == 68:  # D
            verb, seat, value, at, count = dealer_line(buf, ls, le)
            to_value, drawn_at, drawn, reading, reading_at = -1, 0, -1, READING_NONE, -1
            all_in, side_pot = 0, 0
            actor = ACTOR_DEALER
        elif first == 70:  # F
            verb, seat, value, reading_at = floor_line(buf, ls, le)
            to_value, at, count, drawn_at, drawn, reading = -1, 0, -1, 0, -1, READING_NONE
            all_in, side_pot = 0, 0
            text_end = le
            actor = ACTOR_FLOOR
        else:
            return ST_LINE, 0, 0, 0
        if verb < 0:
            return ST_LINE, 0, 0, 0
        events[n_events, E_SECTION] = section
        events[n_events, E_ACTOR] = actor
        events[n_events, E_VERB] = verb
        events[n_events, E_SEAT] = seat
        events[n_events, E_AMOUNT] = value
        events[n_events, E_TO_AMOUNT] = to_value
        events[n_events, E_ALL_IN] = all_in
        events[n_events, E_SIDE_POT] = side_pot
        events[n_events, E_CARDS_START] = n_cards
        events[n_events, E_CARDS_COUNT] = count
        for k in range(count):
            cards[n_cards + k] = card_code(buf[at + 1 + 3 * k], buf[at + 2 + 3 * k])
        n_cards += max(count, 0)
        events[n_events, E_DRAWN_START] = n_cards
        events[n_events, E_DRAWN_COUNT] = drawn
        for k in range(drawn):
            cards[n_cards + k] = card_code(buf[drawn_at + 1 + 3 * k],
                                           buf[drawn_at + 2 + 3 * k])
        n_cards += max(drawn, 0)
        events[n_events, E_READING] = reading
        events[n_events, E_LINE] = line - 1
        event_spans[n_events, 0] = reading_at
        event_spans[n_events, 1] = text_end if reading_at >= 0 else -1
        n_events += 1
    if section != SEC_RESULT or not result_seen & 1:
        return ST_MISSING, 0, 0, 0
    return ST_READ, seat_mask, n_events, n_cards


@kernel
def _span_column(key: int) -> int:
    """The span column of a header key whose text the staging rows keep, or -1."""
    if key == KEY_HAND:
        return P_HAND
    if key == KEY_TABLE:
        return P_TABLE
    if key == KEY_ROOM:
        return P_ROOM
    if key == KEY_DEALER:
        return P_DEALER
    return -1


@kernel
def _key_column(key: int) -> int:
    """The hand column of a single-value header key."""
    if key == KEY_HAND:
        return H_HAND_HASH
    if key == KEY_TABLE:
        return H_TABLE_HASH
    if key == KEY_TIME:
        return H_TIME
    if key == KEY_GAME:
        return H_GAME
    if key == KEY_ANTE:
        return H_ANTE
    if key == KEY_JOKER:
        return H_JOKER
    if key == KEY_BUTTON:
        return H_BUTTON
    if key == KEY_JACKPOT:
        return H_JACKPOT
    if key == KEY_OPENERS:
        return H_OPENERS
    return H_CARRIED
