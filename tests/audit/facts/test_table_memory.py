"""Joins and the compiled replay in kept memory: batch after batch, the very arrays and
tables fresh memory gives."""

from __future__ import annotations

import numpy as np

from audit.facts.arrays import TableMemory, join
from audit.facts.replay import replay_facts
from audit.facts.tables import Facts
from audit.profiles import load_profile
from ingest.scan.scanner import scan
from tests.audit.corpus import corpus


def _same(mine: Facts, fresh: Facts) -> None:
    for name in ("hands", "actions", "seats", "pots"):
        got, want = getattr(mine, name), getattr(fresh, name)
        assert got.dtype == want.dtype and len(got) == len(want), name
        for column in want.dtype.names:
            assert np.array_equal(got[column], want[column]), (name, column)
    assert np.array_equal(mine.cards, fresh.cards)


def test_batches_in_kept_memory_equal_fresh_ones() -> None:
    profile = load_profile("robert")
    room = corpus("robert", hands=400, seed=21, violations=0.1, unrecorded=0.1)
    batches = [scan(np.frombuffer(p.read_bytes(), dtype=np.uint8)).arrays for p in room.files]
    batches.sort(key=len, reverse=True)  # a smaller batch reuses a larger one's memory
    memory = TableMemory()
    for arrays in [*batches, batches[0]]:  # and grows again
        _same(replay_facts(arrays, profile, memory), replay_facts(arrays, profile))
    for parts in (batches, batches[1:3], batches):
        kept, fresh = join(parts, memory), join(parts)
        for name in ("hands", "seats", "events", "cards"):
            assert np.array_equal(getattr(kept, name), getattr(fresh, name)), name
            assert getattr(kept, name).dtype == getattr(fresh, name).dtype
        # As a check worker does: the joined batch, replayed into the same memory.
        _same(replay_facts(kept, profile, memory), replay_facts(fresh, profile))


def test_tables_in_memory_full_of_garbage_equal_fresh_ones() -> None:
    # The action rows are written whole, never filled beforehand: memory left with any
    # bytes at all (here 0xAB everywhere) gives the tables fresh memory gives, hands the
    # replay does not reach (a seat named twice, damaged hands) included.
    profile = load_profile("foster")
    room = corpus("foster", hands=300, seed=5, violations=0.2, unrecorded=0.1)
    memory = TableMemory()
    for path in room.files:
        arrays = scan(np.frombuffer(path.read_bytes(), dtype=np.uint8)).arrays
        for name in ("fact hands", "fact actions", "fact seats", "fact pots"):
            memory.array(name, np.uint8, (1 << 20,)).fill(0xAB)
        _same(replay_facts(arrays, profile, memory), replay_facts(arrays, profile))
