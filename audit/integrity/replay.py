"""One compiled pass over a batch: every seat's cards, every draw's PIT, every betting decision.

The pass walks each hand's lines in order, as the table played them, and keeps only
what the tests need:

- per seat: the five dealt cards, the final hand's strength, its place in the deal
  (0 = first left of the button), chips in before and after the draw, chips
  collected;
- per draw: the randomized PIT of :mod:`audit.integrity.draws`, with the stub the
  draw came from (every card not yet seen to leave the deck);
- per betting decision (a turn: check, open, bet, call, raise or fold): who acted,
  who was still live, who bet last, what the actor's cards were worth against the
  others' (the final hands are known after the draw) and, before the pot is open,
  whether the actor held openers and who sat behind.

A hand whose cards cannot all be read (``??``, a card seen twice, a misdeal, a card
dealt to complete a short hand) keeps its betting decisions but gives no card
figures (``irregular``), so a broken log can never look like a stacked deck.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from audit.facts.evaluate import CATEGORY_SHIFT
from audit.integrity.draws import SAMPLES
from audit.integrity.frames import Batch
from audit.integrity.replay_kernel import (
    AFTER,
    BEFORE,
    MAX_SEATS,
    TWO_PAIR_LEVEL,
    V_BETS,
    V_CALLS,
    V_CHECKS,
    V_FOLDS,
    V_OPENS,
    V_RAISES,
    replay_hands,
)

__all__ = [
    "AFTER", "BEFORE", "MAX_SEATS", "TWO_PAIR_LEVEL", "V_BETS", "V_CALLS", "V_CHECKS",
    "V_FOLDS", "V_OPENS", "V_RAISES", "Decisions", "Draws", "Replayed", "Seats",
    "category_level", "replay",
]


@dataclass
class Seats:
    """Per seat row of the batch (aligned with ``Batch.s_*``)."""

    hand: npt.NDArray[np.int32]  #: the seat's hand row in the batch
    dealt: npt.NDArray[np.int8]  #: (n, 5) card codes
    dealt_ok: npt.NDArray[np.bool_]  #: five known cards dealt, in a regular hand
    position: npt.NDArray[np.int8]  #: 0 = first left of the button
    final: npt.NDArray[np.int64]  #: strength of the final hand, -1 unknown
    chips_in: npt.NDArray[np.int64]
    chips_after: npt.NDArray[np.int64]
    collected: npt.NDArray[np.int64]
    live_end: npt.NDArray[np.bool_]


@dataclass
class Draws:
    """One row per draw with a PIT (regular hands only)."""

    seat_row: npt.NDArray[np.int32]
    u: npt.NDArray[np.float64]
    exact: npt.NDArray[np.bool_]
    k: npt.NDArray[np.int8]


@dataclass
class Decisions:
    """One row per betting decision; seat masks are over the hand's local seat indices."""

    hand: npt.NDArray[np.int32]
    actor: npt.NDArray[np.int8]
    section: npt.NDArray[np.int8]  #: BEFORE or AFTER
    verb: npt.NDArray[np.int8]
    preopen: npt.NDArray[np.bool_]
    facing: npt.NDArray[np.bool_]
    live: npt.NDArray[np.int16]  #: live seats other than the actor
    aggressor: npt.NDArray[np.int8]  #: last bettor or raiser this round, -1 none
    behind: npt.NDArray[np.int16]  #: before the open: live seats yet to act
    openers: npt.NDArray[np.int8]  #: before the open: 1 / 0 dealt openers, -1 n/a
    best: npt.NDArray[np.int8]  #: after the draw: 1 beats every live hand, 0 not, -1 unknown
    beaten: npt.NDArray[np.int16]  #: after the draw: live seats whose hand beats the actor's
    chips: npt.NDArray[np.int64]  #: chips the action put in
    all_in: npt.NDArray[np.bool_]  #: the actor or a live opponent is all-in
    raises: npt.NDArray[np.int8]  #: opens, bets and raises so far this round


@dataclass
class Replayed:
    """What the pass gives for one batch."""

    irregular: npt.NDArray[np.bool_]
    seats: Seats
    draws: Draws
    decisions: Decisions


def replay(batch: Batch, *, bobtail: bool = False, samples: int = SAMPLES) -> Replayed:
    """Run the compiled pass over ``batch``."""
    b = batch
    out = replay_hands(b.h_key, b.h_joker, b.h_button, b.h_openers, b.h_small, b.h_big,
                  b.h_seat_start, b.h_seat_count, b.h_act_start, b.h_act_count, b.s_seat,
                  b.a_order, b.a_section, b.a_actor, b.a_verb, b.a_seat, b.a_amount, b.a_to,
                  b.a_all_in, b.a_cards_start, b.a_cards_count, b.a_drawn_start,
                  b.a_drawn_count, b.cards, bobtail, samples)
    (irregular, dealt, dealt_ok, position, final, chips_in, chips_after, collected, live_end,
     draw_seat, draw_u, draw_exact, draw_k, *dec) = out
    seat_hand = np.repeat(np.arange(len(b), dtype=np.int32), b.h_seat_count)
    keep = ~irregular[seat_hand[draw_seat]] if len(draw_seat) else np.zeros(0, dtype=np.bool_)
    return Replayed(
        irregular=irregular,
        seats=Seats(seat_hand, dealt, dealt_ok, position, final, chips_in, chips_after,
                    collected, live_end),
        draws=Draws(draw_seat[keep], draw_u[keep], draw_exact[keep], draw_k[keep]),
        decisions=Decisions(*dec),
    )


def category_level(strengths: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Category levels (0..9) of strengths; -1 stays -1."""
    return np.where(strengths >= 0, strengths >> CATEGORY_SHIFT, -1)
