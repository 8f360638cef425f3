"""Where a hand's deal and draw stand, read off its lines (the reference's facts).

The definitions of the facts the compiled replay computes again about the draw: the
cards a line hands its seat off the deck (``received``), the seats in the hand when
the draw began (``at_draw``), and where play began after the deal (``first_play``).
"""

from __future__ import annotations

from schemas.records import SECTION_POSITION, Action, Actor, HandRecord, Section, Verb

from .replay import Replay

_DRAW = SECTION_POSITION[Section.DRAW]
_DEAL = SECTION_POSITION[Section.DEAL]
#: Floor rulings and player lines after which a seat is out of the hand.
_OUT = frozenset({Verb.FOLDS, Verb.FALSE_OPENERS, Verb.FOULED_HAND})


def received(action: Action) -> tuple[str, ...]:
    """Cards a line hands its seat off the deck in the draw or later: drawn, fifth, dealt.

    A ``Dealer: deals`` line before the draw completes the dealt hand instead and gives
    nothing here.
    """
    if action.verb is Verb.DISCARDS:
        return action.drawn or ()
    if action.verb is Verb.DRAWS_FIFTH or (action.verb is Verb.DEALS
                                           and SECTION_POSITION[action.section] >= _DRAW):
        return action.cards or ()
    return ()


def seats_at_draw(replay: Replay) -> list[int]:
    """Seats in the hand when the draw began (clockwise from left of the button); empty
    when the hand never reached the draw, or ended in a misdeal."""
    if replay.draw_index is None or replay.misdeal_index is not None:
        return []
    index = replay.draw_index
    gone = {a.seat for a in replay.actions_of(*_OUT) if a.index < index}
    return [n for n in replay.order if replay.seats[n].dealt_in and n not in gone]


def first_seat_action(record: HandRecord) -> Action | None:
    """The first line a player writes after the deal: where play began."""
    for a in record.actions:
        if a.actor is Actor.SEAT and SECTION_POSITION[a.section] > _DEAL:
            return a
    return None
