"""F105: draws better on average than the stub gives."""

from __future__ import annotations

from audit.integrity.checks._pit import MeanTest, Observations, draw_note, draw_observations
from audit.integrity.features import BatchView


class DrawQualityShifted(MeanTest):
    """Compares the mean PIT of draws with the 1/2 of fair dealing.

    What it does:
        The draw PITs of F104 have mean 1/2 and variance 1/12 and are independent under
        fair dealing; their sum over a cell is compared with n/2 (one-sided for players,
        two-sided for dealers and tables). Per-dealer figures with their expected band
        are on the dashboard's Integrity page.

    Assumes:
        As F104; the normal approximation is conservative in the far tail.

    Not valid when:
        As F104.

    Minimum sample:
        100 draws in the cell.

    Evidence:
        The cell's draws in the top tail, the luckiest first.
    """

    code = "F105"
    name = "draw-quality-shifted"
    summary = "Draws better (or, for a dealer, worse) on average than the stub gives."
    what = "draws"

    def observations(self, view: BatchView) -> Observations:
        return draw_observations(view)

    def note(self, u: float, code: int) -> str:
        return draw_note(u, code)
