"""Hypothesis strategies for hand records the text format can represent."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from hypothesis import strategies as st

from schemas.records import (
    CARD_CODES,
    SECTION_ORDER,
    Action,
    Actor,
    Game,
    HandRecord,
    Openers,
    Seat,
    Verb,
)

IDENT = st.text(alphabet="ABCXYZabcxyz0123456789._-", min_size=1, max_size=12)
# Free text on one line, as the format keeps it: no control characters, no edge blanks.
FREE = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=20
).filter(lambda s: s == s.strip())
CENTS = st.integers(min_value=0, max_value=10**9)
SEATS = st.integers(min_value=1, max_value=10)
CARDS = st.lists(st.sampled_from(CARD_CODES), max_size=7).map(tuple)
OFFSETS = st.integers(min_value=-14 * 60, max_value=14 * 60).map(
    lambda m: timezone(timedelta(minutes=m)) if m else UTC
)
TIMES = st.datetimes(
    min_value=datetime(1990, 1, 1), max_value=datetime(2100, 1, 1), timezones=OFFSETS
)

_PLAYER_AMOUNT = (Verb.ANTES, Verb.OPENS, Verb.BETS, Verb.CALLS)
_PLAYER_BARE = (Verb.CHECKS, Verb.FOLDS, Verb.DECLARES_OPENERS, Verb.SPLITS_OPENERS,
                Verb.STANDS_PAT, Verb.RETRIEVES_HAND)
_PLAYER_CARDS = (Verb.DEALT, Verb.SHOWS_OPENERS, Verb.DRAWS_FIFTH)


@st.composite
def action_fields(draw: st.DrawFn) -> dict[str, Any]:
    """The fields of one action of any verb (without index, line, section)."""
    verb = draw(st.sampled_from(list(Verb)))
    seat = draw(SEATS)
    f: dict[str, Any] = {"verb": verb, "actor": Actor.SEAT, "seat": seat}
    if verb in _PLAYER_AMOUNT:
        f |= {"amount": draw(CENTS), "all_in": draw(st.booleans())}
    elif verb is Verb.RAISES:
        f |= {"amount": draw(CENTS), "to_amount": draw(CENTS), "all_in": draw(st.booleans())}
    elif verb is Verb.WITHDRAWS:
        f["amount"] = draw(CENTS)
    elif verb in _PLAYER_CARDS:
        f["cards"] = draw(CARDS)
    elif verb is Verb.DISCARDS:
        f |= {"cards": draw(CARDS), "drawn": draw(CARDS)}
    elif verb is Verb.SHOWS:
        f |= {"cards": draw(CARDS), "reading": draw(st.none() | FREE)}
    elif verb is Verb.MUCKS:
        f["cards"] = draw(st.none() | CARDS)
    elif verb is Verb.COLLECTS:
        f |= {"amount": draw(CENTS), "side_pot": draw(st.none() | st.integers(1, 9))}
    elif verb in (Verb.BURNS, Verb.MISDEAL):
        f |= {"actor": Actor.DEALER, "seat": None}
        if verb is Verb.BURNS:
            f["cards"] = draw(st.none() | CARDS)
    elif verb in (Verb.EXPOSES, Verb.DEALS):
        f |= {"actor": Actor.DEALER, "cards": draw(CARDS)}
    elif verb is Verb.RETURNS:
        f |= {"actor": Actor.DEALER, "amount": draw(CENTS)}
    elif verb in (Verb.FALSE_OPENERS, Verb.FOULED_HAND):
        f["actor"] = Actor.FLOOR
    elif verb is Verb.PENALTY:
        f |= {"actor": Actor.FLOOR, "amount": draw(CENTS)}
    elif verb in (Verb.POT_PLAYS, Verb.POT_KILLED):
        f |= {"actor": Actor.FLOOR, "seat": None}
    elif verb is Verb.NOTE:
        f |= {"actor": Actor.FLOOR, "seat": None, "note": draw(FREE)}
    else:
        assert verb in _PLAYER_BARE, verb
    return f


@st.composite
def hand_records(draw: st.DrawFn, max_actions: int = 25) -> HandRecord:
    """A hand record whose every field the text format can hold (positions are 0)."""
    numbers = draw(st.lists(SEATS, min_size=2, max_size=10, unique=True))
    seats = tuple(
        Seat(seat=n, player_id=draw(FREE), stack=draw(CENTS)) for n in sorted(numbers)
    )
    bodies = draw(st.lists(action_fields(), max_size=max_actions))
    sections = sorted(draw(st.lists(st.sampled_from(SECTION_ORDER), min_size=len(bodies),
                                    max_size=len(bodies))), key=SECTION_ORDER.index)
    actions = tuple(
        Action(index=i, line=0, section=sec, **body)
        for i, (sec, body) in enumerate(zip(sections, bodies, strict=True))
    )
    return HandRecord(
        hand_id=draw(IDENT), time=draw(TIMES), room=draw(st.none() | FREE),
        table_id=draw(IDENT), dealer_id=draw(st.none() | FREE),
        game=draw(st.sampled_from(list(Game))), limit_small=draw(CENTS),
        limit_big=draw(CENTS), ante=draw(CENTS), joker=draw(st.booleans()),
        button=draw(SEATS), jackpot=draw(st.integers(1, 50)),
        openers=draw(st.none() | st.sampled_from(list(Openers))), carried=draw(CENTS),
        seats=seats, actions=actions, pot=draw(CENTS), rake=draw(CENTS),
        carried_out=draw(st.none() | CENTS),
    )


def without_positions(record: HandRecord) -> HandRecord:
    """``record`` with its source positions zeroed, to compare round trips."""
    return record.model_copy(update={
        "first_line": 0,
        "result_line": 0,
        "actions": tuple(a.model_copy(update={"line": 0}) for a in record.actions),
    })
