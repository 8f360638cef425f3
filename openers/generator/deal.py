"""One deal from the antes to the RESULT, as a :class:`~openers.generator.draft.Draft`."""

from __future__ import annotations

import random

from audit.evaluator import evaluate
from audit.opening import is_openers
from audit.profiles import Profile
from openers.generator import drawing
from openers.generator.betting import Round, show_openers
from openers.generator.cheats.table import DealCheats
from openers.generator.draft import Draft, Header
from openers.generator.showdown import award, refund_weak_callers, showdown
from openers.generator.state import DealSetup, DealState, Forces, SeatState, TableSettings
from schemas.records import JOKER, RANKS, SUITS, Actor, Section, Verb

_DECK = tuple(r + s for r in RANKS for s in SUITS)


def _header(table: TableSettings, setup: DealSetup) -> Header:
    return Header(
        hand_id=setup.hand_id, time=setup.time, room=table.room, table_id=table.table_id,
        dealer_id=setup.dealer_id, game=table.game, limit_small=table.small,
        limit_big=table.big, ante=setup.ante, joker=table.joker, button=setup.button,
        jackpot=setup.jackpot, openers=setup.openers, carried=setup.carried,
        seats=[(n, p.player_id, p.stack) for n, p in sorted(setup.seats.items())],
    )


def _dealt_ahead(st: DealState) -> dict[int, tuple[str, ...]]:
    """The five cards each seat is about to be dealt (the deck is already shuffled)."""
    order = st.clockwise_from(st.setup.button)
    n = len(order)
    return {s.seat: tuple(st.deck[k * n + i] for k in range(5)) for i, s in enumerate(order)}


def _short_stack(st: DealState, seat: int, stack: int) -> None:
    """A seat whose chips ran low: the header shows the short stack."""
    st.by_seat(seat).stack = stack
    st.draft.header.seats = [(n, p, stack if n == seat else st_) for n, p, st_ in
                             st.draft.header.seats]


def _rig_stacks(st: DealState) -> None:
    """Forced all-in situations (B107, P403): short stacks where the cards make them matter."""
    ahead = _dealt_ahead(st)
    ante = st.setup.ante
    if st.forces.all_in_opener and ante > 0:
        for seat, cards in ahead.items():
            if is_openers(cards, st.setup.openers, bobtail=st.profile.bobtail):
                _short_stack(st, seat, ante)
                return
    if st.forces.short_stack_best:
        best = max(ahead, key=lambda seat: evaluate(ahead[seat]))
        _short_stack(st, best, ante + st.table.small)


def _antes(st: DealState) -> None:
    ante = st.setup.ante
    if ante <= 0:
        return
    skip = None
    if st.forces.skip_ante_seat:
        skip = next((s.seat for s in st.seats
                     if s.stack > ante and s.seat != st.setup.button), None)
    for s in st.seats:
        if s.seat == skip:
            st.events.add("skip_ante_seat")
            continue
        chips = min(ante, s.stack)
        s.stack -= chips
        s.total += chips
        s.all_in = s.stack == 0
        st.draft.add(Section.ANTES, Actor.SEAT, Verb.ANTES, s.seat, amount=chips,
                     all_in=s.all_in)


def _uncontested(st: DealState, section: Section) -> None:
    winner = st.live()[0]
    if winner.seat == st.opener:
        show_openers(st, winner, section)
    award(st)


def _after_draw_first(st: DealState) -> int | None:
    assert st.opener is not None
    opener = st.by_seat(st.opener)
    if opener.can_act:
        return opener.seat
    for s in st.clockwise_from(opener.seat):
        if s.can_act:
            return s.seat
    return None


def _showdown_first(st: DealState) -> int:
    aggressive = [r.seat for r in st.draft.rows
                  if r.section is Section.AFTER_DRAW and r.verb in (Verb.BETS, Verb.RAISES)]
    if aggressive and aggressive[-1] is not None and st.by_seat(aggressive[-1]).in_hand:
        return aggressive[-1]
    return next(s.seat for s in st.clockwise_from(st.setup.button) if s.in_hand)


def _found_unproven(st: DealState, rng: random.Random) -> bool:
    """Forced J508: the floor finds the false opener at the showdown. Either the pot is
    carried (L-33) but the double-ante penalty is not charged (J508 on this very deal),
    or the penalty is paid but the pot goes to the best other live hand, so the next
    deal is not the next jack-pot (J508 on that next deal)."""
    fo = st.false_opener
    shown = [r for r in st.draft.find(Verb.SHOWS, fo, Section.SHOWDOWN)]
    if fo is None or not shown:
        return False
    st.draft.add(Section.SHOWDOWN, Actor.FLOOR, Verb.FALSE_OPENERS, fo)
    others = [s for s in st.live() if s.seat != fo]
    seat = st.by_seat(fo)
    penalty = st.profile.unproven_opener_penalty_antes * st.setup.ante
    if others and 0 < penalty <= seat.stack and rng.random() < 0.4:
        seat.stack -= penalty
        st.dead_money += penalty
        st.draft.add(Section.SHOWDOWN, Actor.FLOOR, Verb.PENALTY, fo, amount=penalty)
        seat.dead = True
        award(st)
        st.events.add("unproven_pushed")
        return True
    st.draft.pot = sum(s.total for s in st.seats) + st.dead_money + st.setup.carried
    st.draft.carried_out = st.draft.pot
    st.events.add("unproven_carried")
    return True


def play_deal(table: TableSettings, profile: Profile, setup: DealSetup, forces: Forces,
              rng: random.Random, cheats: DealCheats | None = None) -> DealState:
    """Simulate one deal; the returned state holds the draft and what happened."""
    deck = list(_DECK) + ([JOKER] if table.joker else [])
    rng.shuffle(deck)
    seats = [SeatState(n, p, p.stack) for n, p in sorted(setup.seats.items())]
    st = DealState(table, profile, setup, forces, Draft(_header(table, setup)), seats, deck)
    if cheats is not None:
        st.cheats = cheats
        cheats.after_shuffle(st)
    if forces.all_in_opener or forces.short_stack_best:
        _rig_stacks(st)
    _antes(st)
    drawing.deal(st, rng)
    first = st.clockwise_from(setup.button)[0].seat
    before = Round(st, rng, Section.BEFORE_DRAW)
    before.run(first)
    if st.opener is None or st.killed:
        st.draft.pot = sum(s.total for s in st.seats) + st.dead_money + setup.carried
        st.draft.carried_out = st.draft.pot
        return st
    if len(st.live()) == 1:
        _uncontested(st, Section.BEFORE_DRAW)
        return st
    drawing.draw(st, rng)
    if st.short_drawer is not None and not forces.short_draw_played:
        st.draft.add(Section.DRAW, Actor.FLOOR, Verb.FOULED_HAND, st.short_drawer)
        st.by_seat(st.short_drawer).dead = True
        st.short_drawer = None
    after_first = _after_draw_first(st)
    if after_first is not None and sum(1 for s in st.seats if s.can_act) >= 2:
        Round(st, rng, Section.AFTER_DRAW).run(after_first)
    if len(st.live()) == 1:
        _uncontested(st, Section.AFTER_DRAW)
        return st
    if forces.refund_weak_caller:
        refund_weak_callers(st)
    showdown(st, rng, _showdown_first(st))
    if forces.unproven_at_showdown and _found_unproven(st, rng):
        return st
    if len(st.live()) == 1 and st.live()[0].seat == st.opener:
        show_openers(st, st.live()[0], Section.SHOWDOWN)
    award(st)
    return st
