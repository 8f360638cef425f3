"""Tests on probability-integral transforms: dealt hands (F102, F103) and draws (F104, F105).

Under fair dealing every PIT is an independent uniform on (0, 1) (see
:mod:`audit.integrity.laws` and :mod:`audit.integrity.draws`), so a cell's PITs can be
judged two ways, each its own test: the share in the top tail (an exact binomial
test: a dealer who now and then stacks a very good hand) and their mean (a normal
test on a sum of uniforms: a dealer who steadily helps a little).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import ClassVar

import numpy as np
import numpy.typing as npt

from audit.evaluator import describe_strength
from audit.integrity import stats
from audit.integrity.checks._common import Events, level_keys, subject_of
from audit.integrity.checks._sums import FixedPoint, Sums, fixed
from audit.integrity.features import BatchView, Lookup
from audit.integrity.model import Cell, Evidence, Family, Level
from audit.integrity.test import IntegrityTest, Settings

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
#: Fewest PITs a cell needs (five expected in a 5% tail).
MIN_SAMPLE = 100
LEVELS: tuple[Level, ...] = (Level.DEALER, Level.TABLE, Level.DEALER_PLAYER, Level.PLAYER)
_K_BITS = 3


@dataclass
class Observations:
    """PITs of one batch with the hand row, people and a code for the note of each."""

    u: F64
    rows: I64
    dealer: npt.NDArray[np.int32]
    table: npt.NDArray[np.int32]
    player: npt.NDArray[np.int32]
    codes: I64


def dealt_observations(view: BatchView) -> Observations:
    """One PIT per dealt hand of five known cards (the code: the hand's strength)."""
    ok = ~np.isnan(view.dealt_u)
    return Observations(view.dealt_u[ok], view.seat_row[ok], view.seat_dealer[ok],
                        view.seat_table[ok], view.seat_player[ok], view.dealt_strength[ok])


def draw_observations(view: BatchView) -> Observations:
    """One PIT per draw (the code: final strength and cards drawn)."""
    d = view.replayed.draws
    final = view.replayed.seats.final[d.seat_row]
    return Observations(d.u, view.batch.first + view.draw_hand.astype(np.int64),
                        view.draw_dealer, view.draw_table, view.draw_player,
                        (np.maximum(final, 0) << _K_BITS) | d.k.astype(np.int64))


def rarity(u: float) -> str:
    """How far up the law a PIT is: ``top 1.4%``, ``top 0.0031%``."""
    return f"top {100 * (1 - u):.2g}%"


def dealt_note(u: float, strength: int) -> str:
    """``dealt three of a kind, kings (8-3): top 1.4% of hands``."""
    return f"dealt {describe_strength(strength)}: {rarity(u)} of hands"


def draw_note(u: float, code: int) -> str:
    """``drew 3 to four of a kind ...: top 0.2% of the draws the stub allowed``."""
    strength, k = code >> _K_BITS, code & ((1 << _K_BITS) - 1)
    return f"drew {k} to {describe_strength(strength)}: {rarity(u)} of the draws the stub allowed"


class PitSums:
    """Per level and cell: n, sum of U, sum of U squared, tail count; and the tail's
    events. The tail test and the mean test of the same PITs keep exactly these, so
    when both run in one process they share one (:meth:`PitTest.share`), fed once a
    batch: :attr:`fed` counts the batches it took."""

    def __init__(self, levels: tuple[Level, ...]) -> None:
        self.sums = {level: Sums(4, fractional=(1, 2)) for level in levels}
        self.events = {level: Events() for level in levels}
        self.fed = 0


class PitTest(IntegrityTest):
    """Shared accumulation (:class:`PitSums`), per level and cell."""

    levels: ClassVar[tuple[Level, ...]] = LEVELS
    family = Family.DEALING
    #: "dealt hands" or "draws": which PITs the test reads (and the word of its messages).
    what: ClassVar[str]

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self._pits = PitSums(self.levels)
        self._fed = 0

    @property
    def sums(self) -> dict[Level, Sums]:
        """Per level: n, sum of U, sum of U squared, tail count per cell key."""
        return self._pits.sums

    @property
    def events(self) -> dict[Level, Events]:
        """Per level: the PITs in the top tail."""
        return self._pits.events

    def share(self, earlier: Sequence[IntegrityTest]) -> None:
        """Keep the sums of an earlier test of the same PITs, at the same levels and tail
        share (the tail and mean tests of dealt hands, or of draws): fed once for both."""
        for other in earlier:
            if (isinstance(other, PitTest) and other.what == self.what
                    and other.levels == self.levels and other.settings == self.settings):
                self._pits = other._pits
                return

    def observations(self, view: BatchView) -> Observations:
        """The batch's PITs."""
        raise NotImplementedError

    def note(self, u: float, code: int) -> str:
        """The note beside an evidence hand."""
        raise NotImplementedError

    def feed(self, view: BatchView) -> None:
        self._fed += 1
        if self._fed <= self._pits.fed:
            return  # a test sharing the sums took this batch already
        self._pits.fed += 1
        obs = self.observations(view)
        tail = obs.u > 1 - self.settings.tail_share
        every: tuple[FixedPoint, FixedPoint] = (fixed(obs.u), fixed(obs.u * obs.u))
        for level in self.levels:
            keep = obs.dealer != view.no_dealer if level in (Level.DEALER,
                                                             Level.DEALER_PLAYER) else None
            keys = level_keys(level, obs.dealer, obs.table, obs.player)
            u, t, rows, codes, (fu, fu2) = obs.u, tail, obs.rows, obs.codes, every
            if keep is not None:
                keys, u, t, rows, codes = keys[keep], u[keep], t[keep], rows[keep], codes[keep]
                fu, fu2 = fu[keep], fu2[keep]
            self.sums[level].add(keys, None, fu, fu2, t)
            self.events[level].add(keys[t], rows[t], u[t], codes[t])

    def cells(self, lookup: Lookup) -> Iterable[Cell]:
        for level in self.levels:
            keys, sums = self.sums[level].totals()
            judged = sums[:, 0] >= MIN_SAMPLE
            n = sums[judged, 0].astype(np.int64)
            figures = self.figures(level, n, sums[judged, 1], sums[judged, 2],
                                   sums[judged, 3].astype(np.int64))
            for i, key in enumerate(keys[judged].tolist()):
                yield self.judge(level, key, int(n[i]), figures, i, lookup)

    def figures(self, level: Level, n: I64, total: F64, total_sq: F64, tail: I64
                ) -> dict[str, npt.NDArray[np.generic]]:
        """The statistics of every judged cell of a level at once (arrays by name)."""
        raise NotImplementedError

    def judge(self, level: Level, key: int, n: int, figures: dict[str, npt.NDArray[np.generic]],
              i: int, lookup: Lookup) -> Cell:
        """The cell of one key: row ``i`` of the level's ``figures``."""
        raise NotImplementedError

    def evidence(self, level: Level, key: int) -> Evidence:
        """The cell's PITs in the top tail, most extreme first."""
        rows, values, codes = self.events[level].of(key)
        order = np.argsort(-values, kind="stable")
        return Evidence(rows[order], [self.note(float(values[i]), int(codes[i])) for i in order],
                        self.events[level].total(key))


class TailTest(PitTest):
    """Too many PITs in the top tail (one-sided, exact binomial)."""

    def figures(self, level: Level, n: I64, total: F64, total_sq: F64, tail: I64
                ) -> dict[str, npt.NDArray[np.generic]]:
        low, high = stats.wilson_many(tail, n)
        return {"tail": tail, "p": stats.binomial_upper_many(tail, n, self.settings.tail_share),
                "low": low, "high": high}

    def judge(self, level: Level, key: int, n: int, figures: dict[str, npt.NDArray[np.generic]],
              i: int, lookup: Lookup) -> Cell:
        share = self.settings.tail_share
        tail = int(figures["tail"][i])
        p, low, high = (float(figures[name][i]) for name in ("p", "low", "high"))
        subject = subject_of(level, key, lookup)
        top = f"top {100 * share:g}%"
        return Cell(
            code=self.code, level=level, subject=subject, n=n,
            statistic=f"{self.what} in the {top} of their law",
            observed=tail, expected=n * share, effect=tail / n,
            effect_label=f"share in the {top}", ci_low=low, ci_high=high, p_value=p,
            message=(f"{subject.text()}: {tail} of {n} {self.what} in the {top} "
                     f"({100 * tail / n:.1f}%, 95% CI {100 * low:.1f}-{100 * high:.1f}%); "
                     f"fair dealing gives {100 * share:g}% ({n * share:.1f} expected)"),
            evidence=partial(self.evidence, level, key),
            details={"tail_share": share, "in_tail": tail},
        )


class MeanTest(PitTest):
    """PITs higher on average than uniform (players) or off either way (dealers, tables)."""

    def figures(self, level: Level, n: I64, total: F64, total_sq: F64, tail: I64
                ) -> dict[str, npt.NDArray[np.generic]]:
        z, p = stats.uniform_mean_p_many(total, n, two_sided=_two_sided(level))
        mean, low, high = stats.mean_interval_many(total, total_sq, n)
        return {"z": z, "p": p, "mean": mean, "low": low, "high": high}

    def judge(self, level: Level, key: int, n: int, figures: dict[str, npt.NDArray[np.generic]],
              i: int, lookup: Lookup) -> Cell:
        two_sided = _two_sided(level)
        z, mean, low, high = (figures[name][i] for name in ("z", "mean", "low", "high"))
        p = float(figures["p"][i])
        subject = subject_of(level, key, lookup)
        way = "off" if two_sided else "above"
        return Cell(
            code=self.code, level=level, subject=subject, n=n,
            statistic=f"mean PIT of {self.what}", observed=mean, expected=0.5, effect=mean,
            effect_label="mean PIT", ci_low=low, ci_high=high, p_value=p,
            message=(f"{subject.text()}: mean PIT of {n} {self.what} {mean:.3f} "
                     f"(95% CI {low:.3f}-{high:.3f}), {way} the 0.5 of fair dealing (z = {z:.2f})"),
            evidence=partial(self.evidence, level, key),
            details={"z": z, "two_sided": two_sided},
        )


def _two_sided(level: Level) -> bool:
    """The mean tests of dealers and tables look both ways; of players, upwards."""
    return level in (Level.DEALER, Level.TABLE)
