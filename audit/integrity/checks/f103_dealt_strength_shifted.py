"""F103: dealt hands stronger on average than the law gives."""

from __future__ import annotations

from audit.integrity.checks._pit import MeanTest, Observations, dealt_note, dealt_observations
from audit.integrity.features import BatchView


class DealtStrengthShifted(MeanTest):
    """Compares the mean PIT of dealt hands with the 1/2 of fair dealing.

    What it does:
        The randomized PITs of F102 have mean 1/2 and variance 1/12 under a fair deal;
        their sum over a cell is compared with n/2 by its normal approximation. For a
        player or a dealer and player the test is one-sided (hands too good); for a
        dealer or a table it is two-sided, since a bad shuffle may make hands better
        or worse. This is the test for steady, small help: a dealer who improves a
        confederate's hands a little every time, with no single hand remarkable.

    Assumes:
        As F102. The sum of uniforms has lighter tails than the normal law, so the
        normal p-value overstates extreme p-values (conservative).

    Not valid when:
        As F102.

    Minimum sample:
        100 dealt hands in the cell.

    Evidence:
        The cell's hands in the top tail, the strongest first (the mean itself is in
        the alert with its 95% interval).
    """

    code = "F103"
    name = "dealt-strength-shifted"
    summary = "Dealt hands stronger (or, for a dealer, weaker) on average than the law gives."
    what = "dealt hands"

    def observations(self, view: BatchView) -> Observations:
        return dealt_observations(view)

    def note(self, u: float, code: int) -> str:
        return dealt_note(u, code)
