"""C201: two players who sit down and get up together."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import partial

import numpy as np
import numpy.typing as npt
from numba import njit

from audit.integrity import stats
from audit.integrity.checks._sums import Sums
from audit.integrity.features import BatchView, Lookup, pair_key
from audit.integrity.model import Cell, Evidence, Family, Level, Subject
from audit.integrity.test import IntegrityTest, Settings

I64 = npt.NDArray[np.int64]
#: Two comings (or goings) this close count as together.
WINDOW_MINUTES = 5.0
#: The partner's comings and goings this close are taken as placed at random: the
#: local "hours" the test conditions on.
SPAN_MINUTES = 60.0
#: A pair is tested when its events could reach this p-value (Tarone's rule).
MIN_ATTAINABLE = 1e-4
ARRIVE, LEAVE = 0, 1


@dataclass
class _Moves:
    """Comings and goings at one table: time (ms), player, kind, hand row."""

    times: list[I64] = field(default_factory=list)
    players: list[I64] = field(default_factory=list)
    kinds: list[I64] = field(default_factory=list)
    rows: list[I64] = field(default_factory=list)


def _contains(sorted_keys: I64, wanted: I64) -> npt.NDArray[np.bool_]:
    """Whether each wanted key is in the sorted keys (a binary search, no second sort)."""
    if not len(sorted_keys):
        return np.zeros(len(wanted), dtype=np.bool_)
    at = np.minimum(np.searchsorted(sorted_keys, wanted), len(sorted_keys) - 1)
    return np.asarray(sorted_keys[at] == wanted)


@njit(cache=True, nogil=True)
def _attainable(times: npt.NDArray[np.float64], kinds: I64, order: I64, starts: I64,
                moved: I64, mine: I64, theirs: I64
                ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """Per pair (players ``mine`` and ``theirs``, indices into ``starts`` and ``moved``, their
    moves at ``order[starts[i]:starts[i] + moved[i]]``): the log of the smallest p-value its
    moves could reach (the product of the coincidence chances that are not 0), and whether
    any is. The same counts as :meth:`ArriveTogether._judge`'s, so a pair it skips is one
    the test skips; the product is summed in logs, hence the caller's margin."""
    log_floor = np.zeros(len(mine))
    positive = np.zeros(len(mine), dtype=np.bool_)
    miss = 1.0 - WINDOW_MINUTES / SPAN_MINUTES
    for q in range(len(mine)):
        a, b = mine[q], theirs[q]
        for i in range(starts[a], starts[a] + moved[a]):
            m = order[i]
            low, high = times[m] - SPAN_MINUTES, times[m] + SPAN_MINUTES
            near = 0
            for j in range(starts[b], starts[b] + moved[b]):
                o = order[j]
                if kinds[o] == kinds[m] and times[o] >= low and times[o] <= high:
                    near += 1
            if near > 0:
                positive[q] = True
                log_floor[q] += math.log(1.0 - miss ** near)
    return log_floor, positive


def warm_up() -> None:
    """Compile :func:`_attainable` ahead (``openers warmup``), with the array types
    :meth:`ArriveTogether.cells` gives it (its caller is Python: no compiled caller
    compiles it along)."""
    none = np.zeros(0, dtype=np.int64)
    _attainable(np.zeros(0), none, none, none, none, none, none)


def coincidence_probability(near: I64) -> npt.NDArray[np.float64]:
    """Chance that at least one of ``near`` moves placed uniformly within the span falls
    within the window (the null probability of a coincidence)."""
    return np.asarray(1.0 - (1.0 - WINDOW_MINUTES / SPAN_MINUTES) ** near, dtype=np.float64)


