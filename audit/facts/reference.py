"""The fact tables from parsed records, by the readable Python replay.

:func:`reference_facts` replays each record with :class:`audit.replay.Replay` and
writes what it established into the tables of :mod:`audit.facts.tables`. It is the
slow, independent twin of the compiled replay (:mod:`audit.facts.replay`): the
tests require both to give equal tables on every hand, and ``--reference`` feeds the
rules from here. The line columns (what each line says, as codes) come from
:func:`audit.facts.layout.from_records`, the mapping the scanner is tested against;
everything the replay decides comes from :class:`~audit.replay.Replay`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from audit.evaluator import evaluate
from audit.facts.layout import from_records
from audit.facts.tables import (
    ACTION,
    HAND,
    INVALID,
    NOT_EVALUATED,
    POT,
    SEAT,
    UNKNOWN,
    Facts,
    SeatStatus,
    card_mask,
    new_table,
)
from audit.profiles import Profile
from audit.replay import Replay
from audit.replay.cards import known
from audit.replay.draw import first_seat_action, received, seats_at_draw
from audit.replay.openers import had_openers, kept_openers, proof
from audit.replay.showdown import showdown, strength
from ingest.scan.layout import (
    CARD,
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
    H_FIRST_LINE,
    H_GAME,
    H_HAND_HASH,
    H_JACKPOT,
    H_JOKER,
    H_OPENERS,
    H_POT,
    H_RAKE,
    H_SMALL,
    H_STATUS,
    H_TABLE_HASH,
    H_TIME,
    OPENERS_CODE,
    S_PLAYER_HASH,
    V,
)
from schemas.records import JOKER, UNKNOWN_CARD, Action, Actor, HandRecord, Openers, Verb

_RULINGS = frozenset({Verb.FALSE_OPENERS, Verb.FOULED_HAND})


def _strength(cards: Sequence[str] | None) -> int:
    if cards is None or not known(cards):
        return UNKNOWN
    try:
        return evaluate(cards)
    except ValueError:
        return INVALID


def _mask(seats: Sequence[int]) -> int:
    return sum(1 << n for n in set(seats))


class _Pool:
    """The card array: the lines' cards, then each seat's lists appended in order."""

    def __init__(self, line_cards: np.ndarray) -> None:
        self.codes: list[int] = line_cards.astype(np.int64).tolist()

    def add(self, cards: Sequence[str] | None) -> tuple[int, int]:
        start = len(self.codes)
        if cards is None:
            return start, -1
        self.codes.extend(CARD[c] for c in cards)
        return start, len(cards)


def reference_facts(records: Sequence[HandRecord], profile: Profile) -> Facts:
    """The fact tables of ``records`` (in order), by :class:`~audit.replay.Replay`."""
    arrays = from_records(records)
    hands = new_table(HAND, len(records))
    actions = new_table(ACTION, len(arrays.events))
    seats = new_table(SEAT, len(arrays.seats))
    pots: list[tuple[object, ...]] = []
    pool = _Pool(arrays.cards)
    action_row = seat_row = 0
    for h, record in enumerate(records):
        row = hands[h]
        rows = actions[action_row:action_row + len(record.actions)]
        seat_rows = seats[seat_row:seat_row + len(record.seats)]
        _header(row, arrays.hands[h])
        row["seat_start"], row["seat_count"] = seat_row, len(record.seats)
        row["action_start"], row["action_count"] = action_row, len(record.actions)
        row["pot_start"] = len(pots)
        _lines(rows, arrays.events[action_row:action_row + len(record.actions)], h)
        for line, a in zip(rows, record.actions, strict=True):
            line["cards_mask"] = card_mask(CARD[c] for c in a.cards or ())
            line["drawn_mask"] = card_mask(CARD[c] for c in a.drawn or ())
        seat_rows["hand"] = h
        seat_rows["seat"] = [s.seat for s in record.seats]
        seat_rows["start_stack"] = [s.stack for s in record.seats]
        seat_rows["player"] = arrays.seats[seat_row:seat_row + len(record.seats), S_PLAYER_HASH]
        action_row += len(record.actions)
        seat_row += len(record.seats)
        if len(set(record.seat_numbers())) != len(record.seats):
            continue  # a seat given twice: not replayed (the compiled replay cannot either)
        replay = Replay(record)
        _hand(row, record, replay, profile)
        _actions(rows, replay)
        required = record.openers or profile.openers_for(record.jackpot, record.game)
        _seats(seat_rows, replay, pool, required, profile.bobtail)
        found = _pots(h, replay)
        row["pot_count"] = len(found)
        pots.extend(found)
    table = new_table(POT, len(pots))
    for i, pot in enumerate(pots):
        table[i] = pot
    return Facts(hands, actions, seats, table, np.array(pool.codes, dtype=np.int8))


def _none(value: int | None) -> int:
    return -1 if value is None else value


def _header(row: np.void, layout: np.ndarray) -> None:
    for name, column in (("status", H_STATUS), ("game", H_GAME), ("small", H_SMALL),
                         ("big", H_BIG), ("ante", H_ANTE), ("joker", H_JOKER),
                         ("button", H_BUTTON), ("jackpot", H_JACKPOT), ("openers", H_OPENERS),
                         ("carried", H_CARRIED), ("pot", H_POT), ("rake", H_RAKE),
                         ("carried_out", H_CARRIED_OUT), ("time", H_TIME),
                         ("table", H_TABLE_HASH), ("hand_hash", H_HAND_HASH),
                         ("first_line", H_FIRST_LINE)):
        row[name] = layout[column]


def _hand(row: np.void, record: HandRecord, replay: Replay, profile: Profile) -> None:
    row["replayed"] = True
    required = record.openers or profile.openers_for(record.jackpot, record.game)
    row["required"] = OPENERS_CODE[required]
    row["opener"] = replay.opener or 0
    row["original_opener"] = replay.original_opener or 0
    row["opens_index"] = _none(replay.opens_index)
    row["opened_all_in"] = replay.opened_all_in
    row["draw_index"] = _none(replay.draw_index)
    row["misdeal_index"] = _none(replay.misdeal_index)
    row["pot_total"] = replay.pot_total
    row["penalties"] = replay.penalties
    first = first_seat_action(record)
    row["first_play"] = -1 if first is None else first.index
    row["cards_repeated"] = _repeats(record)


_PLACING = frozenset({Verb.DEALT, Verb.DEALS, Verb.BURNS, Verb.DRAWS_FIFTH})


def _repeats(record: HandRecord) -> int:
    """Known cards named again by a line dealing, drawing or burning cards, or by a discard
    of a seat given ``??`` cards (``hands.cards_repeated``)."""
    seen: set[str] = set()
    hidden: set[int | None] = set()
    repeats = 0
    for a in record.actions:
        if a.verb is Verb.DISCARDS:
            named = [*(a.cards or ()), *(a.drawn or ())] if a.seat in hidden else [
                *(a.drawn or ())]
        elif a.verb in _PLACING:
            named = list(a.cards or ())
        else:
            continue
        for card in named:
            if card == UNKNOWN_CARD:
                if a.verb is not Verb.BURNS:
                    hidden.add(a.seat)
                continue
            if card == JOKER and not record.joker:
                continue
            repeats += card in seen
            seen.add(card)
    return repeats

def _status(replay: Replay, a: Action, in_hand: bool, dead: set[int]) -> SeatStatus:
    seat = replay.seat(a.seat)
    if seat is None:
        return SeatStatus.UNSEATED
    if not seat.dealt_in:
        return SeatStatus.NOT_DEALT
    if in_hand:
        return SeatStatus.IN_HAND
    return SeatStatus.DEAD if a.seat in dead else SeatStatus.FOLDED


def _lines(rows: np.ndarray, layout: np.ndarray, h: int) -> None:
    for name, column in (("section", E_SECTION), ("actor", E_ACTOR), ("verb", E_VERB),
                         ("seat", E_SEAT), ("amount", E_AMOUNT), ("to_amount", E_TO_AMOUNT),
                         ("says_all_in", E_ALL_IN), ("side_pot", E_SIDE_POT),
                         ("cards_start", E_CARDS_START), ("cards_count", E_CARDS_COUNT),
                         ("drawn_start", E_DRAWN_START), ("drawn_count", E_DRAWN_COUNT),
                         ("reading", E_READING), ("line", E_LINE)):
        rows[name] = layout[:, column]
    rows["hand"] = h
    rows["index"] = np.arange(len(rows))
    for row, a in zip(rows, layout, strict=True):
        if a[E_VERB] == V[Verb.DISCARDS]:
            row["received_start"] = row["drawn_start"]
            row["received_count"] = max(row["drawn_count"], 0)
        else:
            row["received_start"] = row["cards_start"]


def _actions(rows: np.ndarray, replay: Replay) -> None:
    betting = {id(step) for step in replay.betting}
    position = {n: i for i, n in enumerate(replay.order)}
    dead: set[int] = set()
    for i, step in enumerate(replay.steps):
        a = step.action
        row = rows[i]
        row["street"] = int(step.street or 0)
        row["betting"] = id(step) in betting
        row["turn"] = step.turn or 0
        row["in_turn"] = step.in_turn
        row["in_hand"] = step.in_hand
        row["status"] = _status(replay, a, step.in_hand, dead)
        row["all_in"] = step.all_in
        row["current_bet"] = step.current_bet
        row["stake"] = step.stake
        row["level"] = step.level
        row["multi_level"] = step.multi_level
        row["contenders"] = step.contenders
        row["may_raise"] = step.may_raise
        row["pot_open"] = step.pot_open
        row["opener"] = step.opener or 0
        row["unit"] = step.unit
        row["chips"] = step.chips
        row["level_after"] = step.level_after
        row["bet_after"] = step.bet_after
        row["round_start"] = step.round_start
        row["position"] = position.get(a.seat, -1) if a.seat is not None else -1
        row["received_count"] = len(received(a))
        row["strength"] = _strength(a.cards) if a.verb is Verb.SHOWS else NOT_EVALUATED
        if a.verb in _RULINGS and replay.seat(a.seat) is not None:
            dead.add(a.seat)  # type: ignore[arg-type]  # seated, so not None


def _seats(rows: np.ndarray, replay: Replay, pool: _Pool, required: Openers,
           bobtail: bool) -> None:
    record = replay.record
    position = {n: i for i, n in enumerate(replay.order)}
    at_draw = set(seats_at_draw(replay))
    short = {u.seat: u for u in replay.unmatched_at_draw}
    for i, header in enumerate(record.seats):
        n = header.seat
        s = replay.seats[n]
        row = rows[i]
        row["position"] = position[n]
        for name in ("dealt_in", "folded", "dead", "fouled", "false_opener", "all_in",
                     "stood_pat", "split_openers", "mucked", "ante", "total",
                     "penalties", "withdrawn", "returned", "collected", "stack"):
            row[name] = getattr(s, name)
        row["shown_index"] = _none(s.shown_index)
        row["mucked_index"] = max(
            (a.index for a in record.actions
             if a.verb is Verb.MUCKS and a.actor is Actor.SEAT and a.seat == n), default=-1)
        row["at_draw"] = n in at_draw
        if n in short:
            row["short_at_draw"] = True
            row["stake_at_draw"] = short[n].stake
            row["bet_at_draw"] = short[n].current_bet
        for name, cards in (("dealt", s.dealt), ("discards", s.discards), ("drawn", s.drawn),
                            ("fifth", s.fifth), ("mismatch", s.discard_mismatch),
                            ("dealt_hand", replay.dealt_hand(n)),
                            ("final", replay.final_hand(n))):
            row[f"{name}_start"], row[f"{name}_count"] = pool.add(cards)
        for name, cards in (("dealt", s.dealt), ("discards", s.discards), ("drawn", s.drawn),
                            ("fifth", s.fifth)):
            row[f"{name}_mask"] = card_mask(CARD[c] for c in cards)
        row["dealt_strength"] = _strength(replay.dealt_hand(n))
        row["final_strength"] = _strength(replay.final_hand(n))
        row["had_openers"] = had_openers(replay, n, required, bobtail)
        row["proof"] = proof(replay, n, required, bobtail)
        row["kept_openers"] = kept_openers(replay, n, required, bobtail)


def _pots(h: int, replay: Replay) -> list[tuple[object, ...]]:
    out: list[tuple[object, ...]] = []
    for pot in replay.pots:
        result = showdown(replay, pot)
        best = -1
        if result.best is not None:
            value = strength(replay.final_hand(result.winners[0]))
            assert value is not None  # a best hand was ranked
            best = value
        out.append((h, pot.number, pot.amount, _mask(pot.eligible), _none(pot.cap),
                    _mask(result.contenders), _mask(result.winners), _mask(result.unknown),
                    _mask(result.fouled), best))
    return out

