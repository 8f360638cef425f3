"""F104: too many very good draws."""

from __future__ import annotations

from audit.integrity.checks._pit import Observations, TailTest, draw_note, draw_observations
from audit.integrity.features import BatchView


class DrawsTooGood(TailTest):
    """Counts draws whose cards placed the final hand in the top tail of what the stub allowed.

    What it does:
        At a player's turn to draw, the cards a fair dealer gives are a uniformly random
        subset of the stub: every card not yet seen to leave the deck (dealt to any
        seat, burned face up, exposed, or drawn earlier in the hand). Every possible
        draw is enumerated when there are at most 256 (else 256 are sampled and the
        received draw ranked among them and itself, which keeps the law exact), and
        the final hand's randomized PIT among them is exactly uniform under fair
        dealing, independently from draw to draw. The number of draws in the top 5% of
        their own law is then Binomial(n, 0.05) in each cell: per dealer, table,
        dealer and player, player. A dealer who gives one player good draws shows here
        even when no single hand is remarkable.

    Assumes:
        The stub is every card not seen: the log records every seat's dealt cards, and
        discards are not shuffled back into the stub before the draw ends. A burn card
        the log does not show is simply one of the unseen cards (the law is the same).

    Not valid when:
        The house reshuffles discards into a short stub (a drawn card that was already
        seen marks the hand irregular and it is left out), or a seat's cards are not
        recorded (``??``: the hand is left out). A seat that draws five (four, then the
        fifth after everyone) is left out, since its fifth card comes after later draws.

    Minimum sample:
        100 draws in the cell.

    Evidence:
        The cell's draws in the tail, the luckiest first: what was drawn to and how rare.
    """

    code = "F104"
    name = "draws-too-good"
    summary = "Too many draws in the top tail of what the stub allowed."
    what = "draws"

    def observations(self, view: BatchView) -> Observations:
        return draw_observations(view)

    def note(self, u: float, code: int) -> str:
        return draw_note(u, code)
