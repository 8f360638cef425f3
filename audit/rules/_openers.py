"""What the openers rules (O201-O211, and P401/P403 for the collections) read of a hand:
its declarations, rulings and collections, the question of the pot after a false opener."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from audit.evaluator import describe
from audit.facts.context import Batch, IntArray, cards_text, spread
from audit.facts.tables import Known
from audit.facts.view import HandView, Line
from audit.house import FalseOpenerStyle, Profile
from ingest.scan.layout import ACTOR_SEAT, OPENERS_CODE, SEC_BEFORE_DRAW
from schemas.records import (
    SECTION_POSITION,
    TURN_VERBS,
    Actor,
    Openers,
    Section,
    Verb,
)

OPENERS = {code: openers for openers, code in OPENERS_CODE.items()}
_POSITION = SECTION_POSITION
_BEFORE = _POSITION[Section.BEFORE_DRAW]
_TURN = TURN_VERBS
_DEAD_RULINGS = frozenset({Verb.FALSE_OPENERS, Verb.FOULED_HAND})
_GONE = _DEAD_RULINGS | {Verb.FOLDS}


def required(view: HandView) -> Openers:
    """The deal's minimum openers."""
    return OPENERS[view.row.required]


def after_before_draw(a: Line) -> bool:
    return _POSITION[a.section] > _BEFORE


def declarations(view: HandView) -> list[tuple[int, int]]:
    """(index, seat) of every ``declares openers`` of a seated seat."""
    return [(a.index, a.seat) for a in view.lines_of(Verb.DECLARES_OPENERS)
            if a.actor is Actor.SEAT and a.seat in view.seats]


def false_openers(view: HandView) -> list[tuple[int, int]]:
    """(index, seat) of every ``Floor: Seat N false openers`` on a seated seat."""
    return [(a.index, a.seat) for a in view.lines_of(Verb.FALSE_OPENERS)
            if a.seat in view.seats]


def collections(view: HandView) -> list[tuple[int, int, int, int]]:
    """(index, seat, amount, pot) of every ``collects`` of a seated seat."""
    return [(a.index, a.seat, a.amount or 0, a.side_pot or 0)
            for a in view.lines_of(Verb.COLLECTS)
            if a.actor is Actor.SEAT and a.seat in view.seats]


def openers_shown(view: HandView, seat: int) -> list[list[str]]:
    """The cards of the seat's ``shows openers`` lines, in order."""
    return [list(a.cards or ()) for a in view.lines_of(Verb.SHOWS_OPENERS)
            if a.actor is Actor.SEAT and a.seat == seat]


def opening_lines(view: HandView) -> list[tuple[int, int]]:
    """(index, seat) of the pot's opening line and of every ``declares openers``."""
    out = []
    if view.row.opens_index >= 0 and view.row.original_opener:
        out.append((view.row.opens_index, view.row.original_opener))
    out.extend(declarations(view))
    return out


def ruled_false_after(view: HandView, seat: int, index: int) -> int | None:
    return next((i for i, s in false_openers(view) if s == seat and i > index), None)


def dealt_text(view: HandView, seat: int) -> str:
    """The seat's dealt cards and their reading, for messages."""
    dealt = view.seats[seat].dealt_hand
    if dealt is None:
        return "unknown cards"
    try:
        return f"{cards_text(dealt)} ({describe(dealt)})"
    except ValueError:
        return cards_text(dealt)


def passed_before_open(view: HandView, seat: int) -> bool:
    """The seat checked (passed) before the pot was opened."""
    return any(a.verb is Verb.CHECKS and a.seat == seat and not a.pot_open and a.street
               for a in view.lines)


def before_draw_complete(view: HandView) -> int:
    """The first line index from which the action before the draw is complete."""
    lines = view.lines
    out = len(lines)
    acted: set[int] = set()
    gone: set[int] = set()
    all_in: set[int] = set()
    first = True
    stacks = {n: s.stack for n, s in view.seats.items()}
    dealt_in = {n for n, s in view.seats.items() if s.dealt_in}
    for a in lines:
        if after_before_draw(a):
            return a.index
        if a.all_in and a.seat is not None:
            all_in.add(a.seat)
        if a.section is not Section.BEFORE_DRAW:
            continue
        totals = view.totals(a.index)
        if first:
            first = False
            all_in |= {n for n in dealt_in if stacks.get(n, 0) - totals.get(n, 0) <= 0}
        if a.verb in _DEAD_RULINGS and a.seat is not None:
            gone.add(a.seat)
        if a.actor is not Actor.SEAT or a.verb not in _TURN or a.seat is None:
            continue
        if a.verb is Verb.FOLDS:
            gone.add(a.seat)
        if a.bet_after > a.current_bet:
            acted = set()
        acted.add(a.seat)
        if stacks.get(a.seat, 0) - totals.get(a.seat, 0) - a.chips <= 0:
            all_in.add(a.seat)
        if not (a.pot_open or a.bet_after > 0):
            continue
        stakes, seat, chips, bet = view.stakes(a.index), a.seat, a.chips, a.bet_after
        if not any(
            n not in acted or stakes.get(n, 0) + (chips if n == seat else 0) < bet
            for n in dealt_in - gone - all_in
        ):
            return a.index + 1
    return out


