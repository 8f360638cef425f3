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
from functools import partial
from typing import ClassVar

import numpy as np
import numpy.typing as npt

from audit.evaluator import describe_strength
from audit.integrity import stats
from audit.integrity.checks._common import Events
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
_STRATA_BITS = 6
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


def first_per_round(decisions: Decisions, pick: npt.NDArray[np.intp]) -> npt.NDArray[np.intp]:
    """Of the picked decisions, each player's first in each betting round of a hand.

    Later decisions of the same player in the same round follow from the first (a raising
    war between two strong hands is one event, not three), so counting them would treat
    dependent decisions as independent ones.
    """
    if not len(pick):
        return pick
    key = (decisions.hand[pick].astype(np.int64) * 16 + decisions.actor[pick]) * 2 \
        + decisions.section[pick]
    _, first = np.unique(key, return_index=True)
    return pick[np.sort(first)]


def pressure(decisions: Decisions, pick: npt.NDArray[np.intp], most: int = 3) -> I64:
    """Bets and raises so far in the round (capped at ``most``): raising gets dearer and,
    at the house's cap, impossible, whoever made the bet."""
    return np.minimum(decisions.raises[pick].astype(np.int64), most)


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


@dataclass
class _Decisions:
    """Every counted decision of a run (actor, stratum, outcome) and each one's exposures."""

    actor: I64
    stratum: I64
    outcome: BoolArray
    exposed_decision: I64
    exposed_to: I64


class PairDecisionTest(IntegrityTest):
    """Keeps the counted decisions and their exposures; judges pairs of players.

    A player with one strong partner can make a third player look involved: when the
    partner and the third often sit together, "the third is behind" goes with "the
    partner is behind". So a pair is judged with each player's decisions also split by
    whether his strongest other link (the partner whose own test gives p < 1e-4, if any)
    was exposed: the third player is compared with others in the same spots, partner
    or no partner. The split is a stratum like the others, so the test stays exact.
    """

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
        self._parts: list[tuple[I64, I64, BoolArray, I64, I64]] = []
        self._count = 0
        self.events = Events()

    def exposures(self, view: BatchView) -> Exposures | None:
        """The batch's decisions this test counts."""
        raise NotImplementedError

    def feed(self, view: BatchView) -> None:
        found = self.exposures(view)
        if found is None or len(found.actor) == 0:
            return
        i = found.exposed_index
        partner = found.exposed_to
        keep = partner != found.actor[i]
        i, partner = i[keep], partner[keep]
        self._parts.append((found.actor.astype(np.int64), found.stratum.astype(np.int64),
                            found.outcome.astype(np.bool_), i + self._count, partner))
        self._count += len(found.actor)
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

    def _decisions(self) -> _Decisions:
        if not self._parts:
            empty = np.zeros(0, dtype=np.int64)
            return _Decisions(empty, empty, np.zeros(0, np.bool_), empty, empty)
        columns = list(zip(*self._parts, strict=True))
        return _Decisions(*(np.concatenate(c) for c in columns))

    def cells(self, lookup: Lookup) -> Iterable[Cell]:
        d = self._decisions()
        if not len(d.actor):
            return
        strata = 1 << _STRATA_BITS
        # per (actor, stratum): decisions and outcomes; per (actor, partner, stratum): exposed
        total_key = d.actor * strata + d.stratum
        exp_actor = d.actor[d.exposed_decision]
        exp_stratum = d.stratum[d.exposed_decision]
        exp_outcome = d.outcome[d.exposed_decision]
        tables = _directed_tables(total_key, d.outcome, exp_actor, d.exposed_to, exp_stratum,
                                  exp_outcome, strata)
        strongest = _strongest_links(tables, self.greater)
        exposure_keys = np.sort(d.exposed_decision * _PLAYER_SPAN + d.exposed_to)
        by_actor = np.argsort(d.actor, kind="stable")
        sorted_actor = d.actor[by_actor]
        pairs: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for a, b in tables:
            key = (min(a, b), max(a, b)) if self.level is Level.PAIR else (a, b)
            pairs.setdefault(key, []).append((a, b))
        for (a, b), directions in pairs.items():
            merged = [t for direction in directions for t in tables[direction]]
            exposed_n = sum(t.exposed for t in merged)
            others = sum(t.total - t.exposed for t in merged)
            if exposed_n < MIN_EXPOSED or others < MIN_OTHER:
                continue
            adjusted: list[stats.Stratum] = []
            links: dict[str, str] = {}
            for actor, partner in directions:
                link = strongest.get(actor)
                if link is None or link == partner:
                    adjusted += tables[(actor, partner)]
                    continue
                links[lookup.player(actor)] = lookup.player(link)
                mine = by_actor[np.searchsorted(sorted_actor, actor, "left"):
                                np.searchsorted(sorted_actor, actor, "right")]
                adjusted += _split_by_link(d, mine, partner, link, exposure_keys, strata)
            yield self._judge(a, b, adjusted, lookup, links)

    def _judge(self, a: int, b: int, tables: list[stats.Stratum], lookup: Lookup,
               links: dict[str, str]) -> Cell:
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
            evidence=partial(self._evidence, a, b, lookup),
            details={"strata": [vars(t) for t in tables], "exposed_rate": exposed_rate,
                     "other_rate": other_rate, "other_decisions": other_n,
                     "adjusted_for_stronger_link": links},
        )

    def _evidence(self, a: int, b: int, lookup: Lookup) -> Evidence:
        key = int(pair_key(a, b))
        rows, firsts, codes = self.events.of(key)
        names = (lookup.player(a), lookup.player(b))
        notes = [self.note(names[0] if f else names[1], names[1] if f else names[0], int(c))
                 for f, c in zip(firsts, codes, strict=True)]
        return Evidence(rows, notes, self.events.total(key))

    def note(self, actor: str | None, partner: str | None, code: int) -> str:
        """The note beside an evidence hand: who did what, with which hand."""
        strength, verb = code >> 8, code & 0xFF
        hand = f" with {describe_strength(strength)}" if strength > 0 else ""
        return f"{actor} {_VERB_NAMES[verb]}{hand} ({partner} involved)"


