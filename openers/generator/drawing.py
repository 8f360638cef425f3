"""The deal and the draw: cards in rotation, exposed cards, discards, five-card draws.

Exposed cards follow R-DH 3/8 and L-40: a card exposed while dealing is kept by its
seat; one exposed during the draw is set aside and the seat gets the next card.
A seat that discards five gets four at its turn and the fifth after everyone else
has drawn, with a burn first when it drew last (R-DH 5).
"""

from __future__ import annotations

import random

from audit.opening import openers_cards
from openers.generator.handinfo import HIGH, PAIR, read_shape
from openers.generator.state import DealState, SeatState
from schemas.records import JOKER, Actor, Section, Verb

EXPOSE_RATE = 0.004  # per card-receiving seat and deal
FIVE_CARD_DRAW_RATE = 0.2  # of weak hands that reach the draw
SPLIT_RATE = 0.5  # of openers that could split for a one-card flush or straight draw


def deal(st: DealState, rng: random.Random) -> None:
    """Five cards to each seat in rotation from the button's left, exposures noted."""
    order = st.clockwise_from(st.setup.button)
    # In rotation: seat i of n gets the deck's cards i, i + n, ... (five of them).
    deck, pos, n = st.deck, st.deck_pos, len(order)
    for i, s in enumerate(order):
        s.hand.extend(deck[pos + i : pos + 5 * n : n])
    st.deck_pos = pos + 5 * n
    for s in order:
        s.dealt = tuple(s.hand)
        if rng.random() < EXPOSE_RATE:
            card = s.hand[rng.randrange(5)]
            st.draft.add(Section.DEAL, Actor.DEALER, Verb.EXPOSES, s.seat, cards=(card,))
    for s in st.seats:
        st.draft.add(Section.DEAL, Actor.SEAT, Verb.DEALT, s.seat, cards=s.dealt)


def _keep(st: DealState, s: SeatState, rng: random.Random) -> tuple[list[str], bool]:
    """Cards the seat keeps, and whether it declares splitting openers."""
    f = st.forces
    shape = read_shape(tuple(s.hand))
    keep = list(shape.keep)
    if s.seat == st.false_opener and f.false_opener_splits:
        st.events.add("false_opener_splits")
        return keep[:3] if len(keep) > 3 else keep, True
    if s.seat != st.opener or s.seat == st.false_opener:
        if (shape.level == HIGH and not shape.drawing and s.seat != st.opener
                and rng.random() < FIVE_CARD_DRAW_RATE):
            return [], False
        return keep, False
    openers = list(openers_cards(s.dealt, st.setup.openers) or ())
    if f.opener_breaks_openers and shape.level == PAIR and len(openers) == 2:
        return [openers[0]], False
    suited = _four_flush(s.hand)
    if (len(openers) == 2 and suited and sum(c in suited for c in openers) == 1
            and rng.random() < SPLIT_RATE):
        return suited, True
    if all(c in keep for c in openers):
        return keep, False
    return openers, False


def _four_flush(hand: list[str]) -> list[str]:
    """Four cards to a flush (the joker counts in any suit), or []."""
    for suit in "cdhs":
        cards = [c for c in hand if c == JOKER or c[1] == suit]
        if len(cards) == 4:
            return cards
    return []


def _breaks(st: DealState, s: SeatState, discards: list[str]) -> bool:
    """Whether the opener throws away a card of its openers."""
    return any(c in discards for c in openers_cards(s.dealt, st.setup.openers) or ())


def _first_drawing(st: DealState, order: list[SeatState], min_discards: int) -> int | None:
    for s in order:
        wants = len(s.hand) - len(read_shape(tuple(s.hand)).keep)
        if s.seat != st.opener and wants >= min_discards:
            return s.seat
    return None


def draw(st: DealState, rng: random.Random) -> None:
    """The DRAW section: burn, each seat's draw in order, any fifth cards."""
    f, draft = st.forces, st.draft
    burn = st.take()
    recorded = f.record_burn or rng.random() < 0.7
    draft.add(Section.DRAW, Actor.DEALER, Verb.BURNS, cards=(burn,) if recorded else None)
    order = [s for s in st.clockwise_from(st.setup.button) if s.in_hand]
    short = _first_drawing(st, order, 2) if f.short_draw else None
    at_once = _first_drawing(st, order, 1) if f.five_at_once else None
    give_exposed = _first_drawing(st, order, 1) if f.expose_and_give else None
    fifth: list[SeatState] = []
    last_drawer: int | None = None
    for s in order:
        keep, splits = _keep(st, s, rng)
        if s.seat == at_once:
            keep = []
        discards = [c for c in s.hand if c not in keep]
        # A short stub: draw fewer rather than reshuffle (a card must never appear twice).
        while _needed(discards, s.seat == at_once) > st.cards_left() - 2 * len(fifth):
            keep.append(discards.pop())
        if splits:
            draft.add(Section.DRAW, Actor.SEAT, Verb.SPLITS_OPENERS, s.seat)
        elif f.opener_breaks_openers and s.seat == st.opener and _breaks(st, s, discards):
            st.events.add("opener_breaks_openers")
        if not discards:
            draft.add(Section.DRAW, Actor.SEAT, Verb.STANDS_PAT, s.seat)
            continue
        now = len(discards) if (len(discards) < 5 or s.seat == at_once) else 4
        if st.cheats is not None:
            st.cheats.before_serve(st, s, keep, now)
        drawn = _serve(st, s, rng, now, give=s.seat == give_exposed, reserved=2 * len(fifth))
        if s.seat == short:
            st.deck_pos -= 1
            drawn = drawn[:-1]
            st.short_drawer = s.seat
            st.events.add("short_draw")
        if s.seat == at_once and len(discards) == 5:
            st.events.add("five_at_once")
        s.discards, s.drawn = tuple(discards), tuple(drawn)
        s.hand = [c for c in s.hand if c not in discards] + drawn
        draft.add(Section.DRAW, Actor.SEAT, Verb.DISCARDS, s.seat, cards=s.discards,
                  drawn=s.drawn)
        last_drawer = s.seat
        if len(discards) == 5 and now == 4:
            fifth.append(s)
    for s in fifth:
        if s.seat == last_drawer and len(fifth) == 1:
            draft.add(Section.DRAW, Actor.DEALER, Verb.BURNS)
            st.take()
        card = st.take()
        s.hand.append(card)
        s.drawn = (*s.drawn, card)
        draft.add(Section.DRAW, Actor.SEAT, Verb.DRAWS_FIFTH, s.seat, cards=(card,))


def _needed(discards: list[str], at_once: bool) -> int:
    """Cards a draw uses: a five-card draw also holds back the fifth card and its burn."""
    return 6 if len(discards) == 5 and not at_once else len(discards)


def _serve(st: DealState, s: SeatState, rng: random.Random, count: int, give: bool,
           reserved: int) -> list[str]:
    """Cards for one seat's draw, exposing one now and then (set aside unless ``give``)."""
    drawn: list[str] = []
    spare = st.cards_left() - reserved - count - (2 if count == 4 else 0)
    expose = give or (spare > 0 and rng.random() < EXPOSE_RATE)
    if expose:
        card = st.take()
        st.draft.add(Section.DRAW, Actor.DEALER, Verb.EXPOSES, s.seat, cards=(card,))
        if give:
            drawn.append(card)
            st.events.add("expose_and_give")
    while len(drawn) < count:
        drawn.append(st.take())
    return drawn
