"""Pair tests on betting decisions: does a player act differently when one other player is involved?

Every collusion test on decisions (C202-C206) has the same shape. Some decisions of a
player are *exposed* to another player (the partner is the lone opponent, the last
bettor, sits behind...) and each decision has a yes/no outcome (bet, fold, pass...).
Under fair play the outcome does not depend on who the other player is, so within a
stratum of comparable decisions (facing a bet or not, heads-up or not...) the number of
exposed decisions with the outcome is hypergeometric given the stratum's margins: the
stratified exact test of :func:`audit.integrity.strata.stratified_exact` applies, with
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
from audit.integrity import strata
from audit.integrity.checks._common import Events, unique_inverse
from audit.integrity.checks._pair_counts import DecisionCounts, Tables
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


class PairDecisionTest(IntegrityTest):
    """Counts the decisions and their exposures (:class:`DecisionCounts`); judges pairs.

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
        self.counts = DecisionCounts()
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
        self.counts.add(found.actor, found.stratum, found.outcome, i, partner)
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
        directed = self.counts.tables()
        if not len(directed.actor):
            self.counts.close()
            return
        links = _strongest_links(directed, self.greater)
        pairs, tables = self._pair_tables(directed, links)
        self.counts.close()
        exposed = tables.sums(tables.exposed)
        others = tables.sums(tables.total - tables.exposed)
        eligible = (exposed >= MIN_EXPOSED) & (others >= MIN_OTHER)
        bound = strata.chernoff_many(tables, greater=self.greater, wanted=eligible)
        odds, low, high = strata.mantel_haenszel_many(tables)
        used = tables.informative()
        hits, expected = used.sums(used.hits), used.sums(used.exposed * used.total_hits
                                                         / used.total)
        n_used = used.sums(used.exposed)
        other_n = used.sums(used.total - used.exposed)
        other_y = used.sums(used.total_hits - used.hits)
        judged = np.flatnonzero(eligible)
        # each cell's figures as Python numbers, converted once for all the cells
        columns = zip(judged.tolist(), bound[judged].tolist(),
                      *(c[judged].astype(np.int64).tolist() for c in (hits, n_used, other_n,
                                                                      other_y)),
                      *(c[judged].tolist() for c in (expected, odds, low, high)), strict=True)
        for j, p, hit, n, other, other_hit, mean, ratio, ratio_low, ratio_high in columns:
            a, b = pairs[j]
            pair_strata: list[strata.Stratum] = []
            if p < EXACT_BELOW:  # the bound is near enough to decide nothing: be exact
                pair_strata = tables.strata(j)
                p = strata.stratified_exact(pair_strata, greater=self.greater).p_value
            adjusted = {lookup.player(x): lookup.player(links[x]) for x in (a, b)
                        if x in links and links[x] not in (a, b)}
            yield self._judge(a, b, lookup, Figures(
                p, hit, mean, n, ratio, ratio_low, ratio_high, other, other_hit),
                pair_strata, adjusted)

    def _pair_key(self, actor: I64, partner: I64) -> I64:
        """The cell key of each direction: the pair in code order for a pair either way round."""
        if self.level is Level.PAIR:
            return pair_key(np.minimum(actor, partner), np.maximum(actor, partner))
        return pair_key(actor, partner)

    def _pair_tables(self, directed: Tables, links: dict[int, int]
                     ) -> tuple[list[tuple[int, int]], strata.StrataSet]:
        """Every pair's tables: both directions for a pair either way round; a direction
        whose actor has a strong link elsewhere split by that link's exposure (those tables
        come after the others, in (actor, partner, stratum) order)."""
        keys, owner = unique_inverse(self._pair_key(directed.actor, directed.partner))
        a_codes, b_codes = split_key(keys)
        pairs = list(zip(a_codes.tolist(), b_codes.tolist(), strict=True))
        linked = _linked(links, directed.actor)
        split = (linked >= 0) & (linked != directed.partner)
        parts = [(owner[~split], directed.total[~split], directed.total_hits[~split],
                  directed.exposed[~split], directed.hits[~split])]
        if split.any():
            s = self.counts.split_tables(links)
            parts.append((np.searchsorted(keys, self._pair_key(s.actor, s.partner)), s.total,
                          s.total_hits, s.exposed, s.hits))
        owners, total, total_hits, exposed, hits = (np.concatenate(c).astype(np.int64)
                                                    for c in zip(*parts, strict=True))
        return pairs, strata.StrataSet(owners, total, total_hits, exposed, hits, len(pairs))

    def _judge(self, a: int, b: int, lookup: Lookup, f: Figures,
               pair_strata: list[strata.Stratum],
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
            details={"strata": [vars(t) for t in pair_strata], "exposed_rate": exposed_rate,
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


def _linked(links: dict[int, int], actors: I64) -> I64:
    """Each actor's strongest link (-1 for none)."""
    linked = np.full(len(actors), -1, dtype=np.int64)
    if links and len(actors):
        keys = np.array(sorted(links), dtype=np.int64)
        values = np.array([links[k] for k in keys.tolist()], dtype=np.int64)
        at = np.minimum(np.searchsorted(keys, actors), len(keys) - 1)
        found = keys[at] == actors
        linked[found] = values[at[found]]
    return linked


def _strongest_links(t: Tables, greater: bool) -> dict[int, int]:
    """Each actor's partner with the smallest directed p-value, where it is below LINK_P."""
    keys, owner = unique_inverse(pair_key(t.actor, t.partner))
    tables = strata.StrataSet(owner, t.total, t.total_hits, t.exposed, t.hits, len(keys))
    enough = tables.sums(tables.exposed) >= MIN_EXPOSED
    bound = strata.chernoff_many(tables, greater=greater, wanted=enough)
    best: dict[int, tuple[float, int]] = {}
    actors, partners = split_key(keys)
    for j in np.nonzero((bound < LINK_P * 100) & enough)[0].tolist():
        p = strata.stratified_exact(tables.strata(j), greater=greater).p_value
        a = int(actors[j])
        if p < LINK_P and p < best.get(a, (1.0, -1))[0]:
            best[a] = (p, int(partners[j]))
    return {a: b for a, (_, b) in best.items()}
