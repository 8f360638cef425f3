"""What a seat's cards say about openers, as the log proves it (the reference's facts).

rules.md "What counts as openers": openers are judged on the five cards *dealt*; a
seat proves them with ``shows openers [..]`` or with a ``shows`` of its final hand whose
kept cards plus discards (the cards dealt) are openers. Where the cards needed are
``??`` the answer is UNKNOWN rather than a guess. These are the definitions of the
seats table's ``had_openers``, ``proof`` and ``kept_openers`` (:mod:`audit.facts.tables`),
which the compiled replay computes again and the tests hold equal.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from audit.opening import holds_openers, is_openers
from schemas.records import Openers

from .cards import known, minus
from .replay import Replay
from .state import Known, SeatState


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


def proof(replay: Replay, seat: int, minimum: Openers, bobtail: bool) -> Known:
    """Did ``seat`` show openers in this hand (R-JB 3, H-23.4, L-33)?

    A ``shows openers [..]`` whose cards hold openers (and, where the deal is known,
    were dealt to the seat), or a ``shows`` of the final hand whose kept cards plus
    discards are openers (or whose kept cards alone already are). UNKNOWN when the
    only candidate proofs hold ``??``.
    """
    state = replay.seat(seat)
    if state is None:
        return Known.NO
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


def had_openers(replay: Replay, seat: int, minimum: Openers, bobtail: bool) -> Known:
    """Were the cards dealt to ``seat`` openers? From the deal (or the rebuilt deal);
    where the deal is unknown, a valid proof still shows the seat held them."""
    dealt = replay.dealt_hand(seat)
    if dealt is not None:
        try:
            held = openers_in(dealt, minimum, bobtail)
        except ValueError:  # a repeated card is D307's question, not ours
            return Known.UNKNOWN
        return Known.YES if held else Known.NO
    return Known.YES if proof(replay, seat, minimum, bobtail) is Known.YES else Known.UNKNOWN


def _holds(cards: Sequence[str], minimum: Openers, bobtail: bool) -> Known:
    try:
        held = holds_openers(cards, minimum, bobtail=bobtail)
    except ValueError:
        return Known.UNKNOWN
    return Known.YES if held else Known.NO


def kept_openers(replay: Replay, seat: int, minimum: Openers, bobtail: bool) -> Known:
    """Do the cards ``seat`` kept through the draw hold openers (R-JB 10)? From its shown
    hand less the cards it drew, else from the cards dealt less the discards."""
    state = replay.seats[seat]
    if state.shown is not None:
        kept = minus(state.shown, (*state.drawn, *state.fifth))
        if kept is not None and known(kept) and _holds(kept, minimum, bobtail) is Known.YES:
            return Known.YES
    dealt = replay.dealt_hand(seat)
    if dealt is None or not known(state.discards):
        return Known.UNKNOWN
    rest = minus(dealt, state.discards)
    return Known.UNKNOWN if rest is None else _holds(rest, minimum, bobtail)
