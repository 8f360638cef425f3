"""Shared questions of the openers (O) rules: who opened, what it held, what it proved.

rules.md "What counts as openers" and "Findings": openers are judged on the five
cards *dealt*; a seat proves them with ``shows openers [..]`` or with a ``shows`` of
its final hand whose kept cards plus discards (the cards dealt) are openers. Where the
cards needed are ``??`` the answer is :data:`UNKNOWN` and the rule reports the hand
unverifiable rather than guessing.

The pot question after a false opener (R-JB 2 and 4, H-23.2-5) is computed once here
for O205 and O206: when the opener's hand was ruled dead before the draw, whether the
pot had to play (a raise, two callers, or the action before the draw complete), whether
another seat declared, and what the table did (killed it or played on).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from itertools import combinations

from audit.evaluator import describe
from audit.openers_test import holds_openers, is_openers
from audit.replay import Replay, SeatState
from audit.replay.cards import known, minus
from audit.rule import HandContext
from schemas.records import SECTION_ORDER, Action, Actor, Openers, Section, Verb

_POSITION = {s: i for i, s in enumerate(SECTION_ORDER)}
_BEFORE = _POSITION[Section.BEFORE_DRAW]
_TURN = frozenset({Verb.CHECKS, Verb.OPENS, Verb.BETS, Verb.CALLS, Verb.RAISES, Verb.FOLDS})
_DEAD_RULINGS = frozenset({Verb.FALSE_OPENERS, Verb.FOULED_HAND})
_GONE = _DEAD_RULINGS | {Verb.FOLDS}


class Known(Enum):
    """A three-way answer: the log proves yes, proves no, or lacks the cards."""

    YES = "yes"
    NO = "no"
    UNKNOWN = "unknown"


def judged(ctx: HandContext) -> bool:
    """Whether the openers rules apply: a game with a minimum and a deal that stands."""
    return ctx.openers_required is not Openers.ANY and ctx.replay.misdeal_index is None


def cards_text(cards: Sequence[str]) -> str:
    """``[Jh Js 4c]`` for messages."""
    return "[" + " ".join(cards) + "]"


def after_before_draw(action: Action) -> bool:
    """The line is in a section after BEFORE DRAW (the draw, the showdown, the result)."""
    return _POSITION[action.section] > _BEFORE


def openers_in(cards: Sequence[str], minimum: Openers, bobtail: bool) -> bool:
    """Whether the cards dealt to a seat are openers (a short hand: what it holds).

    More than five dealt cards is a misdeal question (D301), not an openers one: some
    five of them being openers is enough not to accuse the seat.
    """
    if len(cards) == 5:
        return is_openers(cards, minimum, bobtail=bobtail)
    if len(cards) < 5:
        return holds_openers(cards, minimum, bobtail=bobtail)
    return any(is_openers(five, minimum, bobtail=bobtail) for five in combinations(cards, 5))


def _valid_openers(cards: Sequence[str], minimum: Openers, bobtail: bool) -> bool:
    """``holds_openers`` that reads repeated or impossible cards as no proof at all."""
    try:
        return len(cards) <= 5 and holds_openers(cards, minimum, bobtail=bobtail)
    except ValueError:
        return False


def _kept(shown: Sequence[str], state: SeatState, dealt: Sequence[str] | None) -> list[str] | None:
    """The cards a seat kept through the draw, read off its shown final hand: the shown
    cards less those drawn, or, where the drawn cards are unrecorded, the dealt cards less
    the discards when the shown hand holds them all. None when neither can be read."""
    drawn = (*state.drawn, *state.fifth)
    if known(drawn):
        kept = minus(shown, drawn)
        if kept is not None:
            return kept
    if dealt is not None and known(state.discards):
        rest = minus(dealt, state.discards)
        if rest is not None and minus(shown, rest) is not None:
            return rest
    return None


def proof(ctx: HandContext, seat: int) -> Known:
    """Did ``seat`` show openers in this hand (R-JB 3, H-23.4, L-33)?

    A ``shows openers [..]`` whose cards hold openers (and, where the deal is known,
    were dealt to the seat), or a ``shows`` of the final hand whose kept cards plus
    discards are openers (or whose kept cards alone already are). UNKNOWN when the
    only candidate proofs hold ``??``.
    """
    replay = ctx.replay
    state = replay.seat(seat)
    if state is None:
        return Known.NO
    minimum, bobtail = ctx.openers_required, ctx.profile.bobtail
    dealt = replay.dealt_hand(seat)
    unknown = False
    for shown in state.openers_shown:
        if not known(shown):
            unknown = True
        elif _valid_openers(shown, minimum, bobtail) and (
            dealt is None or minus(dealt, shown) is not None
        ):
            return Known.YES
    if state.shown is not None:
        kept = _kept(state.shown, state, dealt)
        if kept is None:
            unknown = unknown or not known((*state.shown, *state.drawn, *state.fifth))
        else:
            candidate = (*kept, *state.discards)
            if known(kept) and _valid_openers(kept, minimum, bobtail):
                return Known.YES  # the cards it kept were dealt to it and already open
            if not known(candidate):
                unknown = True
            elif len(candidate) == 5 and _valid_openers(candidate, minimum, bobtail):
                return Known.YES
    return Known.UNKNOWN if unknown else Known.NO


def had_openers(ctx: HandContext, seat: int) -> Known:
    """Were the cards dealt to ``seat`` openers? From the deal (or the rebuilt deal);
    where the deal is unknown, a valid proof still shows the seat held them."""
    dealt = ctx.replay.dealt_hand(seat)
    if dealt is not None:
        try:
            held = openers_in(dealt, ctx.openers_required, ctx.profile.bobtail)
        except ValueError:  # a repeated card is D307's question, not ours
            return Known.UNKNOWN
        return Known.YES if held else Known.NO
    return Known.YES if proof(ctx, seat) is Known.YES else Known.UNKNOWN


def dealt_text(replay: Replay, seat: int) -> str:
    """The seat's dealt cards and their reading, for messages."""
    dealt = replay.dealt_hand(seat)
    if dealt is None:
        return "unknown cards"
    try:
        return f"{cards_text(dealt)} ({describe(dealt)})"
    except ValueError:
        return cards_text(dealt)


