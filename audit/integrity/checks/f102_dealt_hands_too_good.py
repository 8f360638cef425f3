"""F102: too many very good dealt hands."""

from __future__ import annotations

from audit.integrity.checks._pit import Observations, TailTest, dealt_note, dealt_observations
from audit.integrity.features import BatchView


class DealtHandsTooGood(TailTest):
    """Counts the dealt hands in the top tail of the exact law and compares with fair dealing.

    What it does:
        Every dealt hand of five known cards gets its randomized PIT against the exact
        law of its deck (52 cards, or 53 with the joker): the share of all possible
        hands worse than it, plus a uniform share of the hands that tie with it. Under
        a fair shuffle this is exactly uniform on (0, 1), so the number of hands in the
        top 5% (the house's tail share) is Binomial(n, 0.05) in every cell: per dealer,
        per table, per dealer and player, per player. The p-value is the exact binomial
        upper tail. This is the test for a dealer who now and then stacks a strong hand
        for a confederate: one such hand in twenty of his deals to that player shows
        here long before it shows in his overall figures.

    Assumes:
        Each seat's five cards are a uniformly random five-card subset of the deck (a
        fair shuffle and deal, whatever the order the cards go round). Within one deal
        the seats' hands are slightly negatively dependent (they share no card); for a
        dealer or a table cell that makes the binomial law slightly conservative
        (measured correlation of two seats' PITs: -0.006 without the joker, -0.010 with
        it, ``benchmarks/integrity_seat_correlation.py``). The tie-breaking uniforms are
        drawn from the hand id, so the figures are the same on every run.

    Not valid when:
        The log's cards are not the cards dealt (a table system that records hands in
        sorted order still works; one that invents cards does not), or hands were
        selected by their cards (a store holding only showdown hands). Hands with
        unknown (``??``) or impossible cards, misdeals and short hands completed by
        the dealer are left out, which is valid only if that happens regardless of
        the cards.

    Minimum sample:
        100 dealt hands in the cell (5 expected in the tail).

    Evidence:
        The cell's hands in the tail, the strongest first, each with its reading and
        how rare it is.
    """

    code = "F102"
    name = "dealt-hands-too-good"
    summary = "Too many dealt hands in the top tail of the exact law."
    what = "dealt hands"

    def observations(self, view: BatchView) -> Observations:
        return dealt_observations(view)

    def note(self, u: float, code: int) -> str:
        return dealt_note(u, code)
