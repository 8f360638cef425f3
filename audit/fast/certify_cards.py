"""Certify the card rules of ordinary hands: openers, deal and draw, showdown.

:func:`certify_cards` walks each hand's events once (compiled) and says 1 when the
reference engine (:mod:`audit.engine`) would report nothing (no finding, nothing
unverifiable, no error) for O201, O202, O207-O210, D301-D308, P401 and P404, else 0
(the hand goes to the reference engine). It is deliberately strict: it follows only
the common path of a hand (antes, one five-card deal per seat, betting without
all-ins, at most one draw line per seat, burns, showdown lines, main-pot
collections) and refuses everything else, so every certificate rests on a replay
it fully understands. Money (B1xx, O203-O206, O211, P402, P403) is
:mod:`audit.fast.certify_betting`'s: a hand is certified only when both agree.

What each code needs, as the reference judges it (``audit/rules``):

- D301-D303, D305, D306: one DEAL line of five cards per dealt seat; each draw line
  discards 1..4 cards the seat holds and draws as many; no ``exposes``, ``deals``,
  ``draws fifth`` or misdeal.
- D304: draw lines of seats still in the hand come clockwise from left of the button.
- D307, D308: every known dealt, drawn and burned card is distinct, the joker only
  with ``Joker: yes``; ``shows`` / ``mucks`` cards are exactly the replayed final hand
  (so no discard comes back, and the reference's final hand is ours).
- ``??`` (code 53) only on DEAL, draw and burn lines, and only where no rule needs the
  card: :mod:`audit.fast.certify_cards_unknown` says where (a folded or mucked seat's
  unrecorded cards are fine; an opener's unknown deal needs a ``shows openers``; a
  seat with ``??`` may not show or muck cards; a contested showdown needs every hand).
- O201, O207, O202, O210: the opener's dealt five are openers (the deal's minimum,
  ``Openers`` or the house progression); where the house sets discards aside when
  splitting, the cards it kept still hold openers; an opener that collects chips or
  folds proved openers (``shows openers`` of its dealt cards that hold openers, or a
  ``shows`` of its final hand). O208 / O209 need ``splits openers`` / ``returns``,
  which are refused.
- P401, P404: collectors hold the best live hand (ties split as ``_pots.fair_splits``
  allows); every ``shows`` reading names the category the cards make.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from audit.fast.certify_cards_helpers import (
    HAND,
    MAX_SEAT,
    ST_COLLECTED,
    ST_COLLECTS,
    ST_DEALT,
    ST_DREW,
    ST_EXPOSED_IN_DRAW,
    ST_FIFTH_DUE,
    ST_FOLDED,
    ST_FOUR_LINE,
    ST_KEPT,
    ST_MUCKED,
    ST_PAID,
    ST_POSITION,
    ST_PROOF,
    ST_PUT,
    ST_SEATED,
    ST_SHOWN,
    ST_SPLIT,
    ST_STACK,
    ST_UNKNOWN,
    ST_UNKNOWN_DEALT,
    STATE_COLUMNS,
    awarded_to_best,
    cards_allowed,
    deal_minimum,
    dealt_holds,
    in_dealt,
    matches_hand,
    place,
    seat_table,
)
from audit.fast.certify_cards_unknown import apply_draw, holds_unknown, openers_certified
from audit.fast.evaluate import holds_openers, strength5
from audit.fast.layout import (
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
    E_READING,
    E_SEAT,
    E_SECTION,
    E_SIDE_POT,
    E_TO_AMOUNT,
    E_VERB,
    H_EVENT_COUNT,
    H_EVENT_START,
    H_JOKER,
    H_STATUS,
    K_BOBTAIL,
    K_DISCARDS_SET_ASIDE,
    READING_NONE,
    READING_UNKNOWN,
    SEC_AFTER_DRAW,
    SEC_ANTES,
    SEC_BEFORE_DRAW,
    SEC_DEAL,
    SEC_DRAW,
    SEC_RESULT,
    SEC_SHOWDOWN,
    UNKNOWN_CODE,
    V_ANTES,
    V_BETS,
    V_BURNS,
    V_CALLS,
    V_CHECKS,
    V_COLLECTS,
    V_DEALT,
    V_DISCARDS,
    V_DRAWS_FIFTH,
    V_EXPOSES,
    V_FOLDS,
    V_MUCKS,
    V_OPENS,
    V_PENALTY,
    V_RAISES,
    V_SHOWS,
    V_SHOWS_OPENERS,
    V_SPLITS_OPENERS,
    V_STANDS_PAT,
    CardArray,
    IntArray,
)
from audit.profiles import DiscardsSetAside

#: ``K_DISCARDS_SET_ASIDE`` of the houses where O207 judges undeclared splits.
_WHEN_SPLITTING = list(DiscardsSetAside).index(DiscardsSetAside.WHEN_SPLITTING)
#: Room for the cards exposed before the draw, checked once the deal is known (D306).
MAX_EXPOSED = 16


@njit(cache=True, nogil=True)
def _certify_hand(h: int, hands: IntArray, seats: IntArray, events: IntArray,
                  cards: CardArray, knobs: IntArray, progression: IntArray,
                  state: IntArray, hand: CardArray, dealt: CardArray,
                  used: np.ndarray, order: IntArray, exposed: IntArray,
                  thrown: CardArray) -> int:
    """1 when hand ``h`` is clean under this module's codes and fully understood."""
    if hands[h, H_STATUS] != 0:
        return 0
    state[:, :] = 0
    used[:] = False
    joker = hands[h, H_JOKER] != 0
    minimum = deal_minimum(hands, h, knobs, progression)
    if minimum < 0:
        return 0
    bobtail = knobs[K_BOBTAIL] != 0
    occupied = seat_table(h, hands, seats, state, order)
    if occupied < 0:
        return 0

    opener = 0
    exposed_count = 0
    last_separator = -1  # the last burn or draw: what may part a fifth card (D303)
    fifth_dealt = False
    any_dealt = False
    last_draw_position = -1
    section = -1
    start = hands[h, H_EVENT_START]
    for e in range(start, start + hands[h, H_EVENT_COUNT]):
        sec = events[e, E_SECTION]
        if sec < section or events[e, E_ALL_IN] != 0 or events[e, E_SIDE_POT] != 0:
            return 0
        section = sec
        verb = events[e, E_VERB]
        cs, cc = events[e, E_CARDS_START], events[e, E_CARDS_COUNT]
        ds, dc = events[e, E_DRAWN_START], events[e, E_DRAWN_COUNT]
        # ``??`` only where certify_cards_unknown follows it: deals, draws, burns.
        unknown_ok = verb in (V_DEALT, V_DISCARDS, V_BURNS)
        if (not cards_allowed(cards, cs, cc, joker, unknown_ok)
                or not cards_allowed(cards, ds, dc, joker, unknown_ok)):
            return 0
        actor = events[e, E_ACTOR]
        if actor == ACTOR_DEALER:
            if verb == V_BURNS:
                if not place(cards, cs, cc, used):
                    return 0
                last_separator = e
                continue
            n = events[e, E_SEAT]
            if verb != V_EXPOSES or n < 1 or n > MAX_SEAT or not state[n, ST_SEATED] or cc < 1:
                return 0
            if sec == SEC_DRAW:
                # Refused and set aside: a card of its own that nobody may get (D306).
                if not place(cards, cs, cc, used):
                    return 0
                state[n, ST_EXPOSED_IN_DRAW] = 1
            elif sec in (SEC_DEAL, SEC_BEFORE_DRAW):
                # The card the seat keeps: checked against its deal at the end (D306).
                for k in range(cs, cs + cc):
                    if exposed_count >= MAX_EXPOSED:
                        return 0
                    exposed[exposed_count, 0] = n
                    exposed[exposed_count, 1] = cards[k]
                    exposed_count += 1
            else:
                return 0
            continue
        if actor == ACTOR_FLOOR:
            # A penalty is dead money and moves no card; it only lowers the stack.
            n = events[e, E_SEAT]
            if (verb != V_PENALTY or n < 1 or n > MAX_SEAT or not state[n, ST_SEATED]
                    or events[e, E_AMOUNT] < 0):
                return 0
            state[n, ST_PUT] += events[e, E_AMOUNT]
            continue
        if actor != ACTOR_SEAT:
            return 0
        n = events[e, E_SEAT]
        if n < 1 or n > MAX_SEAT or not state[n, ST_SEATED]:
            return 0
        amount = events[e, E_AMOUNT]
        to_amount = events[e, E_TO_AMOUNT]
        if verb == V_ANTES:
            if sec != SEC_ANTES or amount < 0:
                return 0
            state[n, ST_PUT] += amount
            continue
        if verb == V_DEALT:
            if sec != SEC_DEAL or state[n, ST_DEALT] or cc != HAND:
                return 0
            if not place(cards, cs, cc, used):
                return 0
            for k in range(HAND):
                hand[n, k] = cards[cs + k]
                dealt[n, k] = cards[cs + k]
            state[n, ST_DEALT] = 1
            state[n, ST_KEPT] = HAND
            if holds_unknown(cards, cs, cc):
                state[n, ST_UNKNOWN_DEALT] = 1
                state[n, ST_UNKNOWN] = 1
            any_dealt = True
            continue
        if not state[n, ST_DEALT]:
            return 0
        if verb == V_SHOWS_OPENERS:
            # Only a valid proof (its dealt cards, holding openers) is followed.
            if sec < SEC_BEFORE_DRAW or cc < 1 or cc > HAND:
                return 0
            # An unknown deal takes any cards holding openers as proof (_openers.proof).
            if not state[n, ST_UNKNOWN_DEALT] and not in_dealt(cards, cs, cc, dealt, n):
                return 0
            if holds_openers(cards, cs, cc, minimum, bobtail) != 1:
                return 0
            state[n, ST_PROOF] = 1
            continue
        if state[n, ST_FOLDED]:
            return 0  # a seat out of the hand acting: the engine's (B104 and more)
        betting = sec in (SEC_BEFORE_DRAW, SEC_AFTER_DRAW)
        if verb == V_CHECKS:
            if not betting:
                return 0
        elif verb == V_OPENS:
            if sec != SEC_BEFORE_DRAW or opener != 0 or amount < 0:
                return 0
            opener = n
            state[n, ST_PUT] += amount
        elif verb in (V_CALLS, V_RAISES, V_BETS):
            # Before the open a bet or raise would open the pot itself: not followed.
            if not betting or (sec == SEC_BEFORE_DRAW and (opener == 0 or verb == V_BETS)):
                return 0
            if amount < 0:
                return 0
            # An upper bound of the chips it puts in (a raise's total covers its stake).
            state[n, ST_PUT] += to_amount if (verb != V_CALLS and to_amount >= 0) else amount
        elif verb == V_FOLDS:
            if sec < SEC_BEFORE_DRAW or sec > SEC_SHOWDOWN:
                return 0
            state[n, ST_FOLDED] = 1
        elif verb in (V_DISCARDS, V_STANDS_PAT):
            position = state[n, ST_POSITION]
            if (sec != SEC_DRAW or state[n, ST_DREW] or position <= last_draw_position
                    or fifth_dealt):
                return 0
            last_draw_position = position
            state[n, ST_DREW] = 1
            if verb == V_DISCARDS:
                if not apply_draw(n, e, cards, cs, cc, ds, dc, state, hand, thrown, used):
                    return 0
                last_separator = e
        elif verb == V_SPLITS_OPENERS:
            if sec != SEC_DRAW:
                return 0
            state[n, ST_SPLIT] = 1
        elif verb == V_DRAWS_FIFTH:
            # After every other draw, and parted from its four by a burn or a draw (D303).
            if (sec != SEC_DRAW or not state[n, ST_FIFTH_DUE] or cc != 1
                    or last_separator <= state[n, ST_FOUR_LINE]):
                return 0
            if not place(cards, cs, cc, used):
                return 0
            hand[n, HAND - 1] = cards[cs]
            state[n, ST_FIFTH_DUE] = 0
            fifth_dealt = True
        elif verb == V_SHOWS:
            # With ?? somewhere the reference would need to rebuild the deal (O201) or
            # doubt a discard coming back (D308): not followed.
            if (sec != SEC_SHOWDOWN or state[n, ST_SHOWN] or state[n, ST_MUCKED]
                    or state[n, ST_UNKNOWN]):
                return 0
            if not matches_hand(cards, cs, cc, hand, n):
                return 0
            reading = events[e, E_READING]
            if reading >= 0:
                value = strength5(hand[n, 0], hand[n, 1], hand[n, 2], hand[n, 3], hand[n, 4])
                if value < 0 or (value >> 20) != reading:
                    return 0
            elif reading != READING_NONE and reading != READING_UNKNOWN:
                return 0
            state[n, ST_SHOWN] = 1
        elif verb == V_MUCKS:
            if sec != SEC_SHOWDOWN or state[n, ST_SHOWN] or state[n, ST_MUCKED]:
                return 0
            if cc != -1 and (state[n, ST_UNKNOWN] or not matches_hand(cards, cs, cc, hand, n)):
                return 0
            state[n, ST_MUCKED] = 1
        elif verb == V_COLLECTS:
            if sec != SEC_RESULT or amount < 0:
                return 0
            state[n, ST_COLLECTED] += amount
            state[n, ST_COLLECTS] += 1
            if amount > 0:
                state[n, ST_PAID] = 1
        else:
            return 0

    if not any_dealt:
        return 0
    for k in range(exposed_count):
        seat, card = exposed[k, 0], exposed[k, 1]
        if not state[seat, ST_DEALT] or not dealt_holds(dealt, seat, card):
            return 0
    for n in range(1, MAX_SEAT + 1):
        if state[n, ST_FIFTH_DUE]:
            return 0  # four cards after the draw (D302, D305)
        # A stack that reaches zero makes the seat all-in (Replay._put): side pots.
        if state[n, ST_PUT] > 0 and state[n, ST_STACK] - state[n, ST_PUT] <= 0:
            return 0
    if not openers_certified(opener, minimum, bobtail,
                             knobs[K_DISCARDS_SET_ASIDE] == _WHEN_SPLITTING, state, hand,
                             dealt, thrown):
        return 0  # O201, O202, O207, O208, O210 (and D306 with ?? drawn)
    if not awarded_to_best(state, hand, order, occupied):
        return 0  # P401
    return 1