def may_be_complete(ctx: Batch, at: IntArray) -> npt.NDArray[np.bool_]:
    """Per hand, a necessary condition of ``before_draw_complete(view) <= index`` of its
    action row ``at[hand]`` (-1: False): a line of a later section comes before it, or no
    dealt-in seat is left out of the betting before it. A seat is surely left out -- never
    acted, folded, ruled dead nor all-in -- when it has no BEFORE DRAW line and no all-in
    line before ``at``, and the chips of its lines before ``at`` leave it some stack."""
    h, a, s = ctx.hands, ctx.actions, ctx.seats
    hands = np.flatnonzero(at >= 0)
    owner, rows = spread(h.action_start[hands].astype(np.int64),
                         at[hands] - h.action_start[hands])
    hand = hands[owner]
    out = np.zeros(len(ctx), dtype=bool)
    out[hand[a.section[rows] > SEC_BEFORE_DRAW]] = True
    keys = hand * 16 + a.seat[rows]
    touched = np.zeros(len(ctx) * 16, dtype=bool)
    touched[keys[(a.section[rows] == SEC_BEFORE_DRAW) | a.says_all_in[rows]]] = True
    spent = np.zeros(len(ctx) * 16, dtype=np.int64)
    np.add.at(spent, keys, np.maximum(a.chips[rows], 0))
    ruled = np.zeros(len(ctx), dtype=bool)
    ruled[hands] = True
    seat_keys = s.hand.astype(np.int64) * 16 + s.seat
    idle = (ruled[s.hand] & s.dealt_in & ~touched[seat_keys]
            & (s.start_stack - spent[seat_keys] > 0))
    left_out = np.zeros(len(ctx), dtype=bool)
    left_out[s.hand[idle]] = True
    return ruled & (out | ~left_out)


def rows_after(ctx: Batch, rows: IntArray, at: IntArray) -> npt.NDArray[np.bool_]:
    """Per hand: some of the action ``rows`` come after its action row ``at[hand]``
    (-1: none)."""
    hand = ctx.actions.hand[rows]
    out = np.zeros(len(ctx), dtype=bool)
    out[hand[(at[hand] >= 0) & (rows > at[hand])]] = True
    return out


@dataclass(frozen=True, slots=True)
class PotQuestion:
    """The opener's hand ruled dead before the draw, and what the pot had to do."""

    ruling: int
    seat: int
    false_opener: bool
    must_play: tuple[str, ...]
    others_in: tuple[int, ...]
    declarations: tuple[tuple[int, int], ...]
    killed_line: int | None
    plays_line: int | None
    killed: bool
    played_at: int | None


def pot_question(view: HandView) -> PotQuestion | None:
    """The first ruling, before the draw, that the opener's hand is dead (None if none);
    asked once per hand (O205 and O206 share it)."""
    if "pot_question" not in view.memo:
        view.memo["pot_question"] = _pot_question(view)
    return view.memo["pot_question"]  # type: ignore[return-value]


def _pot_question(view: HandView) -> PotQuestion | None:
    lines = view.lines
    ruling = next((a for a in lines if a.verb in _DEAD_RULINGS
                   and a.section is Section.BEFORE_DRAW and a.opener is not None
                   and a.seat == a.opener), None)
    if ruling is None:
        return None
    r, seat = ruling.index, ruling.opener
    assert seat is not None
    opens = view.row.opens_index
    since_open = [a for a in lines[(opens if opens >= 0 else 0):r]
                  if a.section is Section.BEFORE_DRAW and a.seat != seat
                  and a.actor is Actor.SEAT]
    reasons = []
    raisers = sorted({a.seat for a in since_open if a.verb is Verb.RAISES and a.seat})
    if raisers:
        reasons.append("seat " + ", ".join(map(str, raisers)) + " raised")
    callers = sorted({a.seat for a in since_open if a.verb is Verb.CALLS and a.seat})
    if len(callers) >= 2:
        reasons.append(f"{len(callers)} seats called the opening bet")
    if before_draw_complete(view) <= r:
        reasons.append("the action before the draw was complete")
    out = {a.seat for a in lines[:r] if a.verb in _GONE and a.seat is not None}
    others_in = tuple(n for n in view.order
                      if n != seat and n not in out and view.seats[n].dealt_in)
    later = lines[r + 1:]
    killed_line = next((a.index for a in later if a.verb is Verb.POT_KILLED), None)
    plays_line = next((a.index for a in later if a.verb is Verb.POT_PLAYS), None)
    played_at = next(
        (a.index for a in later
         if a.verb is Verb.COLLECTS
         or (after_before_draw(a) and a.actor is Actor.SEAT
             and a.verb is not Verb.SHOWS_OPENERS)),
        None,
    )
    passed_out = view.row.carried_out >= 0
    killed = killed_line is not None or (plays_line is None and passed_out)
    return PotQuestion(
        ruling=r, seat=seat, false_opener=ruling.verb is Verb.FALSE_OPENERS,
        must_play=tuple(reasons), others_in=others_in,
        declarations=tuple((i, s) for i, s in declarations(view) if i > r),
        killed_line=killed_line, plays_line=plays_line, killed=killed, played_at=played_at,
    )


