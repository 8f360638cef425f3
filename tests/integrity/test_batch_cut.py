"""The same store gives the same cells, alerts and PIT histograms to the bit, wherever the
batches are cut and whichever process feeds the tests: nothing kept across batches
depends on how the hands were grouped (:mod:`audit.integrity.checks._sums`)."""

from __future__ import annotations

import multiprocessing

import numpy as np
import pytest

from audit.integrity.checks._common import Events
from audit.integrity.engine import IntegrityResult, Options
from tests.integrity.conftest import ROOM_HANDS, Room, bits

#: The room whole in one batch, and cut in six at an odd place (a table's hands split
#: mid-session, every batch's sums of a different set of hands).
WHOLE = ROOM_HANDS
CUT = 733


def _run(room: Room, batch: int, workers: int) -> IntegrityResult:
    return room.analyse(Options(batch_hands=batch, workers=workers))


@pytest.fixture(scope="module")
def whole(cheat_room: Room) -> IntegrityResult:
    """The cheat room in one batch, every test in this process."""
    return _run(cheat_room, WHOLE, 0)


def _same(one: IntegrityResult, other: IntegrityResult) -> None:
    assert len(one.tested) == len(other.tested) > 1000
    differing = sorted({a.code for a, b in zip(one.tested, other.tested, strict=True)
                        if bits(a) != bits(b)})
    assert differing == []
    assert [bits(a) for a in one.alerts] == [bits(a) for a in other.alerts]
    assert [bits(b) for b in one.bins] == [bits(b) for b in other.bins]


def test_cutting_the_batches_elsewhere_changes_no_bit(cheat_room: Room,
                                                      whole: IntegrityResult) -> None:
    _same(whole, _run(cheat_room, CUT, 0))


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                    reason="the worker is forked")
def test_cut_batches_fed_in_the_worker_change_no_bit(cheat_room: Room,
                                                     whole: IntegrityResult) -> None:
    _same(whole, _run(cheat_room, CUT, 1))


def test_evidence_is_the_first_hands_in_reading_order_wherever_cut() -> None:
    """A pair test lists a batch's events seat by seat (each hand's own in an order of its
    own); the events kept are the first in reading order, whatever the batches."""
    rng = np.random.default_rng(4)
    rows = np.sort(rng.integers(0, 400, 900))
    keys = rng.integers(0, 3, len(rows))
    codes = rng.integers(0, 1000, len(rows))
    seat = rng.integers(0, 6, len(rows))
    whole, cut = Events(cap=40), Events(cap=40)
    for kept, parts in ((whole, [rows >= 0]), (cut, [rows < 150, rows >= 150])):
        for part in parts:
            at = np.flatnonzero(part)
            at = at[np.argsort(seat[at], kind="stable")]
            kept.add(keys[at], rows[at], None, codes[at])
    for key in range(3):
        mine = np.flatnonzero(keys == key)
        mine = mine[np.lexsort((seat[mine], rows[mine]))][:40]  # by hand, then seat
        for kept in (whole, cut):
            got_rows, _, got_codes = kept.of(key)
            assert got_rows.tolist() == rows[mine].tolist()
            assert got_codes.tolist() == codes[mine].tolist()
            assert kept.total(key) == (keys == key).sum()
