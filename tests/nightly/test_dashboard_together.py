"""The dashboard never blocks the job: a job that starts while a dashboard copies the
store (holding it for that moment) waits for the copy, then runs.

The dashboard side is the real one (``dashboards.connection.take_snapshot``), run
in its own process as the Streamlit server does.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from openers.nightly.job import ExitCode
from tests.nightly.handmaker import write_day
from tests.nightly.jobtools import rows, run_in_process, start_job

#: A dashboard whose copy of the store is slow (a big store): it says when it holds the
#: store, and copies only once the file ``sys.argv[3]`` exists.
SLOW_SNAPSHOT = """
import shutil, sys, time
from pathlib import Path
from dashboards import connection
store, flag, release = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
copy = shutil.copyfile
def slow_copy(source, target):
    flag.write_text("holding")
    while not release.exists():
        time.sleep(0.02)
    return copy(source, target)
connection.shutil.copyfile = slow_copy
snapshot = connection.take_snapshot(store, connection.signature(store))
snapshot.close()
"""

#: A dashboard left open: a new snapshot whenever the store changed, until told to stop.
DASHBOARD_LOOP = """
import sys, time
from pathlib import Path
from dashboards import connection
store, stop = Path(sys.argv[1]), Path(sys.argv[2])
taken, seen = 0, None
while not stop.exists():
    try:
        sig = connection.signature(store)
        if sig != seen:
            connection.take_snapshot(store, sig).close()
            seen, taken = sig, taken + 1
    except connection.StoreUnavailable:
        pass  # the job is writing: the dashboard keeps its previous snapshot
    time.sleep(0.05)
print(taken, flush=True)
"""


def _wait_for(path: Path, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.02)


def _runs(db: Path) -> list[tuple[str, int]]:
    return [(str(s), int(c)) for s, c in rows(db, "SELECT status, hands FROM runs ORDER BY run_id")]


def test_a_job_started_during_a_dashboard_snapshot_waits_for_it(tmp_path):
    write_day(tmp_path / "inbox", ("T01",), range(4))
    assert run_in_process(tmp_path).exit_code is ExitCode.OK
    write_day(tmp_path / "inbox", ("T02",), range(4))
    db, flag, release = tmp_path / "store.duckdb", tmp_path / "holding", tmp_path / "release"
    log = tmp_path / "job.log"
    dashboard = subprocess.Popen(
        [sys.executable, "-c", SLOW_SNAPSHOT, str(db), str(flag), str(release)])
    try:
        _wait_for(flag)
        job = start_job(tmp_path, "--store-wait", "60", log=log)
        # The dashboard holds the store until the job has met it (or given up).
        deadline = time.monotonic() + 60
        while job.poll() is None and "waiting up to" not in log.read_text():
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.02)
        release.touch()
        job.wait(timeout=120)
    finally:
        release.touch()
        assert dashboard.wait(timeout=60) == 0
    err = log.read_text()
    assert job.returncode == 0, err
    waited = [json.loads(line) for line in err.splitlines() if "waiting up to" in line]
    assert "lock" in waited[0]["reason"].lower()
    assert _runs(db) == [("ok", 4), ("ok", 4)]


def test_two_nights_while_a_dashboard_keeps_refreshing(tmp_path):
    db, stop = tmp_path / "store.duckdb", tmp_path / "stop"
    write_day(tmp_path / "inbox", ("T01", "T02"), range(10))
    assert run_in_process(tmp_path).exit_code is ExitCode.OK
    dashboard = subprocess.Popen([sys.executable, "-c", DASHBOARD_LOOP, str(db), str(stop)],
                                 stdout=subprocess.PIPE, text=True)
    try:
        for night in range(1, 3):
            write_day(tmp_path / "inbox", ("T01", "T02"), range(10 * night, 10 * night + 10),
                      append=True)
            job = start_job(tmp_path, "--store-wait", "60")
            _, err = job.communicate(timeout=120)
            assert job.returncode == 0, err
    finally:
        stop.touch()
        out, _ = dashboard.communicate(timeout=60)
    assert dashboard.returncode == 0
    assert int(out) >= 1  # the dashboard did read the store meanwhile
    assert _runs(db) == [("ok", 20)] * 3
