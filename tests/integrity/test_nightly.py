"""The nightly job keeps an integrity run, with its alerts, after its audit."""

from __future__ import annotations

import io
from pathlib import Path

import duckdb
import pytest

from openers.nightly import stages
from openers.nightly.job import ExitCode, FailOn, NightlyOptions, run_nightly
from openers.nightly.joblog import JobLog, LogFormat
from tests.integrity.conftest import Room


def test_the_nightly_job_stores_the_integrity_run(cheat_room: Room, tmp_path: Path) -> None:
    store = tmp_path / "store.duckdb"
    stream = io.StringIO()
    result = run_nightly(NightlyOptions(inboxes=(cheat_room.folder / "logs",), db=store,
                                        reports=None, fail_on=FailOn.NEVER, settle_seconds=0),
                         JobLog(LogFormat.JSON, stream))
    assert result.exit_code is ExitCode.OK, stream.getvalue()
    assert '"integrity done"' in stream.getvalue()
    con = duckdb.connect(str(store), read_only=True)
    try:
        run = con.execute("SELECT nightly_run_id, hands, alerts FROM integrity_runs").fetchall()
        assert run == [(result.run_id, 4000, run[0][2])] and run[0][2] > 0
        kinds = {k for (k,) in con.execute("SELECT DISTINCT family FROM integrity_alerts_latest"
                                           ).fetchall()}
        assert kinds == {"dealing", "collusion"}
    finally:
        con.close()


def test_a_failed_analysis_is_logged_not_the_run(cheat_room: Room, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("the analysis broke")

    monkeypatch.setattr(stages, "analyse_store", broken)
    stream = io.StringIO()
    result = run_nightly(NightlyOptions(inboxes=(cheat_room.folder / "logs",),
                                        db=tmp_path / "store.duckdb", reports=None,
                                        fail_on=FailOn.NEVER, settle_seconds=0),
                         JobLog(LogFormat.JSON, stream))
    assert result.exit_code is ExitCode.OK
    assert "integrity analysis failed" in stream.getvalue()
    assert "the analysis broke" in stream.getvalue()


def test_a_test_failing_in_the_worker_is_logged_not_the_run(
        cheat_room: Room, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The worker's failure is the analysis's: logged with the worker's traceback, the
    night and its audit kept, no integrity run stored."""
    from audit.integrity import parallel
    from audit.integrity.checks.c202_soft_play import SoftPlay
    from audit.integrity.features import BatchView

    def broken(self: SoftPlay, view: BatchView) -> None:
        raise RuntimeError("soft play broke in the worker")

    monkeypatch.setattr(parallel, "default_workers", lambda: 2)  # a worker, whatever the host
    monkeypatch.setattr(SoftPlay, "feed", broken)
    store = tmp_path / "store.duckdb"
    stream = io.StringIO()
    result = run_nightly(NightlyOptions(inboxes=(cheat_room.folder / "logs",), db=store,
                                        reports=None, fail_on=FailOn.NEVER, settle_seconds=0),
                         JobLog(LogFormat.JSON, stream))
    assert result.exit_code is ExitCode.OK
    assert "integrity analysis failed" in stream.getvalue()
    assert "soft play broke in the worker" in stream.getvalue()
    con = duckdb.connect(str(store), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM integrity_runs").fetchall() == [(0,)]
        assert con.execute("SELECT count(*) FROM audit_hands").fetchall() == [(4000,)]
    finally:
        con.close()