def opening_lines(replay: Replay) -> list[tuple[int, int]]:
    """(index, seat) of the pot's opening line and of every ``declares openers``."""
    out = []
    if replay.opens_index is not None and replay.original_opener is not None:
        out.append((replay.opens_index, replay.original_opener))
    out.extend(replay.declarations)
    return out


def ruled_false_after(replay: Replay, seat: int, index: int) -> int | None:
    """Index of the first ``Floor: Seat N false openers`` on ``seat`` after ``index``."""
    return next((i for i, s in replay.false_openers if s == seat and i > index), None)


def passed_before_open(replay: Replay, seat: int) -> bool:
    """The seat checked (passed) before the pot was opened."""
    return any(
        step.action.verb is Verb.CHECKS and step.action.seat == seat and not step.pot_open
        and step.street is not None
        for step in replay.steps
    )


def before_draw_complete(replay: Replay) -> int:
    """The first line index from which the action before the draw is complete.

    Complete after a turn line once the pot is open and every seat still in (not
    folded, not ruled dead, not all-in) has acted since the last bet or raise and
    matched it; or from the first line after BEFORE DRAW. A ruling alone never
    completes the round: the dead opener's turn is what the others still wait on
    until they act. Returns the number of lines when the action never completed.
    """
    out = len(replay.steps)
    acted: set[int] = set()
    gone: set[int] = set()
    all_in: set[int] = set()
    first = True
    stacks = {s.seat: s.stack for s in replay.record.seats}
    dealt_in = {n for n, s in replay.seats.items() if s.dealt_in}
    for step in replay.steps:
        a = step.action
        if after_before_draw(a):
            return step.index
        if a.all_in and a.seat is not None:
            all_in.add(a.seat)
        if a.section is not Section.BEFORE_DRAW:
            continue
        if first:  # seats the antes left without chips are all-in before any bet
            first = False
            all_in |= {n for n in dealt_in if stacks.get(n, 0) - step.totals.get(n, 0) <= 0}
        if a.verb in _DEAD_RULINGS and a.seat is not None:
            gone.add(a.seat)
        if a.actor is not Actor.SEAT or a.verb not in _TURN or a.seat is None:
            continue
        if a.verb is Verb.FOLDS:
            gone.add(a.seat)
        if step.bet_after > step.current_bet:
            acted = set()
        acted.add(a.seat)
        if stacks.get(a.seat, 0) - step.totals.get(a.seat, 0) - step.chips <= 0:
            all_in.add(a.seat)
        if not (step.pot_open or step.bet_after > 0):
            continue
        stakes, seat, chips, bet = step.stakes, a.seat, step.chips, step.bet_after
        if not any(
            n not in acted or stakes.get(n, 0) + (chips if n == seat else 0) < bet
            for n in dealt_in - gone - all_in
        ):
            return step.index + 1
    return out


