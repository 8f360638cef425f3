"""F106: some cards dealt more often than others."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial

import numpy as np
import numpy.typing as npt

from audit.integrity import stats
from audit.integrity.checks._common import (
    EXAMPLE_EVERY,
    Events,
    complete_hands,
    grouped_counts,
    subject_of,
)
from audit.integrity.checks._sums import Sums
from audit.integrity.features import BatchView, Lookup
from audit.integrity.model import Cell, Family, Level
from audit.integrity.test import IntegrityTest, Settings
from schemas.records import CARD_CODES

F64 = npt.NDArray[np.float64]
MIN_DEALS = 200
_CARDS = 53


class CardFrequencies(IntegrityTest):
    """Tests that every card of the deck is dealt equally often (chi-square, corrected for
    dealing without replacement).

    What it does:
        In a fair deal to m seats each card of an N-card deck is among the 5m dealt
        cards with chance p = 5m/N. Over a dealer's (or a table's) deals the count of
        each card has mean E = sum of p; the counts are not independent (a deal holds
        exactly 5m cards), their covariance is C (I - J/N) with C = sum p(1-p)N/(N-1),
        so X = sum over cards (O - E)^2 / C is chi-square with N - 1 degrees of
        freedom (52 or 53 decks apart, added). A deck with a card missing, a card
        doubled, marked cards held back or a cooler deck moves single card counts.

    Assumes:
        A fair shuffle; deals independent of each other.

    Not valid when:
        The same physical deck is not in play all session (a missing card shows only
        while that deck is used), or hands with unrecorded cards are not missing at
        random (a deal with any ``??`` is left out whole).

    Minimum sample:
        200 deals in the cell.

    Evidence:
        The card dealt most above its expected count, its ratio to expectation with a
        95% interval, and examples of hands it was dealt in (from one hand in 16).
    """

    code = "F106"
    name = "card-frequencies-uneven"
    family = Family.DEALING
    levels = (Level.DEALER, Level.TABLE)
    summary = "Some cards of the deck dealt more (or less) often than others."

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.cards = {level: Sums(1) for level in self.levels}
        self.deals = {level: Sums(3) for level in self.levels}
        self.events = {level: Events(cap=20) for level in self.levels}

    def feed(self, view: BatchView) -> None:
        b = view.batch
        # p and q of each deal as integer numerators over the group's deck (see _expected)
        deck_size = np.where(b.h_joker, 53, 52)
        seats = b.h_seat_count.astype(np.int64)
        spread = seats * (deck_size - 5 * seats)
        cards = view.replayed.seats.dealt.astype(np.int64)  # (seats, 5)
        joker = b.h_joker.astype(np.int64)
        for level in self.levels:
            hand_keys, valid = complete_hands(view, level)
            group = hand_keys * 2 + joker
            self.deals[level].add(group[valid], None, seats[valid], spread[valid])
            known = valid[view.seat_hand]
            item_hand = np.repeat(view.seat_hand[known], 5)
            keys, counts = grouped_counts(group, item_hand, cards[known].ravel(), 64)
            self.cards[level].add(keys, counts)
            example = known & (view.seat_row % EXAMPLE_EVERY == 0)
            self.events[level].add(np.repeat(group[view.seat_hand[example]], 5) * 64
                                   + cards[example].ravel(), np.repeat(view.seat_row[example], 5))

    def cells(self, lookup: Lookup) -> Iterable[Cell]:
        for level in self.levels:
            groups, deal_sums = self.deals[level].totals()
            card_keys, card_sums = self.cards[level].totals()
            counts: dict[int, F64] = {}
            for key, value in zip(card_keys.tolist(), card_sums[:, 0], strict=True):
                group, card = divmod(key, 64)
                counts.setdefault(group, np.zeros(_CARDS))[card] = value
            owners: dict[int, list[tuple[int, F64, F64]]] = {}
            for group, (n, seats, spread) in zip(groups.tolist(), deal_sums, strict=True):
                owner, joker = divmod(group, 2)
                owners.setdefault(owner, []).append(
                    (joker, _expected(n, seats, spread, 53 if joker else 52),
                     counts.get(group, np.zeros(_CARDS))))
            for owner, parts in owners.items():
                if sum(int(part[1][0]) for part in parts) >= MIN_DEALS:
                    yield self._judge(level, owner, parts, lookup)

    def _judge(self, level: Level, owner: int, parts: list[tuple[int, F64, F64]],
               lookup: Lookup) -> Cell:
        statistic, df, deals = 0.0, 0, 0
        best = (-np.inf, 0, 0.0, 0.0, 0)  # z, card, observed, expected, group
        for joker, (n, sum_p, sum_q), observed in parts:
            size = 53 if joker else 52
            o = observed[:size]
            statistic += float(((o - sum_p) ** 2).sum() / sum_q)
            df += size - 1
            deals += int(n)
            z = (o - sum_p) / np.sqrt(sum_q)
            card = int(np.argmax(z))
            if z[card] > best[0]:
                best = (float(z[card]), card, float(o[card]), float(sum_p), owner * 2 + joker)
        p = stats.chi2_upper(statistic, df)
        _, card, observed_count, expected_count, group = best
        low, high = stats.poisson_interval(int(observed_count))
        ratio = observed_count / expected_count if expected_count else 0.0
        name = CARD_CODES[card]
        subject = subject_of(level, owner, lookup)
        return Cell(
            code=self.code, level=level, subject=subject, n=deals,
            statistic="times each card was dealt (chi-square, without replacement)",
            observed=statistic, expected=float(df), effect=ratio,
            effect_label=f"{name} dealt / expected", ci_low=low / expected_count,
            ci_high=high / expected_count, p_value=p,
            message=(f"{subject.text()}: over {deals} deals the cards were not dealt equally "
                     f"often (chi-square {statistic:.1f} on {df} df); most over: {name}, "
                     f"{int(observed_count)} times against {expected_count:.1f} expected"),
            evidence=partial(self.events[level].evidence, group * 64 + card,
                             lambda _u, _c: f"{name} dealt"),
            details={"df": df, "card": name, "count": observed_count,
                     "expected": expected_count},
        )


def _expected(deals: float, seats: float, spread: float, deck: int) -> F64:
    """A group's deals, E = sum of p and C = sum of p(1-p)N/(N-1), from its sums of the
    seats m and of m(N-5m): with p = 5m/N, C's terms are 5m(N-5m) / (N(N-1)).

    Summed as integers (exact, whatever the batches), divided once."""
    return np.array([deals, 5 * seats / deck, 5 * spread / (deck * (deck - 1))])
