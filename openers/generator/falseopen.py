"""A false opener caught before the draw, settled right or wrong (O204, O205, O206).

Dead-hand-refund houses (R-JB 2/4, H-23.2-5): the false opener's hand is dead and its
opening bet stays in the pot; the pot plays if there was a raise, two callers, or the
action before the draw was complete; otherwise, unless another seat declares openers,
every other bet comes back and the pot is carried to the next deal.
"""

from __future__ import annotations

from collections.abc import Callable

from openers.generator.state import DealState, SeatState
from schemas.records import Actor, Section, Verb

#: Rulings a planter can ask for, and the situation each needs.
#: ``kill_right`` is clean play: one caller and seats still to act, nobody declares, the
#: pot is killed and carried with the false opener's opening bet (forfeited money).
AFTER_ONE_CALL = frozenset({"play_wrong", "bad_refund", "declare", "kill_right"})
AFTER_RAISE = frozenset({"kill_wrong"})


def _floor(st: DealState, verb: Verb, seat: int | None = None) -> None:
    st.draft.add(Section.BEFORE_DRAW, Actor.FLOOR, verb, seat)


def _kill(st: DealState, refund_opening: bool) -> None:
    """Pot killed: every bet of the round comes back, except (rightly) the opening bet."""
    _floor(st, Verb.POT_KILLED)
    for s in st.seats:
        back = s.round_bet if (s.seat != st.false_opener or refund_opening) else 0
        if back:
            s.stack += back
            s.total -= back
            s.round_bet -= back
            st.draft.add(Section.BEFORE_DRAW, Actor.DEALER, Verb.RETURNS, s.seat, amount=back)
    st.killed = True


def maybe_rule(st: DealState, before: bool, count: int,
               needs: Callable[[SeatState], bool]) -> bool:
    """After each action of a betting round: rule on the false opener if the planted
    situation has come (the round says whether it is ``before`` the draw, its ``count``
    of a bet and raises so far, and which seats it ``needs`` to act still).

    Returns True when the ruling ended the deal (the pot was killed).
    """
    ruling = st.forces.caught_false_opener
    fo = st.false_opener
    if not ruling or fo is None or not before or "ruled" in st.events:
        return False
    if any(s.all_in for s in st.seats):
        return False  # an all-in caller's share of the dead opening bet is another question
    callers = [s for s in st.seats if s.seat != fo and s.round_bet > 0]
    pending = [s for s in st.seats if s.seat != fo and needs(s)]
    if ruling in AFTER_ONE_CALL:
        ready = count == 1 and len(callers) == 1 and bool(pending)
    else:
        ready = count >= 2
    if not ready:
        return False
    st.events.add("ruled")
    _floor(st, Verb.FALSE_OPENERS, fo)
    st.by_seat(fo).dead = True
    if ruling == "declare":
        declarer = next((s for s in st.seats if s.seat in st.passed_with_openers
                         and s.in_hand and s.can_act), None)
        if declarer is None:
            st.events.add("no_declarer")
            _kill(st, refund_opening=False)
            return True
        st.draft.add(Section.BEFORE_DRAW, Actor.SEAT, Verb.DECLARES_OPENERS, declarer.seat)
        st.opener = declarer.seat
        st.declarer = declarer.seat
        st.events.add("declare")
        return False
    if ruling == "play_wrong":
        _floor(st, Verb.POT_PLAYS)
        st.events.add("play_wrong")
        return False
    _kill(st, refund_opening=ruling == "bad_refund")
    st.events.add(ruling)
    return True