@dataclass(frozen=True, slots=True)
class PotQuestion:
    """The opener's hand ruled dead before the draw, and what the pot had to do."""

    #: Index of the ruling line, and the seat ruled.
    ruling: int
    seat: int
    #: The ruling is ``false openers`` (not ``fouled hand``).
    false_opener: bool
    #: Why the pot had to play (R-JB 4): reasons, empty when it did not have to.
    must_play: tuple[str, ...]
    #: Seats other than the ruled one still in the hand at the ruling (none: no pot to play).
    others_in: tuple[int, ...]
    #: (index, seat) of the declarations after the ruling.
    declarations: tuple[tuple[int, int], ...]
    #: Index of a ``Floor: pot killed`` / ``Floor: pot plays`` line after the ruling.
    killed_line: int | None
    plays_line: int | None
    #: The pot was killed (a kill ruling, or the deal ended passed out).
    killed: bool
    #: First line where play went on (the draw, a bet after it, a collection), if any.
    played_at: int | None


def pot_question(replay: Replay) -> PotQuestion | None:
    """The first ruling, before the draw, that the opener's hand is dead (None if none)."""
    ruling = next(
        (s for s in replay.steps
         if s.action.verb in _DEAD_RULINGS and s.action.section is Section.BEFORE_DRAW
         and s.opener is not None and s.action.seat == s.opener),
        None,
    )
    if ruling is None:
        return None
    r, seat = ruling.index, ruling.opener
    assert seat is not None  # selected on it above
    actions = replay.record.actions
    since_open = [
        a for a in actions[(replay.opens_index or 0):r]
        if a.section is Section.BEFORE_DRAW and a.seat != seat and a.actor is Actor.SEAT
    ]
    reasons = []
    raisers = sorted({a.seat for a in since_open if a.verb is Verb.RAISES and a.seat})
    if raisers:
        reasons.append("seat " + ", ".join(map(str, raisers)) + " raised")
    callers = sorted({a.seat for a in since_open if a.verb is Verb.CALLS and a.seat})
    if len(callers) >= 2:
        reasons.append(f"{len(callers)} seats called the opening bet")
    if before_draw_complete(replay) <= r:
        reasons.append("the action before the draw was complete")
    out = {a.seat for a in actions[:r] if a.verb in _GONE and a.seat is not None}
    others_in = tuple(n for n in replay.order
                      if n != seat and n not in out and replay.seats[n].dealt_in)
    later = actions[r + 1:]
    killed_line = next((a.index for a in later if a.verb is Verb.POT_KILLED), None)
    plays_line = next((a.index for a in later if a.verb is Verb.POT_PLAYS), None)
    played_at = next(
        (a.index for a in later
         if a.verb is Verb.COLLECTS
         or (after_before_draw(a) and a.actor is Actor.SEAT and a.verb is not Verb.SHOWS_OPENERS)),
        None,
    )
    passed_out = replay.record.carried_out is not None
    killed = killed_line is not None or (plays_line is None and passed_out)
    return PotQuestion(
        ruling=r, seat=seat, false_opener=ruling.action.verb is Verb.FALSE_OPENERS,
        must_play=tuple(reasons), others_in=others_in,
        declarations=tuple((i, s) for i, s in replay.declarations if i > r),
        killed_line=killed_line, plays_line=plays_line, killed=killed, played_at=played_at,
    )
