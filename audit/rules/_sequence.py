"""Helpers shared by the deal-sequence (J) rules over the deal tables."""

from __future__ import annotations

import numpy as np

from audit.facts.sequence import Run


def previous_row(ctx: Run) -> np.ndarray:
    """Each deal's previous deal's row, 0 where there is none (mask with ``previous >= 0``)."""
    return np.maximum(ctx.previous, 0)


def seat_anchor(ctx: Run, deal: object, seat: object) -> tuple[int | None, int | None]:
    """(line, index) a finding about a seat points to: its first line, else the hand's."""
    if seat is not None and seat.anchor_index >= 0:  # type: ignore[attr-defined]
        return seat.anchor_line, seat.anchor_index  # type: ignore[attr-defined]
    return deal.first_line or None, None  # type: ignore[attr-defined]

