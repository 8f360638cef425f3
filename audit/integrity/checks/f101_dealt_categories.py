"""F101: the categories of dealt hands against their exact law."""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial

import numpy as np
import numpy.typing as npt

from audit.evaluator import describe_strength
from audit.integrity import stats
from audit.integrity.checks._common import (
    Events,
    level_keys,
    merged_evidence,
    subject_of,
)
from audit.integrity.checks._sums import Sums
from audit.integrity.features import BatchView, Lookup
from audit.integrity.laws import CATEGORIES, hand_law
from audit.integrity.model import Cell, Family, Level
from audit.integrity.replay import category_level
from audit.integrity.test import IntegrityTest, Settings

F64 = npt.NDArray[np.float64]
MIN_SAMPLE = 500
#: Smallest expected count of a chi-square cell (rarer categories are pooled upwards).
MIN_EXPECTED = 5.0
_N_CAT = len(CATEGORIES)


def pooled(observed: F64, expected: F64) -> tuple[F64, F64]:
    """Pool categories from the rarest (best) down until each pooled cell expects >= 5."""
    obs, exp = [], []
    o_acc = e_acc = 0.0
    for o, e in zip(observed[::-1], expected[::-1], strict=True):
        o_acc += o
        e_acc += e
        if e_acc >= MIN_EXPECTED:
            obs.append(o_acc)
            exp.append(e_acc)
            o_acc = e_acc = 0.0
    if e_acc > 0 and exp:
        obs[-1] += o_acc
        exp[-1] += e_acc
    return np.array(obs[::-1]), np.array(exp[::-1])


class DealtCategories(IntegrityTest):
    """Compares how often each category is dealt (high card ... five aces) with its exact law.

    What it does:
        The exact law of a dealt hand is computed by reading every five-card subset of
        the deck with the project's evaluator: 2,598,960 hands without the joker (a
        pair of jacks or better, the hands that open, 20.63% of them) and 2,869,685
        with it (22.40%). For each dealer and each table, the dealt hands are counted
        by category, separately for the two decks, and compared with the law by
        Pearson's chi-square (categories expected fewer than five times pooled with
        the next lower one); the two decks' statistics and degrees of freedom add. A
        shuffle that is not random, a deck with cards missing or added, or a dealer
        who stacks often enough to change the mix, moves these counts.

    Assumes:
        Each seat's hand is a uniformly random five-card subset of its deck. Seats of
        one deal are treated as independent; their hands are slightly negatively
        dependent, which makes the test slightly conservative.

    Not valid when:
        The deck is not the standard 52 (or 53 with the joker) cards, or hands were
        selected by their cards. Irregular hands (unknown or impossible cards,
        misdeals) are left out.

    Minimum sample:
        500 dealt hands in the cell.

    Evidence:
        The category furthest above its expected count, with its share and 95%
        interval, and the first hands dealt in it.
    """

    code = "F101"
    name = "dealt-categories-off-law"
    family = Family.DEALING
    levels = (Level.DEALER, Level.TABLE)
    summary = "Categories of dealt hands (per dealer, per table) off their exact law."

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.counts = {level: Sums(1) for level in self.levels}
        self.events = {level: Events(cap=50) for level in self.levels}

    def feed(self, view: BatchView) -> None:
        ok = view.dealt_strength >= 0
        levels = category_level(view.dealt_strength[ok])
        deck = view.seat_joker[ok].astype(np.int64)
        rows = view.seat_row[ok]
        for level in self.levels:
            keys = level_keys(level, view.seat_dealer[ok], view.seat_table[ok], 0)
            valid = keys != view.no_dealer if level is Level.DEALER else np.ones(len(keys), bool)
            cell = (keys[valid] * 2 + deck[valid]) * _N_CAT + levels[valid]
            self.counts[level].add(cell, None)
            self.events[level].add(cell, rows[valid], None, view.dealt_strength[ok][valid])

    def cells(self, lookup: Lookup) -> Iterable[Cell]:
        for level in self.levels:
            keys, sums = self.counts[level].totals()
            table: dict[int, F64] = {}
            for key, count in zip(keys.tolist(), sums[:, 0], strict=True):
                cell_key, category = divmod(key, _N_CAT)
                table.setdefault(cell_key, np.zeros(_N_CAT))[category] = count
            owners: dict[int, dict[int, F64]] = {}
            for cell_key, counts in table.items():
                owner, joker = divmod(cell_key, 2)
                owners.setdefault(owner, {})[joker] = counts
            for owner, decks in owners.items():
                n = int(sum(c.sum() for c in decks.values()))
                if n >= MIN_SAMPLE:
                    yield self._judge(level, owner, decks, n, lookup)

    def _judge(self, level: Level, owner: int, decks: dict[int, F64], n: int,
               lookup: Lookup) -> Cell:
        statistic, df = 0.0, 0
        observed_all = np.zeros(_N_CAT)
        expected_all = np.zeros(_N_CAT)
        for joker, counts in decks.items():
            expected = counts.sum() * hand_law(bool(joker)).category_probabilities()
            obs, exp = pooled(counts, expected)
            statistic += float(((obs - exp) ** 2 / exp).sum())
            df += len(obs) - 1
            observed_all += counts
            expected_all += expected
        p = stats.chi2_upper(statistic, df)
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(expected_all > 0, (observed_all - expected_all) / np.sqrt(expected_all),
                         0.0)
        worst = int(np.argmax(z))
        count = int(observed_all[worst])
        low, high = stats.wilson(count, n)
        category = CATEGORIES[worst].value
        subject = subject_of(level, owner, lookup)
        found = partial(merged_evidence, self.events[level],
                        [(owner * 2 + joker) * _N_CAT + worst for joker in sorted(decks)],
                        lambda _u, s: f"dealt {describe_strength(s)}")
        return Cell(
            code=self.code, level=level, subject=subject, n=n,
            statistic="dealt hands by category (chi-square against the exact law)",
            observed=statistic, expected=float(df), effect=count / n,
            effect_label=f"share of {category}", ci_low=low, ci_high=high, p_value=p,
            message=(f"{subject.text()}: the {n} dealt hands are off the exact law by category "
                     f"(chi-square {statistic:.1f} on {df} df); most over: {category}, "
                     f"{count} ({100 * count / n:.2f}%, 95% CI {100 * low:.2f}-{100 * high:.2f}%) "
                     f"against {expected_all[worst]:.1f} expected"),
            evidence=found,
            details={"df": df, "observed": observed_all.tolist(),
                     "expected": [round(e, 3) for e in expected_all.tolist()],
                     "categories": [c.value for c in CATEGORIES]},
        )
