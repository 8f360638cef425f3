"""Small helpers shared by the deal and draw (D) rules.

The replay keeps each seat's dealt, discarded, drawn and fifth cards; the D rules
also need to know *which line* gave a seat which cards, who was still in the hand
when the draw began, and where play went on after the draw. These helpers read
that from the record's lines without changing the replay.
"""

from __future__ import annotations

from collections.abc import Iterator

from audit.replay import Replay
from schemas.records import SECTION_ORDER, UNKNOWN_CARD, Action, Actor, HandRecord, Section, Verb

_POSITION = {s: i for i, s in enumerate(SECTION_ORDER)}
_DRAW_POS = _POSITION[Section.DRAW]

#: Floor rulings and player lines after which a seat is out of the hand.
_OUT = frozenset({Verb.FOLDS, Verb.FALSE_OPENERS, Verb.FOULED_HAND})
#: The lines that are a seat's own turn in the draw (``draws fifth`` is the dealer's
#: completion of an earlier turn, judged by D303).
DRAW_TURNS = frozenset({Verb.DISCARDS, Verb.STANDS_PAT})
#: The only verbs whose lines :func:`received` can give cards.
_RECEIVING = (Verb.DISCARDS, Verb.DRAWS_FIFTH, Verb.DEALS)


def before_draw(action: Action) -> bool:
    """The line is in a section before DRAW (cards then complete the dealt hand)."""
    return _POSITION[action.section] < _DRAW_POS


def after_draw_section(action: Action) -> bool:
    """The line is in a section after DRAW (AFTER DRAW, SHOWDOWN or RESULT)."""
    return _POSITION[action.section] > _DRAW_POS


def received(action: Action) -> tuple[str, ...]:
    """Cards a line hands its seat off the deck in the draw or later: drawn, fifth, dealt.

    A ``Dealer: deals`` line before the draw completes the dealt hand instead and
    gives nothing here (see :func:`before_draw`).
    """
    if action.verb is Verb.DISCARDS:
        return action.drawn or ()
    if action.verb is Verb.DRAWS_FIFTH or (action.verb is Verb.DEALS
                                           and not before_draw(action)):
        return action.cards or ()
    return ()


def receipts(replay: Replay, seat: int) -> Iterator[tuple[Action, tuple[str, ...]]]:
    """Every line that gave ``seat`` cards in the draw or later, with those cards."""
    for a in replay.actions_of(*_RECEIVING):
        if a.seat == seat and (cards := received(a)):
            yield a, cards


def seats_at_draw(replay: Replay) -> list[int]:
    """Seats in the hand when the draw began (clockwise from left of the button).

    Empty when the hand never reached the draw, or ended in a misdeal.
    """
    if replay.draw_index is None or replay.misdeal_index is not None:
        return []
    index = replay.draw_index
    gone = {a.seat for a in replay.actions_of(*_OUT) if a.index < index}
    return [n for n in replay.order if replay.seats[n].dealt_in and n not in gone]


def unknown(cards: tuple[str, ...] | list[str]) -> bool:
    """The list holds an unrecorded card."""
    return UNKNOWN_CARD in cards


def play_goes_on(record: HandRecord, after: int) -> int:
    """The line where play went on past the draw: the first line after index ``after``
    in a section after DRAW (else the RESULT ``Pot`` line)."""
    for a in record.actions[after + 1:]:
        if after_draw_section(a):
            return a.line
    return record.result_line


def first_seat_action(record: HandRecord) -> Action | None:
    """The first line a player writes after the deal: where play began."""
    for a in record.actions:
        if a.actor is Actor.SEAT and _POSITION[a.section] > _POSITION[Section.DEAL]:
            return a
    return None


def cards_text(cards: tuple[str, ...] | list[str]) -> str:
    """``[Ah Kd]`` for messages."""
    return "[" + " ".join(cards) + "]"
