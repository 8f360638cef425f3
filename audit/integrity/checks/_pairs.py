"""Pair tests on betting decisions: does a player act differently when one other player is involved?

Every collusion test on decisions (C202-C206) has the same shape. Some decisions of a
player are *exposed* to another player (the partner is the lone opponent, the last
bettor, sits behind...) and each decision has a yes/no outcome (bet, fold, pass...).
Under fair play the outcome does not depend on who the other player is, so within a
stratum of comparable decisions (facing a bet or not, heads-up or not...) the number of
exposed decisions with the outcome is hypergeometric given the stratum's margins: the
stratified exact test of :func:`audit.integrity.stats.stratified_exact` applies, with
the Mantel-Haenszel odds ratio as the effect size. For a pair tested both ways (A with
B, B with A) the strata of both players are pooled.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import numpy.typing as npt

from audit.evaluator import describe_strength
from audit.integrity import stats
from audit.integrity.checks._common import Events, Sums
from audit.integrity.features import BatchView, Lookup, pair_key, split_key
from audit.integrity.model import Cell, Evidence, Family, Level, Subject
from audit.integrity.replay import Decisions
from audit.integrity.test import IntegrityTest, Settings
from schemas.records import Verb

I64 = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
#: Fewest exposed decisions, and fewest not exposed, for a pair to be tested.
MIN_EXPOSED = 10
MIN_OTHER = 20
_STRATA_BITS = 5
_VERB_NAMES: tuple[str, ...] = tuple(v.value for v in Verb)


def popcount16(mask: npt.NDArray[np.int16]) -> I64:
    """Set bits of each 16-bit seat mask."""
    return np.bitwise_count(mask.astype(np.uint16)).astype(np.int64)


@dataclass
class Exposures:
    """Filtered decisions of one batch: who acted, in which stratum, the outcome, and to whom
    each was exposed (a decision may be exposed to several players: ``exposed_index`` maps
    each exposure to its decision)."""

    actor: I64
    stratum: I64
    outcome: BoolArray
    rows: I64
    codes: I64  #: for notes: the actor's final strength << 8 | verb
    exposed_index: I64
    exposed_to: I64


def seat_player(view: BatchView, decisions: Decisions, index: npt.NDArray[np.intp],
                local: npt.ArrayLike) -> I64:
    """Player codes of local seat indices of the decisions ``index``."""
    start = view.batch.h_seat_start[decisions.hand[index]].astype(np.int64)
    return view.batch.s_player[start + np.asarray(local, dtype=np.int64)].astype(np.int64)


def expand_mask(view: BatchView, decisions: Decisions, index: npt.NDArray[np.intp],
                masks: npt.NDArray[np.int16]) -> tuple[I64, I64]:
    """(position in ``index``, player) for every seat set in each decision's mask."""
    positions, players = [], []
    for j in range(10):
        has = (masks.astype(np.int64) >> j) & 1 == 1
        at = np.nonzero(has)[0]
        positions.append(at)
        players.append(seat_player(view, decisions, index[at], np.full(len(at), j)))
    return np.concatenate(positions).astype(np.int64), np.concatenate(players)


