"""A crooked dealer: he arranges the deck so his confederate gets a good hand or a good draw.

He does it the way a mechanic does: the shuffle is fair, then the cards the confederate
will receive are exchanged with better ones from elsewhere in the deck. The rest of
the deck stays a permutation of the same cards, so every line of the hand is legal.
"Better" is the best of ``strength`` random hands (or draws): at 20, an arranged hand
is in the top 5% of the law about two times in three.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from audit.evaluator import evaluate
from openers.generator.state import DealState, SeatState


def _place(deck: list[str], positions: Sequence[int], cards: Sequence[str]) -> None:
    """Put ``cards`` at ``positions`` by swaps (each card moves from wherever it is)."""
    for position, card in zip(positions, cards, strict=True):
        j = deck.index(card)
        deck[position], deck[j] = deck[j], deck[position]


def arrange_deal(st: DealState, seat: int, strength: int, rng: random.Random) -> bool:
    """Give ``seat`` the best of ``strength`` random five-card hands of the shuffled deck.

    Cards go round from the button's left, so the seat's cards are at deck positions
    ``k * n + i``. Returns False when the seat is not dealt in.
    """
    order = [s.seat for s in st.clockwise_from(st.setup.button)]
    if seat not in order:
        return False
    n, i = len(order), order.index(seat)
    best = max((rng.sample(st.deck, 5) for _ in range(strength)), key=evaluate)
    rng.shuffle(best)
    _place(st.deck, [k * n + i for k in range(5)], best)
    return True


def arrange_draw(st: DealState, s: SeatState, kept: Sequence[str], count: int, strength: int,
                 rng: random.Random) -> bool:
    """Make the next ``count`` cards off the deck the best of ``strength`` random draws from
    the stub for a seat keeping ``kept``. Returns False for a draw that is not to five cards."""
    if len(kept) + count != 5 or count < 1:
        return False
    stub = st.deck[st.deck_pos:len(st.deck) - 1]  # the last card stays back as the spare
    if len(stub) < count:
        return False
    best = max((rng.sample(stub, count) for _ in range(strength)),
               key=lambda drawn: evaluate([*kept, *drawn]))
    _place(st.deck, range(st.deck_pos, st.deck_pos + count), best)
    return True
