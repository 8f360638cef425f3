"""The tests fed in a forked worker give the same cells and alerts, to the bit, as in one
process; a failure in the worker is raised in the main process and nothing is left behind."""

from __future__ import annotations

import multiprocessing
import os
import tempfile
from pathlib import Path

import pytest

from audit.integrity import parallel
from audit.integrity.checks.c205_whipsaw import Whipsaw
from audit.integrity.checks.f101_dealt_categories import DealtCategories
from audit.integrity.engine import IntegrityResult, Options
from audit.integrity.features import BatchView
from audit.integrity.parallel import SHORT_RUN_MAIN, WorkerFailed, use_worker, worker_share
from audit.integrity.registry import codes
from tests.integrity.conftest import Room, bits

pytestmark = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                                reason="the worker is forked")

#: Small batches: the room's 4,000 hands in six, more than the worker may have in flight
#: (a long run: every test in the worker); or in two (a short run: the tests shared).
BATCH = 700
SHORT_BATCH = 2500


def _run(room: Room, workers: int, batch: int = BATCH) -> IntegrityResult:
    return room.analyse(Options(workers=workers, batch_hands=batch))


@pytest.fixture(scope="module", params=[BATCH, SHORT_BATCH], ids=["long", "short"])
def both(cheat_room: Room, request: pytest.FixtureRequest
         ) -> tuple[IntegrityResult, IntegrityResult]:
    """The cheat room analysed in one process and with the worker."""
    return _run(cheat_room, 0, request.param), _run(cheat_room, 1, request.param)


def test_the_worker_gives_every_cell_and_alert_to_the_bit(
        both: tuple[IntegrityResult, IntegrityResult]) -> None:
    alone, together = both
    assert len(alone.tested) == len(together.tested) > 1000
    assert [bits(t) for t in alone.tested] == [bits(t) for t in together.tested]
    assert [bits(a) for a in alone.alerts] == [bits(a) for a in together.alerts]
    assert [bits(b) for b in alone.bins] == [bits(b) for b in together.bins]
    assert (alone.hands, alone.draws, alone.decisions, alone.irregular) == (
        together.hands, together.draws, together.decisions, together.irregular)


def test_alerts_of_both_processes_keep_their_evidence(
        both: tuple[IntegrityResult, IntegrityResult]) -> None:
    _, together = both
    short = together.hands <= SHORT_BATCH * 2
    main = [a for a in together.alerts if short and a.code in SHORT_RUN_MAIN]
    assert len(main) < len(together.alerts)
    assert bool(main) is short  # both ways of naming the evidence are exercised
    for alert in together.alerts:
        assert alert.hands and len(alert.hands) == len(alert.hand_notes)
        assert alert.hands_total >= len(alert.hands)


def test_the_worker_is_used_on_two_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "default_workers", lambda: 2)
    assert use_worker(None) and use_worker(1) and not use_worker(0)
    monkeypatch.setattr(parallel, "default_workers", lambda: 1)
    assert not use_worker(None) and use_worker(1)


def test_a_long_run_feeds_every_test_in_the_worker() -> None:
    every = codes()
    assert worker_share(every, 3) == list(every)
    short = worker_share(every, 2)
    assert short == [c for c in every if c not in SHORT_RUN_MAIN] and short
    assert worker_share(list(SHORT_RUN_MAIN), 1) == []


def test_the_worker_is_sent_no_lines_of_play(cheat_room: Room) -> None:
    """Every test reads hands, seats and the replayed facts; the lines stay behind."""
    from audit.integrity.features import view
    from audit.integrity.frames import Names, read_batches
    from audit.integrity.replay import replay

    con = cheat_room.connect()
    try:
        names = Names()
        batch = next(read_batches(con, Options().profile, names, batch_hands=BATCH))
    finally:
        con.close()
    whole = view(batch, replay(batch), names)
    lean = parallel.lean(whole)
    assert len(lean.batch.a_verb) == len(lean.batch.cards) == 0 < len(whole.batch.a_verb)
    assert lean.batch.hand_ids == whole.batch.hand_ids
    assert lean.replayed is whole.replayed and lean.seat_player is whole.seat_player


def _nothing_left(folder: Path) -> None:
    assert multiprocessing.active_children() == []
    assert list(folder.iterdir()) == []


@pytest.fixture
def temp_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The system's temporary folder, for this test alone (the batch files go there)."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def test_a_test_failing_in_the_worker_fails_the_run(cheat_room: Room, temp_folder: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: Whipsaw, view: BatchView) -> None:
        raise RuntimeError("whipsaw broke in the worker")

    monkeypatch.setattr(Whipsaw, "feed", broken)
    with pytest.raises(WorkerFailed, match="whipsaw broke in the worker"):
        _run(cheat_room, 1)
    _nothing_left(temp_folder)


def test_a_worker_that_dies_fails_the_run(cheat_room: Room, temp_folder: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    def dies(self: Whipsaw, view: BatchView) -> None:
        os._exit(7)

    monkeypatch.setattr(Whipsaw, "feed", dies)
    with pytest.raises(WorkerFailed, match="exit code 7"):
        _run(cheat_room, 1)
    _nothing_left(temp_folder)


def test_a_failure_in_the_main_process_stops_the_worker(
        cheat_room: Room, temp_folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: DealtCategories, view: BatchView) -> None:
        raise RuntimeError("broke in the main process")

    monkeypatch.setattr(DealtCategories, "feed", broken)  # a short run keeps it here
    with pytest.raises(RuntimeError, match="broke in the main process") as raised:
        _run(cheat_room, 1, SHORT_BATCH)
    assert not isinstance(raised.value, WorkerFailed)
    _nothing_left(temp_folder)


def _batch_files_mapped(pid: int) -> int:
    """How many batch files (:func:`parallel._batch_file`) the process ``pid`` maps."""
    maps = Path(f"/proc/{pid}/maps").read_text().splitlines()
    return len({line.split()[-2] for line in maps if "openers-integrity-batch" in line})


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc/PID/maps")
def test_the_worker_unmaps_each_batch_once_fed(cheat_room: Room,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Once every batch is fed, the worker maps none of their files (a view kept by a test
    or the lookup would keep its whole batch's file, and the worker grows with the store)."""
    mapped: list[int] = []
    cells = parallel.IntegrityWorker.cells

    def counted(self: parallel.IntegrityWorker) -> parallel.RemoteCells:
        found = cells(self)  # every batch fed: the worker waits for the next request
        mapped.append(_batch_files_mapped(self._process.pid or 0))
        return found

    monkeypatch.setattr(parallel.IntegrityWorker, "cells", counted)
    assert _run(cheat_room, 1).hands > BATCH * parallel.AHEAD
    assert mapped == [0]
