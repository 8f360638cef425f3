"""F108: the same deck order dealt twice."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from math import perm

import numpy as np
import numpy.typing as npt

from audit.integrity import stats
from audit.integrity.checks._common import level_keys, subject_of
from audit.integrity.features import BatchView, Lookup
from audit.integrity.model import Cell, Evidence, Family, Level
from audit.integrity.test import IntegrityTest, Settings

I64 = npt.NDArray[np.int64]
#: Cards of the deal's order compared (the first ten dealt).
PREFIX = 10
_BITS = 6


def deal_orders(view: BatchView) -> tuple[I64, npt.NDArray[np.bool_]]:
    """The first :data:`PREFIX` cards of each complete hand in the order dealt, packed
    6 bits a card into one int64, and which hands have them."""
    b = view.batch
    seats = view.replayed.seats
    n = len(b)
    prefix = np.full((n, PREFIX), -1, dtype=np.int64)  # only the first cards are kept
    m = b.h_seat_count[view.seat_hand].astype(np.int64)
    place = seats.position.astype(np.int64)
    ok = view.hand_complete[view.seat_hand] & (place >= 0)
    for k in range(5):
        slot = k * m + place
        put = ok & (slot < PREFIX)
        prefix[view.seat_hand[put], slot[put]] = seats.dealt[put, k]
    usable = view.hand_complete & (b.h_seat_count >= 2)
    usable &= (prefix >= 0).all(axis=1)
    packed = np.zeros(n, dtype=np.int64)
    for i in range(PREFIX):
        packed |= np.where(prefix[:, i] >= 0, prefix[:, i], 0) << (_BITS * i)
    return packed, usable


class RepeatedDeckOrders(IntegrityTest):
    """Finds deals whose first ten cards came out in the same order as another deal's.

    What it does:
        The order the cards left the deck is read back from the deal (round by round
        from the button's left). Two fair shuffles give the same first ten cards with
        chance 1 / (52 x 51 x ... x 43), about 1 in 57 million million million: over a
        million deals the expected number of such pairs is still below one in ten
        thousand. Every deal whose first ten cards repeat another deal's is counted
        for its dealer and its table, and the count is tested against a Poisson law
        with that tiny mean. A cold deck (a prearranged deck switched in) or a deck
        not shuffled between deals shows here at once.

    Assumes:
        A fair shuffle before every deal.

    Not valid when:
        The log's seat cards are not in the order they were dealt (a table system that
        sorts each hand): the test then compares sets, whose repeats are far more
        likely, and its Poisson mean is too small. Keep it off for such a room.

    Minimum sample:
        Every dealer and table with a deal is tested (one repeat is already decisive).

    Evidence:
        Each repeated deal with the deal it repeats.
    """

    code = "F108"
    name = "repeated-deck-order"
    family = Family.DEALING
    levels = (Level.DEALER, Level.TABLE)
    summary = "The same order of cards dealt in two deals (a cold or unshuffled deck)."

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self._prefix: list[I64] = []
        self._rows: list[I64] = []
        self._owner: dict[Level, list[I64]] = {level: [] for level in self.levels}
        self._joker: list[npt.NDArray[np.bool_]] = []

    def feed(self, view: BatchView) -> None:
        b = view.batch
        packed, usable = deal_orders(view)
        self._prefix.append(packed[usable])
        self._rows.append(view.hand_row[usable])
        self._joker.append(b.h_joker[usable])
        for level in self.levels:
            keys = level_keys(level, b.h_dealer, b.h_table, 0)
            self._owner[level].append(keys[usable])

    def cells(self, lookup: Lookup) -> Iterable[Cell]:
        if not self._prefix:
            return
        prefix = np.concatenate(self._prefix)
        rows = np.concatenate(self._rows)
        joker = np.concatenate(self._joker)
        # a repeat needs the same deck too: put the deck in the key's top bit
        key = prefix | (joker.astype(np.int64) << 62)
        _unique, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
        repeated = counts[inverse] > 1
        first_row: dict[int, int] = {}
        order = np.argsort(rows, kind="stable")
        for i in order[repeated[order]]:
            first_row.setdefault(int(key[i]), int(rows[i]))
        total = {False: int((~joker).sum()), True: int(joker.sum())}
        match = {False: 1 / perm(52, PREFIX), True: 1 / perm(53, PREFIX)}
        for level in self.levels:
            owner = np.concatenate(self._owner[level])
            for cell in np.unique(owner).tolist():
                if level is Level.DEALER and lookup.dealer(cell) == "":
                    continue
                mine = owner == cell
                mean = sum(int((mine & (joker == j)).sum()) * total[j] * match[j]
                           for j in (False, True))
                hits = np.nonzero(mine & repeated)[0]
                hits = hits[np.argsort(rows[hits], kind="stable")]
                x = len(hits)
                low, high = stats.poisson_interval(x)
                subject = subject_of(level, cell, lookup)
                notes = [f"first {PREFIX} cards in the same order as hand "
                         f"{lookup.hand_id(first_row[int(key[i])])}" for i in hits]
                yield Cell(
                    code=self.code, level=level, subject=subject, n=int(mine.sum()),
                    statistic=f"deals whose first {PREFIX} cards repeat another deal's",
                    observed=x, expected=mean, effect=x, effect_label="repeated deals",
                    ci_low=low, ci_high=high, p_value=stats.poisson_upper(x, mean),
                    message=(f"{subject.text()}: {x} of {int(mine.sum())} deals repeat the "
                             f"order of another deal's first {PREFIX} cards; fair shuffles "
                             f"give {mean:.1e}"),
                    evidence=partial(Evidence, rows[hits], notes),
                    details={"prefix_cards": PREFIX},
                )