class ArriveTogether(IntegrityTest):
    """Tests whether two players sit down and get up at the same times more often than their
    hours at the table explain.

    What it does:
        A player's sessions at a table are runs of consecutive deals he is dealt in;
        a session's first deal is an arrival and its last a departure (not at the
        first and last deal of the table's data, which are not seen). For two players
        of a table, each arrival (departure) of the one with fewer moves is checked for
        an arrival (departure) of the other within 5 minutes. Conditioning on the
        other's hours, his moves within an hour either side are taken as placed at
        random in that span, which gives each check its own chance of a coincidence;
        the number of coincidences is then a sum of independent Bernoullis with those
        chances, and the exact Poisson-binomial tail is the p-value. Partners who come
        and go together stand out however much either plays.

    Assumes:
        Within an hour either side, a player's comings and goings are as likely at one
        moment as another, and independent of the other player's. Seat limits (a full
        table, a game kept going by its last players) make innocent coincidences rarer,
        so they only make the test conservative.

    Not valid when:
        Players arrive together for innocent reasons: friends, couples, a game started
        for a group, a table opened or broken (everyone moves at once). Those show up
        as alerts to be dismissed with that reason.

    Minimum sample:
        Enough moves that a complete coincidence would reach p = 1e-4 (Tarone's rule
        for discrete tests: pairs that could never be significant are not tested).

    Evidence:
        The deals where they arrived or left together.
    """

    code = "C201"
    name = "arrive-and-leave-together"
    family = Family.COLLUSION
    levels = (Level.PAIR,)
    summary = "Two players who sit down and get up together more than their hours explain."

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self._moves: dict[int, _Moves] = {}
        self._together = Sums(1)
        self._carry: tuple[int, I64, int, int] | None = None  # table, players, time, row

    def feed(self, view: BatchView) -> None:
        b = view.batch
        n = len(b)
        if n == 0:
            return
        row = view.seat_row
        player = view.seat_player.astype(np.int64)
        present = pair_key(player, row)
        extra_keys = np.zeros(0, dtype=np.int64)
        if self._carry is not None and self._carry[0] == int(b.h_table[0]):
            extra_keys = pair_key(self._carry[1], np.full(len(self._carry[1]), self._carry[3]))
        keys = np.sort(np.concatenate((present, extra_keys)))
        table = b.h_table.astype(np.int64)
        hand = view.seat_hand
        previous_same = np.zeros(n, dtype=np.bool_)
        previous_same[1:] = table[1:] == table[:-1]
        if self._carry is not None and self._carry[0] == int(table[0]):
            previous_same[0] = True
        next_same = np.zeros(n, dtype=np.bool_)
        next_same[:-1] = table[1:] == table[:-1]
        arrive = previous_same[hand] & ~_contains(keys, pair_key(player, row - 1))
        leave = next_same[hand] & ~_contains(keys, pair_key(player, row + 1))
        times = b.h_time_ms[hand]
        self._record(table[hand][arrive], times[arrive], player[arrive], ARRIVE, row[arrive])
        self._record(table[hand][leave], times[leave], player[leave], LEAVE, row[leave])
        if self._carry is not None and self._carry[0] == int(table[0]):
            carried = self._carry[1]
            gone = ~_contains(np.sort(present), pair_key(carried, np.full(len(carried), b.first)))
            self._record(np.full(int(gone.sum()), self._carry[0]),
                         np.full(int(gone.sum()), self._carry[2]), carried[gone], LEAVE,
                         np.full(int(gone.sum()), self._carry[3]))
        last = hand == n - 1
        self._carry = (int(table[-1]), player[last], int(b.h_time_ms[-1]), int(b.first + n - 1))
        self._count_together(view)

    def _record(self, tables: I64, times: I64, players: I64, kind: int, rows: I64) -> None:
        for t in np.unique(tables).tolist():
            at = tables == t
            moves = self._moves.setdefault(t, _Moves())
            moves.times.append(times[at])
            moves.players.append(players[at])
            moves.kinds.append(np.full(int(at.sum()), kind, dtype=np.int64))
            moves.rows.append(rows[at])

    def _count_together(self, view: BatchView) -> None:
        counts = view.batch.h_seat_count.astype(np.int64)
        starts = view.batch.h_seat_start.astype(np.int64)
        pairs = []  # each pair's key made from the seats' codes (no wider copy of them)
        for i in range(int(counts.max(initial=0))):
            for j in range(i + 1, int(counts.max(initial=0))):
                has = counts > j
                a = view.seat_player[starts[has] + i]
                b = view.seat_player[starts[has] + j]
                pairs.append(pair_key(np.minimum(a, b), np.maximum(a, b)))
        if pairs:
            self._together.add(np.concatenate(pairs), None)

    def cells(self, lookup: Lookup) -> Iterable[Cell]:
        keys, together = self._together.totals()
        for table, moves in self._moves.items():
            # one order of the moves whatever the batches (a batch records its arrivals,
            # then its departures, and a session ending its last hand in the next batch):
            # arrivals, then departures, each by hand (stable: by seat within a hand)
            kinds = np.concatenate(moves.kinds)
            rows = np.concatenate(moves.rows)
            order = np.lexsort((rows, kinds))
            kinds, rows = kinds[order], rows[order]
            times = np.concatenate(moves.times)[order] / 60000.0
            players = np.concatenate(moves.players)[order]
            ids, index = np.unique(players, return_inverse=True)
            # every pair of the table's players (a before b) that was ever dealt in together
            first, second = np.triu_indices(len(ids), 1)
            pairs = pair_key(ids[first], ids[second])
            at = np.minimum(np.searchsorted(keys, pairs), max(len(keys) - 1, 0))
            met = keys[at] == pairs if len(keys) else np.zeros(len(pairs), dtype=np.bool_)
            first, second, at = first[met], second[met], at[met]
            # the side with fewer moves is checked against the other's (a on a tie)
            moved = np.bincount(index, minlength=len(ids))
            swap = moved[second] < moved[first]
            mine, theirs = np.where(swap, second, first), np.where(swap, first, second)
            order = np.argsort(index, kind="stable")
            starts = np.concatenate(([0], np.cumsum(moved)[:-1])).astype(np.int64)
            log_floor, positive = _attainable(times, kinds, order, starts, moved, mine, theirs)
            # Tarone's screen, with a margin for rounding: _judge decides the pairs left
            left = positive & (log_floor <= math.log(MIN_ATTAINABLE) + 1e-9)
            if not left.any():
                continue
            by_player = {int(p): np.nonzero(players == p)[0] for p in ids}
            for j in np.flatnonzero(left).tolist():
                a, b = int(ids[first[j]]), int(ids[second[j]])
                cell = self._judge(table, a, b, by_player, times, kinds, rows, lookup,
                                   int(together[at[j], 0]))
                if cell is not None:
                    yield cell

    def _judge(self, table: int, a: int, b: int, by_player: dict[int, I64],
               times: npt.NDArray[np.float64], kinds: I64, rows: I64, lookup: Lookup,
               together: int) -> Cell | None:
        mine, theirs = by_player[a], by_player[b]
        if len(theirs) < len(mine) or (len(theirs) == len(mine) and b < a):
            mine, theirs = theirs, mine
        probabilities = np.zeros(len(mine))
        hits = np.zeros(len(mine), dtype=np.bool_)
        for kind in (ARRIVE, LEAVE):
            m = mine[kinds[mine] == kind]
            t = np.sort(times[theirs[kinds[theirs] == kind]])
            if not len(m):
                continue
            at = times[m]
            near = (np.searchsorted(t, at + SPAN_MINUTES, "right")
                    - np.searchsorted(t, at - SPAN_MINUTES, "left"))
            close = (np.searchsorted(t, at + WINDOW_MINUTES, "right")
                     - np.searchsorted(t, at - WINDOW_MINUTES, "left"))
            index = np.searchsorted(mine, m)
            probabilities[index] = coincidence_probability(near)
            hits[index] = close > 0
        if float(np.prod(probabilities[probabilities > 0])) > MIN_ATTAINABLE or not (
                probabilities > 0).any():
            return None
        x = int(hits.sum())
        expected = float(probabilities.sum())
        p = stats.poisson_binomial_upper(x, probabilities.tolist())
        low, high = stats.poisson_interval(x)
        first, second = sorted((lookup.player(a), lookup.player(b)))
        subject = Subject(player_id=first, partner_id=second)
        hit_rows = rows[mine[hits]]
        notes = [("arrived" if kinds[i] == ARRIVE else "left") + " together at table "
                 f"{lookup.table(table)}" for i in mine[hits]]
        return Cell(
            code=self.code, level=Level.PAIR, subject=subject, n=len(mine),
            statistic=f"arrivals and departures within {WINDOW_MINUTES:g} minutes of each other",
            observed=x, expected=expected, effect=x / expected if expected else 0.0,
            effect_label="coincidences / expected",
            ci_low=low / expected if expected else 0.0,
            ci_high=high / expected if expected else 0.0, p_value=p,
            message=(f"{subject.text()}: {x} of {len(mine)} arrivals and departures within "
                     f"{WINDOW_MINUTES:g} minutes of each other at table {lookup.table(table)} "
                     f"against {expected:.1f} expected from their hours; {together} deals "
                     f"together"),
            evidence=partial(Evidence, hit_rows, notes),
            details={"table": lookup.table(table), "deals_together": together,
                     "window_minutes": WINDOW_MINUTES, "span_minutes": SPAN_MINUTES},
        )