class PairDecisionTest(IntegrityTest):
    """Accumulates exposed / not exposed decisions per player and stratum; judges pairs."""

    family = Family.COLLUSION
    #: Exposed decisions have the outcome MORE often under collusion (else less often).
    greater: ClassVar[bool] = True
    #: One cell per pair either way round (Level.PAIR) or per ordered pair.
    level: ClassVar[Level]
    #: Words for messages: the decisions counted, the outcome, and the exposure.
    decisions_text: ClassVar[str]
    outcome_text: ClassVar[str]
    exposure_text: ClassVar[str]

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        cls.levels = (cls.level,)

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.totals = Sums(2)  # per (actor, stratum): decisions, outcomes
        self.exposed = Sums(2)  # per (actor, partner, stratum)
        self.events = Events()

    def exposures(self, view: BatchView) -> Exposures | None:
        """The batch's decisions this test counts."""
        raise NotImplementedError

    def feed(self, view: BatchView) -> None:
        found = self.exposures(view)
        if found is None or len(found.actor) == 0:
            return
        self.totals.add(pair_key(found.actor, found.stratum), np.ones(len(found.actor)),
                        found.outcome)
        i = found.exposed_index
        partner = found.exposed_to
        keep = partner != found.actor[i]
        i, partner = i[keep], partner[keep]
        key = pair_key(found.actor[i], (partner << _STRATA_BITS) | found.stratum[i])
        self.exposed.add(key, np.ones(len(i)), found.outcome[i])
        telling = found.outcome[i] == self.greater
        a, b = found.actor[i][telling], partner[telling]
        if self.level is Level.PAIR:
            first = np.minimum(a, b)
            event_key = pair_key(first, np.maximum(a, b))
            actor_first = a == first
        else:
            event_key = pair_key(a, b)
            actor_first = np.ones(len(a), dtype=np.bool_)
        self.events.add(event_key, found.rows[i][telling], actor_first.astype(np.float64),
                        found.codes[i][telling])

    def cells(self, lookup: Lookup) -> Iterable[Cell]:
        keys, totals = self.totals.totals()
        total = {int(k): (int(t[0]), int(t[1])) for k, t in zip(keys, totals, strict=True)}
        keys, exposed = self.exposed.totals()
        actor, rest = split_key(keys)
        partner, stratum = rest >> _STRATA_BITS, rest & ((1 << _STRATA_BITS) - 1)
        strata: dict[tuple[int, int], list[stats.Stratum]] = {}
        for a, b, s, (n, y) in zip(actor.tolist(), partner.tolist(), stratum.tolist(), exposed,
                                   strict=True):
            all_n, all_y = total[int(pair_key(a, s))]
            key = (min(a, b), max(a, b)) if self.level is Level.PAIR else (a, b)
            strata.setdefault(key, []).append(stats.Stratum(all_n, all_y, int(n), int(y)))
        for (a, b), tables in strata.items():
            exposed_n = sum(t.exposed for t in tables)
            others = sum(t.total - t.exposed for t in tables)
            if exposed_n < MIN_EXPOSED or others < MIN_OTHER:
                continue
            yield self._judge(a, b, tables, lookup)

    def _judge(self, a: int, b: int, tables: list[stats.Stratum], lookup: Lookup) -> Cell:
        result = stats.stratified_exact(tables, greater=self.greater)
        exposed_rate = result.hits / result.exposed if result.exposed else 0.0
        other_n = sum(t.total - t.exposed for t in tables)
        other_y = sum(t.total_hits - t.hits for t in tables)
        other_rate = other_y / other_n if other_n else 0.0
        first, second = lookup.player(a), lookup.player(b)
        if self.level is Level.PAIR and second < first:  # a stable key: ids in text order
            first, second = second, first
        subject = Subject(player_id=first, partner_id=second)
        exposure = self.exposure_text.format(a=first, b=second)
        rows, firsts, codes = self.events.of(int(pair_key(a, b)))
        names = (lookup.player(a), lookup.player(b))
        notes = [self.note(names[0] if f else names[1], names[1] if f else names[0], int(c))
                 for f, c in zip(firsts, codes, strict=True)]
        return Cell(
            code=self.code, level=self.level, subject=subject, n=result.exposed,
            statistic=f"{self.decisions_text} that {self.outcome_text}, {exposure}",
            observed=result.hits, expected=result.expected, effect=result.odds_ratio,
            effect_label="odds ratio (Mantel-Haenszel)", ci_low=result.ci_low,
            ci_high=result.ci_high, p_value=result.p_value,
            message=(f"{subject.text()}: {result.hits} of {result.exposed} {self.decisions_text} "
                     f"{self.outcome_text} {exposure} ({100 * exposed_rate:.0f}%) against "
                     f"{100 * other_rate:.0f}% of {other_n} otherwise; {result.expected:.1f} "
                     f"expected, odds ratio {result.odds_ratio:.2f} "
                     f"(95% CI {result.ci_low:.2f}-{result.ci_high:.2f})"),
            evidence=Evidence(rows, notes, self.events.total(int(pair_key(a, b)))),
            details={"strata": [vars(t) for t in tables], "exposed_rate": exposed_rate,
                     "other_rate": other_rate, "other_decisions": other_n},
        )

    def note(self, actor: str | None, partner: str | None, code: int) -> str:
        """The note beside an evidence hand: who did what, with which hand."""
        strength, verb = code >> 8, code & 0xFF
        hand = f" with {describe_strength(strength)}" if strength > 0 else ""
        return f"{actor} {_VERB_NAMES[verb]}{hand} ({partner} involved)"
