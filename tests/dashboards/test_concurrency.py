"""Reviews never wait for the job writing the store, and survive its re-audit."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from dashboards import reviews, state
from dashboards.connection import StoreUnavailable, remove_orphans, signature, take_snapshot
from tests.dashboards.conftest import ROOT, decide, open_page, openers, sql, write_house

# A writer like the nightly job: it opens the store for writing (taking DuckDB's
# file lock), says so, keeps the lock until told to finish, then writes a run row.
WRITER = """
import sys, time
from datetime import datetime, UTC
from pathlib import Path
from schemas.store import connect, transaction
con = connect(sys.argv[1])
Path(sys.argv[2]).write_text("locked")
while not Path(sys.argv[3]).exists():
    time.sleep(0.05)
with transaction(con):
    con.execute(
        "INSERT INTO ops_runs (kind, started_at, ended_at, status) VALUES ('nightly', ?, ?, 'ok')",
        [datetime.now(UTC), datetime.now(UTC)],
    )
con.close()
"""


@pytest.fixture
def own_store(store: Path, tmp_path: Path) -> Path:
    """A private copy of the generated store that this test may write."""
    copy = tmp_path / "openers.duckdb"
    shutil.copyfile(store, copy)
    return copy


def _wait_for(path: Path, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"writer did not start ({path})"
        time.sleep(0.05)


def test_review_saved_while_the_store_is_written(
    own_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    review_file = tmp_path / "openers.reviews.sqlite"
    monkeypatch.setenv("OPENERS_DB", str(own_store))
    monkeypatch.setenv("OPENERS_REVIEWS", str(review_file))
    monkeypatch.setenv("OPENERS_HOUSE", str(write_house(tmp_path)))
    runs_before = sql(own_store, "SELECT count(*) FROM runs")[0][0]
    at = open_page("findings")  # the dashboard has read the store once
    key = at.selectbox(key="f_case").value

    locked, release = tmp_path / "locked", tmp_path / "release"
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(own_store), str(locked), str(release)], cwd=ROOT
    )
    try:
        _wait_for(locked)
        with pytest.raises(duckdb.IOException):
            duckdb.connect(str(own_store), read_only=True)  # the lock is really held
        with pytest.raises(StoreUnavailable):
            take_snapshot(own_store, signature(own_store))
        # The dashboard still serves pages and saves a decision, without waiting.
        started = time.monotonic()
        decide(at, "queue", "confirmed", "saved during the nightly run")
        assert not at.exception
        assert time.monotonic() - started < 5
        assert any("open → confirmed by ana" in s.value for s in at.success)
        assert writer.poll() is None, "the writer must still hold the store"
    finally:
        release.touch()
        assert writer.wait(timeout=60) == 0
    # The writer was not blocked either: its run row is in the store.
    assert sql(own_store, "SELECT count(*) FROM runs")[0][0] == runs_before + 1

    # A re-audit replaces every finding row; the decision still attaches by key.
    done = openers("audit", "--db", str(own_store))
    assert done.returncode == 0, done.stdout + done.stderr
    # The first page after the change is served from the previous snapshot while
    # the new one is prepared in the background.
    at = open_page("findings")
    assert any("showing it as of" in i.value for i in at.info)
    state.wait_for_refresh()
    at = open_page("findings")
    assert not any("showing it as of" in i.value for i in at.info)
    at.multiselect(key="f_statuses").set_value(["confirmed"]).run()
    queue = at.dataframe[0].value
    assert queue["finding_key"].tolist() == [key]
    assert queue["reviewer"].tolist() == ["ana"]
    assert reviews.history(review_file, _key_of(str(key)))["note"].tolist() == [
        "saved during the nightly run"
    ]


def _key_of(text: str) -> reviews.FindingKey:
    hand_id, code, index, seat = text.split("|")
    return reviews.FindingKey(
        hand_id, code, None if index == "-" else int(index), None if seat == "-" else int(seat)
    )


def test_snapshot_does_not_hold_the_store(own_store: Path) -> None:
    snap = take_snapshot(own_store, signature(own_store))
    try:
        # With the dashboard's connection open, a writer can still open the store.
        writer = duckdb.connect(str(own_store))
        writer.execute("CREATE TABLE IF NOT EXISTS scratch_probe (x INTEGER)")
        writer.close()
        hands = snap.con.execute("SELECT count(*) FROM hands").fetchone()
        assert hands is not None and hands[0] > 0
        assert snap.path != own_store and snap.path.exists()
    finally:
        snap.close()
    assert not snap.path.exists()


def test_copies_of_dead_processes_are_removed(tmp_path: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    orphan = tmp_path / f"abc-{dead.stdout.strip()}-010203000000.duckdb"
    mine = tmp_path / f"abc-{os.getpid()}-010203000000.duckdb"
    for path in (orphan, Path(f"{orphan}.wal"), mine):
        path.write_bytes(b"x")
    remove_orphans(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [mine.name]
