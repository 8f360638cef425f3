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
from typing import Any, ClassVar

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


def against_one(view: BatchView, decisions: Decisions, pick: npt.NDArray[np.intp],
                other_local: npt.ArrayLike, stratum: I64, outcome: BoolArray, codes: I64
                ) -> Exposures:
    """Exposures of decisions that each face one other player (the lone opponent, the
    bettor): ``other_local`` is that player's local seat index."""
    return Exposures(
        actor=seat_player(view, decisions, pick, decisions.actor[pick]),
        stratum=np.asarray(stratum, dtype=np.int64), outcome=np.asarray(outcome, np.bool_),
        rows=view.batch.first + decisions.hand[pick].astype(np.int64),
        codes=np.asarray(codes, dtype=np.int64),
        exposed_index=np.arange(len(pick), dtype=np.int64),
        exposed_to=seat_player(view, decisions, pick, other_local),
    )


def lone_opponent(decisions: Decisions, pick: npt.NDArray[np.intp]) -> I64:
    """Local seat index of the one live opponent of heads-up decisions."""
    return np.log2(decisions.live[pick].astype(np.int64)).astype(np.int64)


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
        # compact per-batch columns (int32 / int8): the whole run's decisions are kept
        self._parts: list[tuple[npt.NDArray[Any], ...]] = []
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
        self._parts.append((found.actor.astype(np.int32), found.stratum.astype(np.int8),
                            found.outcome.astype(np.bool_), (i + self._count).astype(np.int32),
                            partner.astype(np.int32)))
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
        actor, stratum, outcome, decision, partner = (np.concatenate(c) for c in
                                                      zip(*self._parts, strict=True))
        return _Decisions(actor.astype(np.int64), stratum.astype(np.int64), outcome,
                          decision.astype(np.int64), partner.astype(np.int64))

    def cells(self, lookup: Lookup) -> Iterable[Cell]:
        d = self._decisions()
        self._parts = []  # the run's decisions now live in ``d`` alone, freed with it
        if not len(d.exposed_decision):
            return
        directed = _directed(d)
        links = _strongest_links(directed, self.greater)
        pairs, tables = self._pair_tables(d, directed, links)
        exposed = tables.sums(tables.exposed)
        others = tables.sums(tables.total - tables.exposed)
        eligible = (exposed >= MIN_EXPOSED) & (others >= MIN_OTHER)
        bound = stats.chernoff_many(tables, greater=self.greater)
        odds, low, high = stats.mantel_haenszel_many(tables)
        used = tables.informative()
        hits, expected = used.sums(used.hits), used.sums(used.exposed * used.total_hits
                                                         / used.total)
        n_used = used.sums(used.exposed)
        other_n = used.sums(used.total - used.exposed)
        other_y = used.sums(used.total_hits - used.hits)
        for j in np.nonzero(eligible)[0].tolist():
            a, b = pairs[j]
            p = float(bound[j])
            strata: list[stats.Stratum] = []
            if p < EXACT_BELOW:  # the bound is near enough to decide nothing: be exact
                strata = tables.strata(j)
                p = stats.stratified_exact(strata, greater=self.greater).p_value
            adjusted = {lookup.player(x): lookup.player(links[x]) for x in (a, b)
                        if x in links and links[x] not in (a, b)}
            yield self._judge(a, b, lookup, Figures(
                p, int(hits[j]), float(expected[j]), int(n_used[j]), float(odds[j]),
                float(low[j]), float(high[j]), int(other_n[j]), int(other_y[j])),
                strata, adjusted)

    def _pair_tables(self, d: _Decisions, directed: _Directed, links: dict[int, int]
                     ) -> tuple[list[tuple[int, int]], stats.StrataSet]:
        """Every pair's tables: both directions for a pair either way round; a direction
        whose actor has a strong link elsewhere split by that link's exposure."""
        if self.level is Level.PAIR:
            first = np.minimum(directed.actor, directed.partner)
            second = np.maximum(directed.actor, directed.partner)
        else:
            first, second = directed.actor, directed.partner
        keys, owner = np.unique(pair_key(first, second), return_inverse=True)
        a_codes, b_codes = split_key(keys)
        pairs = list(zip(a_codes.tolist(), b_codes.tolist(), strict=True))
        linked = np.array([links.get(int(x), -1) for x in directed.actor.tolist()])
        split = (linked >= 0) & (linked != directed.partner)
        parts = [stats.StrataSet(owner[~split], directed.total[~split],
                                 directed.total_hits[~split], directed.exposed[~split],
                                 directed.hits[~split], len(pairs))]
        done: set[tuple[int, int]] = set()
        exposure_keys = np.sort(d.exposed_decision * _PLAYER_SPAN + d.exposed_to)
        for i in np.nonzero(split)[0].tolist():
            actor, partner = int(directed.actor[i]), int(directed.partner[i])
            if (actor, partner) in done:
                continue
            done.add((actor, partner))
            parts.append(_split_by_link(d, exposure_keys, actor, partner, links[actor],
                                        int(owner[i]), len(pairs)))
        def joined(name: str) -> I64:
            return np.concatenate([getattr(part, name) for part in parts]).astype(np.int64)

        return pairs, stats.StrataSet(joined("owner"), joined("total"), joined("total_hits"),
                                      joined("exposed"), joined("hits"), len(pairs))

    def _judge(self, a: int, b: int, lookup: Lookup, f: Figures, strata: list[stats.Stratum],
               links: dict[str, str]) -> Cell:
        exposed_rate = f.hits / f.exposed if f.exposed else 0.0
        other_rate = f.other_hits / f.other if f.other else 0.0
        first, second = lookup.player(a), lookup.player(b)
        if self.level is Level.PAIR and second < first:  # a stable key: ids in text order
            first, second = second, first
        subject = Subject(player_id=first, partner_id=second)
        exposure = self.exposure_text.format(a=first, b=second)
        return Cell(
            code=self.code, level=self.level, subject=subject, n=f.exposed,
            statistic=f"{self.decisions_text} that {self.outcome_text}, {exposure}",
            observed=f.hits, expected=f.expected, effect=f.odds,
            effect_label="odds ratio (Mantel-Haenszel)", ci_low=f.low, ci_high=f.high,
            p_value=f.p,
            message=(f"{subject.text()}: {f.hits} of {f.exposed} {self.decisions_text} "
                     f"{self.outcome_text} {exposure} ({100 * exposed_rate:.0f}%) against "
                     f"{100 * other_rate:.0f}% of {f.other} otherwise; {f.expected:.1f} "
                     f"expected, odds ratio {f.odds:.2f} (95% CI {f.low:.2f}-{f.high:.2f})"),
            evidence=partial(self._evidence, a, b, lookup),
            details={"strata": [vars(t) for t in strata], "exposed_rate": exposed_rate,
                     "other_rate": other_rate, "other_decisions": f.other,
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
#: Cells whose Chernoff bound is below this get their exact p-value; the others keep the
#: bound, which is never smaller than the exact value (conservative) and far above any
#: false discovery threshold.
EXACT_BELOW = 1e-2


@dataclass(frozen=True)
class Figures:
    """What a pair's tables give."""

    p: float
    hits: int
    expected: float
    exposed: int
    odds: float
    low: float
    high: float
    other: int
    other_hits: int


@dataclass(frozen=True)
class _Directed:
    """Per (actor, partner, stratum): the actor's table towards the partner."""

    actor: I64
    partner: I64
    stratum: I64
    total: I64
    total_hits: I64
    exposed: I64
    hits: I64


def _directed(d: _Decisions) -> _Directed:
    strata = 1 << _STRATA_BITS
    unique, inverse = np.unique(d.actor * strata + d.stratum, return_inverse=True)
    n_all = np.bincount(inverse).astype(np.int64)
    y_all = np.bincount(inverse, weights=d.outcome).astype(np.int64)
    exp_actor = d.actor[d.exposed_decision]
    exp_stratum = d.stratum[d.exposed_decision]
    key = pair_key(exp_actor, d.exposed_to * strata + exp_stratum)
    keys, where = np.unique(key, return_inverse=True)
    n_exp = np.bincount(where).astype(np.int64)
    y_exp = np.bincount(where, weights=d.outcome[d.exposed_decision]).astype(np.int64)
    actor, rest = split_key(keys)
    partner, stratum = rest // strata, rest % strata
    total_at = np.searchsorted(unique, actor * strata + stratum)
    return _Directed(actor, partner, stratum, n_all[total_at], y_all[total_at], n_exp, y_exp)


def _strongest_links(t: _Directed, greater: bool) -> dict[int, int]:
    """Each actor's partner with the smallest directed p-value, where it is below LINK_P."""
    keys, owner = np.unique(pair_key(t.actor, t.partner), return_inverse=True)
    tables = stats.StrataSet(owner, t.total, t.total_hits, t.exposed, t.hits, len(keys))
    exposed = tables.sums(tables.exposed)
    bound = stats.chernoff_many(tables, greater=greater)
    best: dict[int, tuple[float, int]] = {}
    actors, partners = split_key(keys)
    for j in np.nonzero((bound < LINK_P * 100) & (exposed >= MIN_EXPOSED))[0].tolist():
        p = stats.stratified_exact(tables.strata(j), greater=greater).p_value
        a = int(actors[j])
        if p < LINK_P and p < best.get(a, (1.0, -1))[0]:
            best[a] = (p, int(partners[j]))
    return {a: b for a, (_, b) in best.items()}


def _split_by_link(d: _Decisions, exposure_keys: I64, actor: int, partner: int, link: int,
                   owner: int, problems: int) -> stats.StrataSet:
    """The actor's tables for ``partner`` with each stratum split by ``link``'s exposure
    (``exposure_keys``: every exposure as ``decision * _PLAYER_SPAN + player``, sorted)."""
    mine = np.nonzero(d.actor == actor)[0].astype(np.int64)
    to_link = _exposed(mine, link, exposure_keys)
    to_partner = _exposed(mine, partner, exposure_keys)
    stratum = d.stratum[mine] * 2 + to_link
    outcome = d.outcome[mine]
    rows = [(int((stratum == s).sum()), int(outcome[stratum == s].sum()),
             int(((stratum == s) & to_partner).sum()),
             int(((stratum == s) & to_partner & outcome).sum()))
            for s in np.unique(stratum[to_partner]).tolist()]
    columns = np.array(rows, dtype=np.int64).reshape(-1, 4)
    return stats.StrataSet(np.full(len(rows), owner, dtype=np.int64), columns[:, 0],
                           columns[:, 1], columns[:, 2], columns[:, 3], problems)


def _exposed(decisions: I64, player: int, exposure_keys: I64) -> BoolArray:
    """Whether each decision was exposed to ``player``."""
    wanted = decisions * _PLAYER_SPAN + player
    at = np.searchsorted(exposure_keys, wanted)
    at = np.minimum(at, len(exposure_keys) - 1)
    return np.asarray(exposure_keys[at] == wanted)
