"""What the pot rules (P401-P403) share: pot labels, the rows of the collections, and
the fair splits of a tied pot under the odd-chip rule.

The odd-chip convention is the format spec's: an uneven split gives the odd chip to the
first winning seat clockwise from the button (one each, in that order, when more than one
is left over). The log does not name the table's smallest chip, so a split in whole cents
and one in whole chips of the usual sizes are both fair.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from audit.facts.context import Batch
from ingest.scan.layout import ACTOR_SEAT
from schemas.records import Verb


def pot_label(number: int) -> str:
    """``the main pot`` or ``side pot K`` for messages."""
    return "the main pot" if number == 0 else f"side pot {number}"


#: Chip sizes in cents an odd amount may be left over in: the odd cent of the format spec,
#: or the table's smallest chip, which the log does not name (one unit is the usual one).
ODD_CHIPS: tuple[int, ...] = (1, 5, 25, 50, 100)


def split(total: int, winners: Iterable[int], chip: int = 1) -> dict[int, int]:
    """``total`` cents shared by ``winners`` (clockwise order) in whole ``chip``s, the odd
    chips one each to the first winners (the last odd chip may be a part of a chip)."""
    order = list(winners)
    base = total // (len(order) * chip) * chip
    odd = total - base * len(order)
    shares = {}
    for n in order:
        extra = min(chip, odd)
        shares[n] = base + extra
        odd -= extra
    return shares


def fair_splits(total: int, winners: Sequence[int]) -> list[dict[int, int]]:
    """Every split of ``total`` among tied ``winners`` that follows the odd-chip rule."""
    found: list[dict[int, int]] = []
    for chip in ODD_CHIPS:
        shares = split(total, winners, chip)
        if shares not in found:
            found.append(shares)
    return found


def paid_rows(ctx: Batch) -> np.ndarray:
    """The ``collects`` lines of seated seats."""
    a = ctx.actions
    rows = ctx.rows(Verb.COLLECTS)
    return rows[(a.actor[rows] == ACTOR_SEAT) & (a.status[rows] != 0)]
