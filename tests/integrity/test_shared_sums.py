"""The tail and mean tests of the same PITs share their sums in one process: fed once a
batch, whichever is fed first, and every cell (and its evidence) as when each keeps its own."""

from __future__ import annotations

import numpy as np
import pytest

from audit.integrity.checks._pit import PitTest
from audit.integrity.engine import Options
from audit.integrity.features import BatchView, Lookup, view
from audit.integrity.frames import Names, read_batches
from audit.integrity.heap import kept_heap
from audit.integrity.registry import TESTS, instances
from audit.integrity.replay import replay
from audit.integrity.rows import row_of
from audit.integrity.test import Settings
from tests.integrity.conftest import Room

PITS = ["F102", "F103", "F104", "F105"]


@pytest.fixture(scope="module")
def views(cheat_room: Room) -> tuple[list[BatchView], Lookup]:
    con = cheat_room.connect()
    try:
        names = Names()
        found = [view(b, replay(b), names)
                 for b in read_batches(con, Options().profile, names, batch_hands=1500)]
    finally:
        con.close()
    lookup = Lookup(names)
    for v in found:
        lookup.add_batch(v.batch)
    lookup.freeze()
    return found, lookup


def _cells(tests: list[PitTest], views: list[BatchView], lookup: Lookup, *,
           backwards: bool = False) -> dict[str, list[object]]:
    for v in views:
        for test in (reversed(tests) if backwards else tests):
            test.feed(v)
    out: dict[str, list[object]] = {}
    for test in tests:
        cells = list(test.cells(lookup))
        out[test.code] = [(row_of(c), np.asarray(c.evidence().rows).tolist(),
                           c.evidence().notes, c.message) for c in cells]
    return out


def test_instances_share_the_sums_of_the_same_pits() -> None:
    f102, f103, f104, f105 = instances(Settings(), PITS)
    assert isinstance(f102, PitTest) and isinstance(f103, PitTest)
    assert isinstance(f104, PitTest) and isinstance(f105, PitTest)
    assert f102._pits is f103._pits and f104._pits is f105._pits
    assert f102._pits is not f104._pits
    other = instances(Settings(tail_share=0.01), ["F102"])[0]
    assert isinstance(other, PitTest) and other._pits is not f102._pits


@pytest.mark.parametrize("backwards", [False, True], ids=["in-order", "mean-first"])
def test_shared_sums_judge_every_cell_as_apart(views: tuple[list[BatchView], Lookup],
                                               backwards: bool) -> None:
    batches, lookup = views
    assert len(batches) > 1
    shared = [t for t in instances(Settings(), PITS) if isinstance(t, PitTest)]
    apart = [TESTS[code](Settings()) for code in PITS]
    assert all(isinstance(t, PitTest) for t in apart)
    got = _cells(shared, batches, lookup, backwards=backwards)
    want = _cells(apart, batches, lookup)  # type: ignore[arg-type]
    assert got == want and all(got[code] for code in PITS)


def test_kept_heap_gives_back_on_error() -> None:
    with pytest.raises(RuntimeError, match="inside"), kept_heap():
        np.ones(1 << 20).sum()
        raise RuntimeError("inside")
    assert np.ones(1 << 20).sum() == 1 << 20
