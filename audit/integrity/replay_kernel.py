"""The compiled pass of :mod:`audit.integrity.replay`: one hand after another, line by line.

Kept apart from the records it fills (:mod:`audit.integrity.replay`) because it is one
long compiled function: the state of a deal (seats, cards seen, the betting round) is a
handful of small arrays reset per hand, and every output is a flat array numba can fill.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from audit.facts.evaluate import is_openers, strength5
from audit.integrity.draws import draw_pit
from audit.integrity.frames import ACTOR, SECTION, VERB
from schemas.records import Actor, Section, Verb

MAX_SEATS = 10
_BEFORE = SECTION[Section.BEFORE_DRAW]
_DRAW = SECTION[Section.DRAW]
_AFTER = SECTION[Section.AFTER_DRAW]
_DEAL = SECTION[Section.DEAL]
_SEAT = ACTOR[Actor.SEAT]
_DEALER = ACTOR[Actor.DEALER]
_FLOOR = ACTOR[Actor.FLOOR]
V_ANTES, V_DEALT, V_CHECKS, V_OPENS = (VERB[Verb.ANTES], VERB[Verb.DEALT], VERB[Verb.CHECKS],
                                       VERB[Verb.OPENS])
V_BETS, V_CALLS, V_RAISES, V_FOLDS = (VERB[Verb.BETS], VERB[Verb.CALLS], VERB[Verb.RAISES],
                                      VERB[Verb.FOLDS])
V_WITHDRAWS, V_DISCARDS, V_DRAWS_FIFTH = (VERB[Verb.WITHDRAWS], VERB[Verb.DISCARDS],
                                          VERB[Verb.DRAWS_FIFTH])
V_COLLECTS, V_BURNS, V_EXPOSES = VERB[Verb.COLLECTS], VERB[Verb.BURNS], VERB[Verb.EXPOSES]
V_DEALS, V_MISDEAL, V_RETURNS = VERB[Verb.DEALS], VERB[Verb.MISDEAL], VERB[Verb.RETURNS]
V_FALSE_OPENERS, V_FOULED = VERB[Verb.FALSE_OPENERS], VERB[Verb.FOULED_HAND]
#: Decision sections.
BEFORE, AFTER = 0, 1
TWO_PAIR_LEVEL = 2


@njit(cache=True, nogil=True)
def _known(cards: npt.NDArray[np.int8], start: int, count: int) -> bool:
    for i in range(start, start + count):  # noqa: SIM110 (a plain loop compiles best)
        if cards[i] < 0 or cards[i] > 52:
            return False
    return True


@njit(cache=True, nogil=True)
def _betting_lines(a_section, a_actor, a_verb) -> int:  # type: ignore[no-untyped-def]
    """How many lines are a seat's check, open, bet, call, raise or fold before or after
    the draw: the most decisions the pass can find (its arrays are made that long)."""
    n = 0
    for a in range(len(a_verb)):
        verb = a_verb[a]
        if a_actor[a] == _SEAT and a_section[a] in (_BEFORE, _AFTER) and (
                verb in (V_CHECKS, V_OPENS, V_BETS, V_CALLS, V_RAISES, V_FOLDS)):
            n += 1
    return n


@njit(cache=True, nogil=True)
def _fit(values, n):  # type: ignore[no-untyped-def]
    """The first ``n`` values: the array itself when it holds just those (no copy)."""
    return values if n == len(values) else values[:n].copy()


@njit(cache=True, nogil=True)  # the next batch is read meanwhile (audit.integrity.ahead)
def replay_hands(  # type: ignore[no-untyped-def]  # compiled: numba types the arrays
        h_key, h_joker, h_button, h_openers, h_small, h_big, h_seat_start, h_seat_count,
            h_act_start, h_act_count, s_seat, a_order, a_section, a_actor, a_verb, a_seat,
            a_amount, a_to, a_all_in, a_cards_start, a_cards_count, a_drawn_start,
            a_drawn_count, cards, bobtail, samples):
    n_hands = len(h_key)
    n_seats = len(s_seat)
    # per hand
    irregular = np.zeros(n_hands, dtype=np.bool_)
    # per seat
    dealt = np.full((n_seats, 5), -1, dtype=np.int8)
    dealt_ok = np.zeros(n_seats, dtype=np.bool_)
    position = np.full(n_seats, -1, dtype=np.int8)
    final = np.full(n_seats, -1, dtype=np.int64)
    chips_in = np.zeros(n_seats, dtype=np.int64)
    chips_after = np.zeros(n_seats, dtype=np.int64)
    collected = np.zeros(n_seats, dtype=np.int64)
    live_end = np.zeros(n_seats, dtype=np.bool_)
    # per draw (at most one per seat)
    draw_seat = np.full(n_seats, -1, dtype=np.int32)
    draw_u = np.full(n_seats, np.nan)
    draw_exact = np.zeros(n_seats, dtype=np.bool_)
    draw_k = np.zeros(n_seats, dtype=np.int8)
    n_draws = 0
    # per decision: at most one per betting line of a seat (a third of the lines)
    most = _betting_lines(a_section, a_actor, a_verb)
    d_hand = np.empty(most, dtype=np.int32)
    d_actor = np.empty(most, dtype=np.int8)
    d_section = np.empty(most, dtype=np.int8)
    d_verb = np.empty(most, dtype=np.int8)
    d_preopen = np.empty(most, dtype=np.bool_)
    d_facing = np.empty(most, dtype=np.bool_)
    d_live = np.empty(most, dtype=np.int16)
    d_aggressor = np.empty(most, dtype=np.int8)
    d_behind = np.empty(most, dtype=np.int16)
    d_openers = np.empty(most, dtype=np.int8)
    d_best = np.empty(most, dtype=np.int8)
    d_beaten = np.empty(most, dtype=np.int16)
    d_chips = np.empty(most, dtype=np.int64)
    d_allin = np.empty(most, dtype=np.bool_)
    d_raises = np.empty(most, dtype=np.int8)
    n_dec = 0

    local = np.empty(MAX_SEATS + 1, dtype=np.int64)
    hand = np.empty((MAX_SEATS, 6), dtype=np.int64)
    hand_n = np.empty(MAX_SEATS, dtype=np.int64)
    folded = np.empty(MAX_SEATS, dtype=np.bool_)
    allin = np.empty(MAX_SEATS, dtype=np.bool_)
    acted = np.empty(MAX_SEATS, dtype=np.bool_)
    round_bet = np.empty(MAX_SEATS, dtype=np.int64)
    strength = np.empty(MAX_SEATS, dtype=np.int64)
    seen = np.zeros(54, dtype=np.bool_)
    stub = np.empty(54, dtype=np.int64)
    kept = np.empty(5, dtype=np.int64)
    drawn = np.empty(5, dtype=np.int64)
    cards5 = np.empty(5, dtype=np.int8)

    for h in range(n_hands):
        s0 = h_seat_start[h]
        ns = h_seat_count[h]
        if ns > MAX_SEATS or ns < 2:
            irregular[h] = True
            continue
        local[:] = -1
        for j in range(ns):
            seat = s_seat[s0 + j]
            if 1 <= seat <= MAX_SEATS:
                local[seat] = j
        # deal order: clockwise from the first seat left of the button
        p = 0
        for j in range(ns):
            if s_seat[s0 + j] > h_button[h]:
                position[s0 + j] = p
                p += 1
        for j in range(ns):
            if s_seat[s0 + j] <= h_button[h]:
                position[s0 + j] = p
                p += 1
        hand_n[:ns] = 0
        folded[:ns] = False
        allin[:ns] = False
        acted[:ns] = False
        round_bet[:ns] = 0
        strength[:ns] = -1
        seen[:] = False
        current = 0
        aggressor = -1
        raises = 0
        opened = False
        section_now = -1
        bad = False
        deck = 53 if h_joker[h] else 52
        a0 = h_act_start[h]
        for line in range(a0, a0 + h_act_count[h]):
            a = a_order[line]
            sec = a_section[a]
            verb = a_verb[a]
            seat = a_seat[a]
            li = local[seat] if 1 <= seat <= MAX_SEATS else -1
            if sec != section_now:
                if sec == _AFTER and section_now != _AFTER:
                    for j in range(ns):  # the draw is over: final hands
                        if hand_n[j] == 5:
                            strength[j] = strength5(hand[j, 0], hand[j, 1], hand[j, 2],
                                                    hand[j, 3], hand[j, 4])
                if sec in (_BEFORE, _AFTER):
                    round_bet[:ns] = 0
                    acted[:ns] = False
                    current = 0
                    aggressor = -1
                    raises = 0
                section_now = sec
            cs = a_cards_start[a]
            cc = a_cards_count[a]
            if a_actor[a] == _SEAT and li >= 0:
                if verb == V_DEALT and sec == _DEAL:
                    if cc == 5 and _known(cards, cs, 5):
                        for i in range(5):
                            c = cards[cs + i]
                            if seen[c] or c >= deck:
                                bad = True
                            seen[c] = True
                            hand[li, i] = c
                            dealt[s0 + li, i] = c
                        hand_n[li] = 5
                        dealt_ok[s0 + li] = True
                    else:
                        bad = True
                elif verb == V_ANTES:
                    chips_in[s0 + li] += a_amount[a]
                elif verb == V_DISCARDS and sec == _DRAW:
                    ds = a_drawn_start[a]
                    dc = a_drawn_count[a]
                    if cc < 0 or dc < 0 or not _known(cards, cs, cc) or not _known(cards, ds, dc):
                        bad = True
                        continue
                    nk = 0
                    for i in range(hand_n[li]):  # kept: the hand less the discards
                        c = hand[li, i]
                        thrown = False
                        for q in range(cc):
                            if cards[cs + q] == c:
                                thrown = True
                        if not thrown:
                            kept[nk] = c
                            nk += 1
                    if nk + cc != hand_n[li]:
                        bad = True  # a discard that was not in the hand
                    ok = not bad and hand_n[li] == 5 and nk + dc == 5
                    ns_ = 0
                    for c in range(deck):
                        if not seen[c]:
                            stub[ns_] = c
                            ns_ += 1
                    for i in range(dc):
                        c = cards[ds + i]
                        drawn[i] = c
                        if seen[c] or c >= deck:
                            bad = True
                            ok = False
                    if ok:
                        u, exact = draw_pit(kept, nk, drawn, stub, ns_, h_key[h],
                                            int(s_seat[s0 + li]), samples)
                        draw_seat[n_draws] = s0 + li
                        draw_u[n_draws] = u
                        draw_exact[n_draws] = exact
                        draw_k[n_draws] = dc
                        n_draws += 1
                    for i in range(nk):
                        hand[li, i] = kept[i]
                    for i in range(dc):
                        if nk + i < 6:
                            hand[li, nk + i] = drawn[i]
                        seen[drawn[i]] = True
                    hand_n[li] = min(nk + dc, 6)
                elif verb == V_DRAWS_FIFTH:
                    if cc == 1 and _known(cards, cs, 1) and hand_n[li] < 5 and not seen[cards[cs]]:
                        hand[li, hand_n[li]] = cards[cs]
                        hand_n[li] += 1
                        seen[cards[cs]] = True
                    else:
                        bad = True
                elif (sec in (_BEFORE, _AFTER)) and (
                        verb in (V_CHECKS, V_OPENS, V_BETS, V_CALLS, V_RAISES, V_FOLDS)):
                    live = 0
                    behind = 0
                    for j in range(ns):
                        if j != li and not folded[j]:
                            live |= 1 << j
                            if not acted[j]:
                                behind |= 1 << j
                    preopen = sec == _BEFORE and not opened
                    opens_flag = -1
                    if preopen and dealt_ok[s0 + li] and h_openers[h] > 0:
                        for i in range(5):
                            cards5[i] = dealt[s0 + li, i]
                        opens_flag = is_openers(cards5, 0, 5, int(h_openers[h]), bobtail)
                    best = -1
                    beaten = 0
                    if sec == _AFTER and strength[li] >= 0:
                        best = 1
                        for j in range(ns):
                            if (live >> j) & 1:
                                if strength[j] < 0:
                                    best = -1
                                    beaten = 0
                                    break
                                if strength[j] >= strength[li]:
                                    best = 0
                                if strength[j] > strength[li]:
                                    beaten |= 1 << j
                    chips = 0
                    if verb in (V_OPENS, V_BETS, V_CALLS):
                        chips = a_amount[a]
                    elif verb == V_RAISES:
                        chips = max(a_to[a] - round_bet[li], 0)
                    d_hand[n_dec] = h
                    d_actor[n_dec] = li
                    d_section[n_dec] = BEFORE if sec == _BEFORE else AFTER
                    d_verb[n_dec] = verb
                    d_preopen[n_dec] = preopen
                    d_facing[n_dec] = current > round_bet[li]
                    d_live[n_dec] = live
                    d_aggressor[n_dec] = aggressor
                    d_behind[n_dec] = behind if preopen else 0
                    d_openers[n_dec] = opens_flag
                    d_best[n_dec] = best
                    d_beaten[n_dec] = beaten
                    d_chips[n_dec] = chips
                    any_allin = allin[li]
                    for j in range(ns):
                        if (live >> j) & 1 and allin[j]:
                            any_allin = True
                    d_allin[n_dec] = any_allin
                    d_raises[n_dec] = min(raises, 100)
                    n_dec += 1
                    # apply the action
                    unit = h_small[h] if sec == _BEFORE else h_big[h]
                    acted[li] = True
                    if verb == V_FOLDS:
                        folded[li] = True
                    elif verb == V_OPENS:
                        opened = True
                        round_bet[li] = a_amount[a]
                        current = max(a_amount[a], unit)
                        aggressor = li
                        raises += 1
                    elif verb == V_BETS:
                        round_bet[li] += a_amount[a]
                        current = max(current, round_bet[li])
                        aggressor = li
                        raises += 1
                    elif verb == V_CALLS:
                        round_bet[li] += a_amount[a]
                    elif verb == V_RAISES:
                        round_bet[li] = a_to[a]
                        current = max(current, a_to[a])
                        aggressor = li
                        raises += 1
                    chips_in[s0 + li] += chips
                    if sec == _AFTER:
                        chips_after[s0 + li] += chips
                    if a_all_in[a]:
                        allin[li] = True
                elif verb == V_WITHDRAWS:
                    round_bet[li] -= a_amount[a]
                    chips_in[s0 + li] -= a_amount[a]
                elif verb == V_COLLECTS:
                    collected[s0 + li] += a_amount[a]
            elif a_actor[a] == _DEALER:
                if verb in (V_BURNS, V_EXPOSES):
                    if cc > 0:
                        if not _known(cards, cs, cc):
                            bad = True
                        else:
                            for i in range(cc):
                                c = cards[cs + i]
                                if verb == V_BURNS or sec == _DRAW:
                                    if seen[c] or c >= deck:
                                        bad = True
                                    seen[c] = True
                elif verb in (V_DEALS, V_MISDEAL):
                    bad = True
                elif verb == V_RETURNS and li >= 0:
                    chips_in[s0 + li] -= a_amount[a]
            elif a_actor[a] == _FLOOR and li >= 0 and verb in (V_FALSE_OPENERS, V_FOULED):
                folded[li] = True
        irregular[h] = bad
        for j in range(ns):
            live_end[s0 + j] = not folded[j]
            if hand_n[j] == 5 and not bad:
                final[s0 + j] = strength5(hand[j, 0], hand[j, 1], hand[j, 2], hand[j, 3],
                                          hand[j, 4])
            if bad:
                dealt_ok[s0 + j] = False
    # draws of irregular hands are dropped by the caller (a draw is recorded before the
    # line that spoils its hand may be read)
    return (irregular, dealt, dealt_ok, position, final, chips_in, chips_after, collected,
            live_end, draw_seat[:n_draws].copy(), draw_u[:n_draws].copy(),
            draw_exact[:n_draws].copy(), draw_k[:n_draws].copy(),
            _fit(d_hand, n_dec), _fit(d_actor, n_dec), _fit(d_section, n_dec),
            _fit(d_verb, n_dec), _fit(d_preopen, n_dec), _fit(d_facing, n_dec),
            _fit(d_live, n_dec), _fit(d_aggressor, n_dec), _fit(d_behind, n_dec),
            _fit(d_openers, n_dec), _fit(d_best, n_dec), _fit(d_beaten, n_dec),
            _fit(d_chips, n_dec), _fit(d_allin, n_dec), _fit(d_raises, n_dec))
