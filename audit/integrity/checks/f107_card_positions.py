"""F107: ranks that favour some places in the deal."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial

import numpy as np
import numpy.typing as npt

from audit.cards import RANK_CHAR
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

F64 = npt.NDArray[np.float64]
MIN_DEALS = 200
_RANKS = 14  # 2..A, then the joker
_PLACES = 10
_GROUP = _RANKS * _PLACES


def rank_name(rank: int) -> str:
    """``A`` for rank code 12, ``Jk`` for the joker (13)."""
    return "Jk" if rank == 13 else RANK_CHAR[rank + 2]


def position_statistic(counts: F64, deals: int, seats: int, deck: int) -> tuple[float, int, F64]:
    """Chi-square of rank x place against "every place gets the same mix", for one
    (deck, seats) group: the statistic, its degrees of freedom and standardized residuals.

    In one deal the ordered dealt cards are a sample without replacement of the deck, so
    place j's rank counts have covariance M * B[j, j'] with M = diag(p) - p p' (p the rank
    shares) and B = 5N/(N-1) I - 25/(N-1) J. Contrasts between places remove the J part:
    sum over places and ranks of (O - mean over places)^2 / (p * 5N/(N-1) * deals) is
    chi-square with (ranks - 1)(places - 1) degrees of freedom.
    """
    ranks = _RANKS if deck == 53 else _RANKS - 1
    share = np.full(ranks, 4 / deck)
    if deck == 53:
        share[13] = 1 / deck
    observed = counts[:ranks, :seats]
    mean = observed.mean(axis=1, keepdims=True)
    scale = share[:, None] * 5 * deck / (deck - 1) * deals
    residual = (observed - mean) / np.sqrt(scale * (seats - 1) / seats)
    statistic = float(((observed - mean) ** 2 / scale).sum())
    return statistic, (ranks - 1) * (seats - 1), residual


class CardPositions(IntegrityTest):
    """Tests that every place in the deal gets the same mix of ranks.

    What it does:
        Places are counted from the first seat left of the button (place 1) round to
        the button. In a fair shuffle each dealt card is equally likely to be any card
        of the deck whatever its place, so the ranks dealt to each place should have
        the same mix. For each dealer (and table), deals are grouped by deck and number
        of seats, the ranks are counted by place, and the places are compared with each
        other by a chi-square whose scale is exact for dealing without replacement (see
        :func:`position_statistic`); the groups' statistics and degrees of freedom add.
        Aces going to the same place, a dealer's confederate always on his left, a
        shuffle that leaves the last hand's cards in order: these show here.

    Assumes:
        A fair shuffle; the cards go round one at a time from the button's left (the
        log's seat order), five rounds.

    Not valid when:
        The house deals in packets or another order (then places still get equal
        mixes under a fair shuffle, and the test stays valid, but it no longer points
        at a particular dealing fault).

    Minimum sample:
        200 deals in the cell.

    Evidence:
        The rank and place furthest above the others, with its count against the mean
        of the places and a 95% interval, and examples of hands with that rank at that
        place (from one hand in 16).
    """

    code = "F107"
    name = "card-positions-uneven"
    family = Family.DEALING
    levels = (Level.DEALER, Level.TABLE)
    summary = "Some ranks dealt more often to some places (from the button's left) than others."

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.counts = {level: Sums(1) for level in self.levels}
        self.deals = {level: Sums(1) for level in self.levels}
        self.events = {level: Events(cap=20) for level in self.levels}

    def feed(self, view: BatchView) -> None:
        b = view.batch
        joker = b.h_joker.astype(np.int64)
        rank = np.minimum(view.replayed.seats.dealt.astype(np.int64) >> 2, 13)
        place = view.replayed.seats.position.astype(np.int64)
        inner = rank * _PLACES + place[:, None]  # (seats, 5)
        for level in self.levels:
            owner, valid = complete_hands(view, level)
            group = (owner * 2 + joker) * 16 + b.h_seat_count
            self.deals[level].add(group[valid], None)
            seats = valid[view.seat_hand]
            keys, counts = grouped_counts(group, np.repeat(view.seat_hand[seats], 5),
                                          inner[seats].ravel(), _GROUP)
            self.counts[level].add(keys, counts)
            example = seats & (view.seat_row % EXAMPLE_EVERY == 0)
            self.events[level].add(np.repeat(group[view.seat_hand[example]] // 16, 5) * _GROUP
                                   + inner[example].ravel(), np.repeat(view.seat_row[example], 5))

    def cells(self, lookup: Lookup) -> Iterable[Cell]:
        for level in self.levels:
            groups, deals = self.deals[level].totals()
            keys, sums = self.counts[level].totals()
            tables: dict[int, F64] = {}
            for key, value in zip(keys.tolist(), sums[:, 0], strict=True):
                group, rest = divmod(key, _GROUP)
                tables.setdefault(group, np.zeros((_RANKS, _PLACES)))[divmod(rest, _PLACES)] = value
            owners: dict[int, list[tuple[int, int, int, F64]]] = {}
            for group, n in zip(groups.tolist(), deals[:, 0], strict=True):
                deck_key, seats = divmod(group, 16)
                owner, joker = divmod(deck_key, 2)
                counts = tables.get(group, np.zeros((_RANKS, _PLACES)))
                owners.setdefault(owner, []).append((53 if joker else 52, seats, int(n), counts))
            for owner, parts in owners.items():
                if sum(part[2] for part in parts) >= MIN_DEALS:
                    yield self._judge(level, owner, parts, lookup)

    def _judge(self, level: Level, owner: int, parts: list[tuple[int, int, int, F64]],
               lookup: Lookup) -> Cell:
        statistic, df, deals = 0.0, 0, 0
        best = (-np.inf, 0, 0, 0.0, 0.0, 52)  # z, rank, place, observed, expected, deck
        for deck, seats, n, counts in parts:
            if seats < 2 or n < 2:
                continue
            s, d, residual = position_statistic(counts, n, seats, deck)
            statistic += s
            df += d
            deals += n
            r, j = np.unravel_index(int(np.argmax(residual)), residual.shape)
            if residual[r, j] > best[0]:
                mean = counts[r, :seats].mean()
                best = (float(residual[r, j]), int(r), int(j), float(counts[r, j]), float(mean),
                        deck)
        p = stats.chi2_upper(statistic, df)
        _, rank, place, observed, expected, deck = best
        low, high = stats.poisson_interval(int(observed))
        ratio = observed / expected if expected else 0.0
        subject = subject_of(level, owner, lookup)
        what = f"{rank_name(rank)} at place {place + 1}"
        return Cell(
            code=self.code, level=level, subject=subject, n=deals,
            statistic="ranks by place in the deal (chi-square between places)",
            observed=statistic, expected=float(df), effect=ratio,
            effect_label=f"{what} / mean of places",
            ci_low=low / expected if expected else 0.0,
            ci_high=high / expected if expected else 0.0, p_value=p,
            message=(f"{subject.text()}: over {deals} deals the places got different mixes of "
                     f"ranks (chi-square {statistic:.1f} on {df} df); most over: {what}, "
                     f"{int(observed)} against {expected:.1f} on average"),
            evidence=partial(self.events[level].evidence,
                (owner * 2 + (deck == 53)) * _GROUP + rank * _PLACES + place,
                lambda _u, _c: what),
            details={"df": df, "rank": rank_name(rank), "place": place + 1},
        )