#: Codes of players are below this, so decision * span + player is a unique int64.
_PLAYER_SPAN = 1 << 31
#: A player's link is strong enough to adjust his other pairs for when its p is below this.
LINK_P = 1e-4


def _directed_tables(total_key: I64, outcome: BoolArray, exp_actor: I64, exp_partner: I64,
                     exp_stratum: I64, exp_outcome: BoolArray, strata: int
                     ) -> dict[tuple[int, int], list[stats.Stratum]]:
    """Per (actor, partner): the actor's 2x2 tables, one per stratum."""
    unique, inverse = np.unique(total_key, return_inverse=True)
    n_all = np.bincount(inverse)
    y_all = np.bincount(inverse, weights=outcome)
    total = {int(k): (int(n), int(y)) for k, n, y in zip(unique, n_all, y_all, strict=True)}
    key = pair_key(exp_actor, exp_partner * strata + exp_stratum)
    unique, inverse = np.unique(key, return_inverse=True)
    n_exp = np.bincount(inverse)
    y_exp = np.bincount(inverse, weights=exp_outcome)
    actor, rest = split_key(unique)
    out: dict[tuple[int, int], list[stats.Stratum]] = {}
    for a, r, n, y in zip(actor.tolist(), rest.tolist(), n_exp, y_exp, strict=True):
        partner, s = divmod(r, strata)
        all_n, all_y = total[a * strata + s]
        out.setdefault((a, partner), []).append(stats.Stratum(all_n, all_y, int(n), int(y)))
    return out


def _strongest_links(tables: dict[tuple[int, int], list[stats.Stratum]], greater: bool
                     ) -> dict[int, int]:
    """Each actor's partner with the smallest directed p-value, where it is below LINK_P."""
    best: dict[int, tuple[float, int]] = {}
    for (a, b), strata in tables.items():
        if sum(t.exposed for t in strata) < MIN_EXPOSED:
            continue
        p = stats.stratified_exact(strata, greater=greater).p_value
        if p < LINK_P and p < best.get(a, (1.0, -1))[0]:
            best[a] = (p, b)
    return {a: b for a, (_, b) in best.items()}


def _split_by_link(d: _Decisions, mine: npt.NDArray[np.intp], partner: int, link: int,
                   exposure_keys: I64, strata: int) -> list[stats.Stratum]:
    """The actor's tables for ``partner`` with each stratum split by ``link``'s exposure."""
    index = mine.astype(np.int64)
    to_link = _exposed(index, link, exposure_keys)
    to_partner = _exposed(index, partner, exposure_keys)
    stratum = d.stratum[index] * 2 + to_link
    outcome = d.outcome[index]
    out = []
    for s in np.unique(stratum[to_partner]).tolist():
        here = stratum == s
        out.append(stats.Stratum(int(here.sum()), int(outcome[here].sum()),
                                 int((here & to_partner).sum()),
                                 int((here & to_partner & outcome).sum())))
    return out


def _exposed(decisions: I64, player: int, exposure_keys: I64) -> BoolArray:
    """Whether each decision was exposed to ``player``."""
    wanted = decisions * _PLAYER_SPAN + player
    at = np.searchsorted(exposure_keys, wanted)
    at = np.minimum(at, len(exposure_keys) - 1)
    return exposure_keys[at] == wanted