def ineligible(view: HandView, profile: Profile, seat: int) -> Known:
    """Whether ``seat`` may not declare after a false opener: it passed with openers."""
    if (profile.false_opener is not FalseOpenerStyle.DEAD_HAND_REFUND
            or profile.passed_openers_may_declare or not passed_before_open(view, seat)):
        return Known.NO
    return view.seats[seat].had_openers


WAGERS = frozenset({Verb.OPENS, Verb.BETS, Verb.CALLS, Verb.RAISES})


YES = int(Known.YES)


def hands_of(ctx: Batch, rows: IntArray) -> IntArray:
    """The judged hands among those of action ``rows``."""
    hands = np.unique(ctx.actions.hand[rows]).astype(np.int64)
    return hands[ctx.judged[hands]]


def opener_rows(ctx: Batch, which: IntArray) -> IntArray:
    """The seats-table row of each hand's seat ``which[hand]`` (-1 when none)."""
    s = ctx.seats
    rows = np.full(len(ctx), -1, dtype=np.int64)
    match = s.seat == which[s.hand]
    rows[s.hand[match]] = np.flatnonzero(match)
    return rows


def ruled_false_later(ctx: Batch, rows: IntArray, seats: IntArray) -> npt.NDArray[np.bool_]:
    """Per action row: a ``false openers`` ruling on seat ``seats[i]`` follows the line in
    its hand (:func:`ruled_false_after`, over the columns)."""
    a = ctx.actions
    rulings = ctx.rows(Verb.FALSE_OPENERS)
    last = np.full(len(ctx) * 16, -1, dtype=np.int64)
    # rows in log order: the last ruling of a (hand, seat) is the one written last
    last[a.hand[rulings].astype(np.int64) * 16 + a.seat[rulings]] = a.index[rulings]
    return last[a.hand[rows].astype(np.int64) * 16 + seats] > a.index[rows]


def opening_rows(ctx: Batch) -> tuple[IntArray, IntArray]:
    """The action rows and seats of :func:`opening_lines` of the judged hands: each pot's
    opening line (by its original opener) and every ``declares openers`` of a seated seat."""
    h, a = ctx.hands, ctx.actions
    opened = np.flatnonzero(ctx.judged & (h.opens_index >= 0) & (h.original_opener != 0))
    declares = ctx.rows(Verb.DECLARES_OPENERS)
    declares = declares[ctx.judged[a.hand[declares]] & (a.actor[declares] == ACTOR_SEAT)
                        & (ctx.seat_rows(a.hand[declares], a.seat[declares]) >= 0)]
    rows = np.concatenate((h.action_start[opened] + h.opens_index[opened], declares))
    seats = np.concatenate((h.original_opener[opened], a.seat[declares]))
    return rows.astype(np.int64), seats.astype(np.int64)


def dead_rulings(ctx: Batch) -> IntArray:
    """Per hand, the action row of :func:`pot_question`'s ruling (-1: none), judged hands
    only: the first ``false openers`` / ``fouled hand`` before the draw on the seat that
    was the opener at that line."""
    if "dead_rulings" not in ctx.memo:
        a = ctx.actions
        rows = ctx.rows(Verb.FALSE_OPENERS, Verb.FOULED_HAND)
        rows = rows[(a.section[rows] == SEC_BEFORE_DRAW) & (a.opener[rows] != 0)
                    & (a.seat[rows] == a.opener[rows]) & ctx.judged[a.hand[rows]]]
        out = np.full(len(ctx), -1, dtype=np.int64)
        hands, first = np.unique(a.hand[rows], return_index=True)
        out[hands] = rows[first]
        ctx.memo["dead_rulings"] = out
    return ctx.memo["dead_rulings"]
