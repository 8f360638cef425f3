"""Crash safety: a job killed with SIGKILL anywhere, then run again, leaves the store an
uninterrupted run would have made (no hand lost or doubled, no finding doubled).

Each case builds the same two nights in its own folder: night 1 runs normally; for
night 2 the files grow, a new table appears and a broken hand arrives; the night-2
job is a real process killed at a checkpoint (or after a delay), then the job runs
again. The result is compared, table by table, with a night 2 that was never killed.
"""

from __future__ import annotations

import random
import signal
import time
from pathlib import Path

import pytest

from openers.nightly.checkpoints import CHECKPOINTS, KILL_ENV
from openers.nightly.job import ExitCode, FailOn
from tests.nightly.handmaker import broken_hand_text, write_day
from tests.nightly.jobtools import (
    mismatches,
    rows,
    run_in_process,
    run_totals,
    snapshot,
    start_job,
)

#: Small ingest batches so that a file spans several batches (kill between two of them).
BATCH = "7"
KILL_POINTS = [
    "locked", "run-started", "planned", "ingest-batch#1", "ingest-batch#4", "file-loaded#2",
    "file-recorded#1", "hands-queued", "audit-batch#1", "hands-audited", "finalized",
    "report-written",
]
#: Seeds of the random kill delays (reproducible; the delay is in the failure's locals).
SEEDS = [1, 5, 6]  # about 0.4 s, 1.9 s and 2.4 s into the run
#: Each case runs two nights, a real job and a recovery (started first: see ``tests/conftest.py``).
pytestmark = pytest.mark.slow


def _night_one(root: Path) -> None:
    write_day(root / "inbox", ("T01", "T02", "T03"), range(25))
    assert run_in_process(root).exit_code is ExitCode.OK


def _night_two_files(root: Path) -> None:
    inbox = root / "inbox"
    write_day(inbox, ("T01", "T02"), range(25, 50), append=True)
    write_day(inbox, ("T04",), range(30))
    with (inbox / "t03.log").open("a", encoding="utf-8") as handle:
        handle.write(broken_hand_text("T03", 25) + "\n")


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    root = tmp_path_factory.mktemp("uninterrupted")
    _night_one(root)
    _night_two_files(root)
    assert run_in_process(root, reports=root / "reports").exit_code is ExitCode.OK
    db = root / "store.duckdb"
    return snapshot(db, root), run_totals(db)


def _recover_and_compare(root: Path, uninterrupted) -> None:
    expected, expected_totals = uninterrupted
    again = run_in_process(root, reports=root / "reports")
    assert again.exit_code is ExitCode.OK, again.error
    db = root / "store.duckdb"
    got = snapshot(db, root)
    for table in expected:
        assert got[table] == expected[table], f"{table} differs after the crash"
    assert run_totals(db) == expected_totals
    assert mismatches(db) == []  # the recovered store verifies against its seals
    # Every finished run has its report, even one killed before writing it.
    assert rows(db, "SELECT run_id FROM runs WHERE status IN ('ok', 'findings') "
                    "AND reports_to IS NOT NULL AND report_dir IS NULL") == []


def test_every_checkpoint_is_tried():
    assert {point.partition("#")[0] for point in KILL_POINTS} == set(CHECKPOINTS)


@pytest.mark.parametrize("point", KILL_POINTS)
def test_killed_at_a_checkpoint(tmp_path, uninterrupted, point):
    _night_one(tmp_path)
    _night_two_files(tmp_path)
    job = start_job(tmp_path, "--batch-size", BATCH, "--reports", str(tmp_path / "reports"),
                    env={KILL_ENV: point})
    _, err = job.communicate(timeout=120)
    assert job.returncode == -signal.SIGKILL, f"not killed at {point}: {err[-2000:]}"
    _recover_and_compare(tmp_path, uninterrupted)


@pytest.mark.parametrize("seed", SEEDS)
def test_killed_at_a_random_moment(tmp_path, uninterrupted, seed):
    _night_one(tmp_path)
    _night_two_files(tmp_path)
    job = start_job(tmp_path, "--batch-size", BATCH, "--reports", str(tmp_path / "reports"))
    assert job.stderr is not None
    # Wait until the job is at work (it has opened its run), then kill it a random
    # moment later: somewhere in planning, loading, auditing or closing the run.
    for line in job.stderr:
        if '"run started"' in line:
            break
    delay = random.Random(seed).uniform(0.0, 3.0)
    time.sleep(delay)
    job.send_signal(signal.SIGKILL)
    job.communicate(timeout=120)
    _recover_and_compare(tmp_path, uninterrupted)


def test_a_run_killed_before_its_report_gets_it_from_the_next_run(tmp_path):
    write_day(tmp_path / "inbox", ("T01",), range(8))  # hands 0 and 7 are over the cap
    job = start_job(tmp_path, "--reports", str(tmp_path / "reports"), "--fail-on", "major",
                    env={KILL_ENV: "finalized"})
    job.communicate(timeout=120)
    assert job.returncode == -signal.SIGKILL
    assert not (tmp_path / "reports").exists()
    again = run_in_process(tmp_path, reports=tmp_path / "reports", fail_on=FailOn.MAJOR)
    # Nothing new tonight, but the killed run's findings were never signalled: exit 1.
    assert again.counts.hands == 0 and again.exit_code is ExitCode.FINDINGS
    folders = sorted(p.name for p in (tmp_path / "reports").iterdir())
    assert [name[-5:] for name in folders] == ["00001", "00002"]
