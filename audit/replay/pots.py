"""The main pot and side pots, from each seat's chips in the pot.

Side pots come from all-in contributions: each all-in level caps a pot that only
seats who put in at least that much contest. Pots are numbered by level, main pot
0 first, then side pots 1, 2, ... (for the usual order of all-ins, this is the order
the all-ins created them). Dead money (``Carried``, penalties) goes to the main pot;
chips of folded or dead seats stay in the pots they reached but those seats are
not eligible.
"""

from __future__ import annotations

from collections.abc import Iterable

from .state import Pot, SeatState


def build_pots(seats: Iterable[SeatState], dead_money: int) -> tuple[Pot, ...]:
    """Split the chips in the pot into the main pot and side pots."""
    seats = list(seats)
    contributions = [(s.seat, s.total, s.in_hand) for s in seats if s.total > 0 or s.in_hand]
    levels = sorted({s.total for s in seats if s.in_hand and s.all_in and s.total > 0})
    top = max((t for _, t, _ in contributions), default=0)
    caps: list[int | None] = [lvl for lvl in levels if lvl < top]
    caps.append(None)
    pots: list[Pot] = []
    previous = 0
    for cap in caps:
        ceiling = top if cap is None else cap
        amount = sum(min(t, ceiling) - min(t, previous) for _, t, _ in contributions if t > 0)
        eligible = tuple(n for n, t, live in contributions if live and t >= ceiling)
        if not pots:
            amount += dead_money
            if ceiling == 0:
                eligible = tuple(n for n, _, live in contributions if live)
        if pots and amount == 0:
            continue
        pots.append(Pot(len(pots), amount, eligible, cap))
        previous = ceiling
    return tuple(pots)