@njit(cache=True, nogil=True)
def certify_cards(hands: IntArray, seats: IntArray, events: IntArray, cards: CardArray,
                  knobs: IntArray, progression: IntArray) -> np.ndarray:
    """Per hand row: 1 when the card rules are certified clean, 0 for the engine.

    ``knobs`` and ``progression`` are :func:`audit.fast.layout.profile_knobs` of the
    house profile the engine would run.
    """
    count = hands.shape[0]
    out = np.zeros(count, dtype=np.int8)
    state = np.zeros((MAX_SEAT + 1, STATE_COLUMNS), dtype=np.int64)
    hand = np.zeros((MAX_SEAT + 1, HAND), dtype=np.int8)
    dealt = np.zeros((MAX_SEAT + 1, HAND), dtype=np.int8)
    used = np.zeros(UNKNOWN_CODE + 1, dtype=np.bool_)
    order = np.zeros(MAX_SEAT + 1, dtype=np.int64)
    exposed = np.zeros((MAX_EXPOSED, 2), dtype=np.int64)
    thrown = np.zeros((MAX_SEAT + 1, HAND), dtype=np.int8)
    for h in range(count):
        out[h] = _certify_hand(h, hands, seats, events, cards, knobs, progression,
                               state, hand, dealt, used, order, exposed, thrown)
    return out
