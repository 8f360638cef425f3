"""Crash safety with the audit's process pool: a realistic night of more than
``audit.store.BATCH_HANDS`` hands (so the audit runs on a pool of workers), the job
killed with SIGKILL in each stage of its run, then run again.

The killed job's workers must die with it and must not keep the job lock, and the
next run must end with exactly the store of a run that was never killed. The room
is generated once per session; each case copies its logs.
"""

from __future__ import annotations

import os
import shutil
import signal
import time
from pathlib import Path

import pytest

from audit.store import BATCH_HANDS
from openers.generator import GenerateConfig, generate
from openers.generator.generate import LOGS_DIR
from openers.nightly.checkpoints import CHECKPOINTS, KILL_ENV, STAGES
from openers.nightly.job import ExitCode
from tests.nightly.jobtools import mismatches, run_in_process, run_totals, snapshot, start_job

HANDS = 2400
#: One kill point per stage of the run; in the audit stage, while the pool is working.
KILL_POINTS = {
    "start": "run-started",
    "plan": "planned",
    "ingest": "ingest-batch#2",
    "audit": "audit-batch#1",
    "close": "finalized",
    "report": "report-written",
}
#: Marks the processes of one case (workers inherit it), to find any that outlive the job.
MARK_ENV = "OPENERS_TEST_CRASH_CASE"
#: Each case runs a real job and a recovery (started first: see ``tests/conftest.py``).
pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def pool_room(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two days of four tables, with violations, unrecorded cards and broken hands."""
    out = tmp_path_factory.mktemp("pool-room")
    generate(GenerateConfig(hands=HANDS, tables=4, seed=11, violations=0.05,
                            unrecorded_share=0.05, broken_share=0.01), out)
    return out / LOGS_DIR


def _inbox(root: Path, logs: Path) -> None:
    shutil.copytree(logs, root / "inbox")


@pytest.fixture(scope="module")
def clean_night(tmp_path_factory: pytest.TempPathFactory, pool_room: Path):
    root = tmp_path_factory.mktemp("pool-clean")
    _inbox(root, pool_room)
    result = run_in_process(root, workers=1)
    assert result.exit_code is ExitCode.OK and result.counts.hands > BATCH_HANDS
    db = root / "store.duckdb"
    return snapshot(db, root), run_totals(db)


def _marked(mark: str) -> list[int]:
    """Live processes whose environment carries ``MARK_ENV=mark``."""
    needle = f"{MARK_ENV}={mark}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if needle in environ.split(b"\0") and state != "Z":
            found.append(int(entry.name))
    return found


def test_every_stage_is_tried():
    assert set(KILL_POINTS) == set(STAGES.values())
    assert all(STAGES[point.partition("#")[0]] == stage for stage, point in KILL_POINTS.items())
    assert set(STAGES) == set(CHECKPOINTS)


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")
@pytest.mark.parametrize("stage", sorted(KILL_POINTS))
def test_killed_with_a_pool_in_each_stage(tmp_path, pool_room, clean_night, stage):
    _inbox(tmp_path, pool_room)
    mark = str(tmp_path)
    log = tmp_path / "job.log"
    job = start_job(tmp_path, "--workers", "2", "--batch-size", "500",
                    env={KILL_ENV: KILL_POINTS[stage], MARK_ENV: mark}, log=log)
    try:
        job.wait(timeout=180)
        assert job.returncode == -signal.SIGKILL, f"not killed in {stage}: {log.read_text()}"
        deadline = time.monotonic() + 10
        while survivors := _marked(mark):
            assert time.monotonic() < deadline, f"processes outlived the killed job: {survivors}"
            time.sleep(0.05)
    finally:
        for pid in _marked(mark):
            os.kill(pid, signal.SIGKILL)
    again = run_in_process(tmp_path, workers=1)
    assert again.exit_code is ExitCode.OK, again.error
    expected, expected_totals = clean_night
    got = snapshot(tmp_path / "store.duckdb", tmp_path)
    for table in expected:
        assert got[table] == expected[table], f"{table} differs after a kill in {stage}"
    assert run_totals(tmp_path / "store.duckdb") == expected_totals
    assert mismatches(tmp_path / "store.duckdb") == []
