"""F109: cards that come back to the same seat on the next deal."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from math import comb

import numpy as np
import numpy.typing as npt

from audit.integrity import stats
from audit.integrity.checks._common import Events, level_keys, subject_of
from audit.integrity.checks._sums import Sums
from audit.integrity.features import BatchView, Lookup
from audit.integrity.model import Cell, Family, Level
from audit.integrity.test import IntegrityTest, Settings
from schemas.records import CARD_CODES

U64 = npt.NDArray[np.uint64]
MIN_SAMPLE = 100
_SEATS = 11


def returns_law(deck: int) -> npt.NDArray[np.float64]:
    """Hypergeometric(deck, 5, 5): how many of a seat's five cards are dealt to it again."""
    return np.array([comb(5, k) * comb(deck - 5, 5 - k) / comb(deck, 5) for k in range(6)])


def mask_cards(mask: int) -> str:
    """The cards of a 53-bit card mask, e.g. ``Ah Kd``."""
    return " ".join(CARD_CODES[c] for c in range(53) if (mask >> c) & 1)


class CardsReturnToSeat(IntegrityTest):
    """Counts cards of a seat's hand that are dealt to the same seat again on the next deal.

    What it does:
        For two consecutive deals of a table, the number of the seat's five dealt cards
        that it is dealt again is hypergeometric (deck, 5, 5) under a fair shuffle:
        0.48 cards on average (0.47 with the joker), independently from one pair of
        deals to the next. For each dealer (counting the deals he dealt) and each
        dealer and player (the player in the seat on his deal), the total is tested
        against the exact law of a sum of such counts. A dealer who holds cards back
        for a seat, or gathers and deals without shuffling, shows here.

    Assumes:
        A fair shuffle before every deal; deals of a table read in time order with no
        deal missing from the store (a missing deal pairs two deals that were not
        consecutive, which only makes the test conservative).

    Not valid when:
        The same seat's cards are gathered and reused on purpose by house procedure
        (no house does this in draw poker).

    Minimum sample:
        100 pairs of consecutive deals in the cell.

    Evidence:
        The deals where two or more cards came back, with the cards.
    """

    code = "F109"
    name = "cards-return-to-seat"
    family = Family.DEALING
    levels = (Level.DEALER, Level.DEALER_PLAYER)
    summary = "Cards of a seat's hand dealt to the same seat again on the next deal."

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.sums = {level: Sums(4) for level in self.levels}
        self.events = {level: Events() for level in self.levels}
        self._carry_table = -1
        self._carry_masks = np.zeros(_SEATS, dtype=np.uint64)

    def feed(self, view: BatchView) -> None:
        b = view.batch
        seats = view.replayed.seats
        n = len(b)
        masks = np.zeros((n, _SEATS), dtype=np.uint64)
        ok = seats.dealt_ok
        bits = np.zeros(len(ok), dtype=np.uint64)
        for k in range(5):
            bits |= np.left_shift(np.uint64(1), seats.dealt[:, k].astype(np.uint64) & np.uint64(63))
        masks[view.seat_hand[ok], view.seat_number[ok]] = bits[ok]
        previous = np.zeros_like(masks)
        previous[1:] = masks[:-1]
        same_table = np.zeros(n, dtype=np.bool_)
        same_table[1:] = b.h_table[1:] == b.h_table[:-1]
        if n and b.h_table[0] == self._carry_table:
            previous[0] = self._carry_masks
            same_table[0] = True
        if n:
            self._carry_table = int(b.h_table[-1])
            self._carry_masks = masks[-1].copy()
        prior = previous[view.seat_hand, view.seat_number]
        pair = ok & same_table[view.seat_hand] & (prior != 0)
        back_mask = bits & prior
        back = np.bitwise_count(back_mask).astype(np.float64)
        joker = view.seat_joker
        for level in self.levels:
            keys = level_keys(level, view.seat_dealer, view.seat_table, view.seat_player)
            use = pair & (view.seat_dealer != view.no_dealer)
            j, r = joker[use], back[use]
            self.sums[level].add(keys[use], ~j, j, np.where(j, 0, r), np.where(j, r, 0))
            telling = use & (back >= 2)
            self.events[level].add(keys[telling], view.seat_row[telling], back[telling],
                                   back_mask[telling].astype(np.int64))

    def cells(self, lookup: Lookup) -> Iterable[Cell]:
        laws = [returns_law(52), returns_law(53)]
        for level in self.levels:
            keys, sums = self.sums[level].totals()
            n52, n53, back52, back53 = (sums[:, c] for c in range(4))
            judged = n52 + n53 >= MIN_SAMPLE
            backs = (back52 + back53)[judged].astype(np.int64)
            counts = np.stack([n52[judged], n53[judged]], axis=1).astype(np.int64)
            ps = stats.iid_sum_upper_many(backs, laws, counts)
            for key, (deals52, deals53), back, p in zip(
                    keys[judged].tolist(), counts.tolist(), backs.tolist(), ps.tolist(),
                    strict=True):
                n = deals52 + deals53
                expected = deals52 * 25 / 52 + deals53 * 25 / 53
                low, high = stats.poisson_interval(back)
                subject = subject_of(level, key, lookup)
                yield Cell(
                    code=self.code, level=level, subject=subject, n=n,
                    statistic="cards dealt again to the seat they were dealt to on the last deal",
                    observed=back, expected=expected, effect=back / expected,
                    effect_label="returns / expected", ci_low=low / expected,
                    ci_high=high / expected, p_value=p,
                    message=(f"{subject.text()}: over {n} consecutive deals {back} cards came "
                             f"back to the same seat against {expected:.1f} expected"),
                    evidence=partial(self.events[level].evidence,
                        key, lambda k, mask: f"{int(k)} cards back: {mask_cards(mask)}"),
                    details={"pairs": n},
                )
