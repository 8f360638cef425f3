"""The counts behind the pair tests, kept as the batches come so memory follows the pairs.

A pair test needs, per (actor, stratum), the actor's decisions and how many had the
outcome, and per (actor, partner, stratum) the same for the decisions exposed to the
partner. Both are per-key sums (:class:`Sums`), added batch by batch: their size is
bounded by the players and pairs, whatever the number of hands.

One more table is needed only at the end: for an actor with a strong link elsewhere
(known once every batch is in), his tables split by whether that link was exposed too.
That split needs each of his decisions again, so the run's decision log is written,
compact (14 bytes a decision and exposure), to a temporary file as the batches come,
and read back once, a batch at a time, keeping only the linked actors' decisions:
memory stays flat and the hands are never replayed twice.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

import numpy as np
import numpy.typing as npt

from audit.integrity.checks._sums import Sums
from audit.integrity.features import pair_key, split_key

I64 = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
#: Strata of a pair test are below this (six bits); split by a link, below twice it.
STRATA = 1 << 6
_SPLIT_STRATA = 2 * STRATA
#: Codes of players are below this, so decision * span + player is a unique int64.
_PLAYER_SPAN = 1 << 31
#: Columns of one batch in the log: actor, stratum, outcome, exposed decision, partner.
_LOG_COLUMNS = 5


@dataclass(frozen=True)
class Tables:
    """Per (actor, partner, stratum), in key order: the actor's table towards the partner
    (all his decisions in the stratum, those with the outcome, those exposed to the
    partner, those of them with the outcome)."""

    actor: I64
    partner: I64
    stratum: I64
    total: I64
    total_hits: I64
    exposed: I64
    hits: I64


def _tables(totals: Sums, exposed: Sums, strata: int) -> Tables:
    """Join each (actor, partner, stratum) count to its (actor, stratum) total."""
    total_keys, total_sums = totals.totals()
    keys, sums = exposed.totals()
    actor, rest = split_key(keys)
    partner, stratum = rest // strata, rest % strata
    at = np.searchsorted(total_keys, actor * strata + stratum)
    return Tables(actor, partner, stratum, total_sums[at, 0].astype(np.int64),
                  total_sums[at, 1].astype(np.int64), sums[:, 0].astype(np.int64),
                  sums[:, 1].astype(np.int64))


class DecisionCounts:
    """A pair test's decisions, counted batch by batch, with their log on disk for the split."""

    def __init__(self) -> None:
        self._totals = Sums(2)  # key actor * STRATA + stratum: decisions, with the outcome
        self._exposed = Sums(2)  # key (actor, partner * STRATA + stratum): the same, exposed
        self._log: IO[bytes] | None = None
        self._batches = 0

    def add(self, actor: I64, stratum: I64, outcome: BoolArray, exposed_index: I64,
            partner: I64) -> None:
        """One batch's decisions and their exposures (``exposed_index``: each exposure's
        decision; a decision's actor is never its own partner)."""
        self._totals.add(actor * STRATA + stratum, None, outcome)
        self._exposed.add(pair_key(actor[exposed_index], partner * STRATA
                                   + stratum[exposed_index]),
                          None, outcome[exposed_index])
        if self._log is None:  # open across batches until close(): no context manager
            self._log = tempfile.TemporaryFile(prefix="openers-integrity-")  # noqa: SIM115
        for column in (actor.astype(np.int32), stratum.astype(np.int8),
                       outcome.astype(np.bool_), exposed_index.astype(np.int32),
                       partner.astype(np.int32)):
            np.save(self._log, column, allow_pickle=False)
        self._batches += 1

    def tables(self) -> Tables:
        """Every (actor, partner, stratum) table."""
        return _tables(self._totals, self._exposed, STRATA)

    def split_tables(self, links: dict[int, int]) -> Tables:
        """The tables of each actor in ``links`` towards each partner other than his link,
        with each stratum split in two by whether the link was exposed too (stratum * 2 +
        exposed to the link), from one read of the log."""
        actors = np.array(sorted(links), dtype=np.int64)
        link_of = np.array([links[a] for a in actors.tolist()], dtype=np.int64)
        totals, exposed = Sums(2), Sums(2)
        for actor, stratum, outcome, index, partner in self._batches_logged():
            at = np.minimum(np.searchsorted(actors, actor), max(len(actors) - 1, 0))
            mine = (actors[at] == actor) if len(actors) else np.zeros(len(actor), np.bool_)
            if not mine.any():
                continue
            link = link_of[at]
            # a decision's exposures, each (decision, player) once, of the linked actors only
            pairs = np.unique(index[mine[index]] * _PLAYER_SPAN + partner[mine[index]])
            decision, player = pairs // _PLAYER_SPAN, pairs % _PLAYER_SPAN
            to_link = np.zeros(len(actor), dtype=np.bool_)
            to_link[decision[player == link[decision]]] = True
            split = stratum * 2 + to_link
            chosen = np.nonzero(mine)[0]
            totals.add(actor[chosen] * _SPLIT_STRATA + split[chosen], None,
                       outcome[chosen])
            other = player != link[decision]
            decision, player = decision[other], player[other]
            exposed.add(pair_key(actor[decision], player * _SPLIT_STRATA + split[decision]),
                        None, outcome[decision])
        return _tables(totals, exposed, _SPLIT_STRATA)

    def _batches_logged(self) -> Iterator[tuple[I64, I64, BoolArray, I64, I64]]:
        if self._log is None:
            return
        self._log.seek(0)
        for _ in range(self._batches):
            columns: list[npt.NDArray[Any]] = [np.load(self._log, allow_pickle=False)
                                               for _ in range(_LOG_COLUMNS)]
            actor, stratum, outcome, index, partner = columns
            yield (actor.astype(np.int64), stratum.astype(np.int64), outcome,
                   index.astype(np.int64), partner.astype(np.int64))

    def close(self) -> None:
        """Delete the log and free the counts (a test's tables are built once)."""
        if self._log is not None:
            self._log.close()
            self._log = None
        self._totals, self._exposed, self._batches = Sums(2), Sums(2), 0
