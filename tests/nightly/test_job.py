"""The nightly job end to end: idempotent, incremental, exit codes, failures, lock."""

from __future__ import annotations

import json
import time
from pathlib import Path

import duckdb

from openers.nightly.checkpoints import PAUSE_ENV, PAUSE_FILE_ENV
from openers.nightly.job import ExitCode, FailOn
from openers.nightly.runs import RunStatus
from openers.nightly.storeopen import DEFAULT_WAIT
from schemas.findings import Severity
from tests.nightly.handmaker import broken_hand_text, hand_text, write_day, write_table_log
from tests.nightly.jobtools import run_in_process, run_totals, snapshot, start_job

TABLES = ("T01", "T02", "T03")


def _row(db, sql):
    con = duckdb.connect(str(db), read_only=True)
    try:
        row = con.execute(sql).fetchone()
    finally:
        con.close()
    assert row is not None
    return row


def _count(db, sql):
    return _row(db, sql)[0]


def test_second_run_on_the_same_inbox_changes_nothing(tmp_path):
    write_day(tmp_path / "inbox", TABLES, range(20))
    first = run_in_process(tmp_path)
    assert first.exit_code is ExitCode.OK and first.counts.hands == 60
    assert first.counts.findings[Severity.MAJOR] >= 1  # every 7th hand is over the cap
    before = snapshot(tmp_path / "store.duckdb", tmp_path)
    second = run_in_process(tmp_path)
    assert second.exit_code is ExitCode.OK
    assert (second.counts.files_skipped, second.counts.hands, second.counts.duplicates) == (3, 0, 0)
    assert sum(second.counts.findings.values()) == 0
    assert snapshot(tmp_path / "store.duckdb", tmp_path) == before


def test_grown_files_add_exactly_the_new_hands(tmp_path):
    inbox = tmp_path / "inbox"
    write_day(inbox, TABLES, range(20))
    run_in_process(tmp_path)
    write_day(inbox, ("T01", "T02"), range(20, 35), append=True)
    with (inbox / "t02.log").open("a", encoding="utf-8") as handle:
        handle.write(broken_hand_text("T02", 35) + "\n")
    grown = run_in_process(tmp_path)
    assert (grown.counts.files_grown, grown.counts.files_skipped) == (2, 1)
    assert (grown.counts.hands, grown.counts.duplicates, grown.counts.quarantined) == (30, 0, 1)
    db = tmp_path / "store.duckdb"
    assert _count(db, "SELECT count(*) FROM hands") == 90
    # Line numbers of appended hands are the file's own.
    lines = (inbox / "t01.log").read_text().splitlines()
    stored = _count(db, "SELECT first_line FROM hands WHERE hand_id = 'BCY-T01-000020'")
    assert lines[stored - 1] == "Hand: BCY-T01-000020"


def test_a_file_rewritten_is_read_again_without_doubling(tmp_path):
    inbox = tmp_path / "inbox"
    write_day(inbox, ("T01",), range(10))
    run_in_process(tmp_path)
    write_table_log(inbox / "t01.log", "T01", range(5, 15), every=7)  # rewritten: 5 old hands
    again = run_in_process(tmp_path)
    assert (again.counts.files_new, again.counts.hands, again.counts.duplicates) == (1, 5, 5)
    assert _count(tmp_path / "store.duckdb", "SELECT count(*) FROM hands") == 15


def test_exit_code_follows_fail_on(tmp_path):
    write_day(tmp_path / "inbox", ("T01",), range(8))  # hand 0 and 7: over the cap (major)
    result = run_in_process(tmp_path, fail_on=FailOn.MAJOR)
    assert (result.exit_code, result.status) == (ExitCode.FINDINGS, RunStatus.FINDINGS)
    write_day(tmp_path / "inbox", ("T02",), range(8))
    assert run_in_process(tmp_path, fail_on=FailOn.CRITICAL).exit_code is ExitCode.OK


def test_unreadable_inbox_fails_with_exit_2_and_is_recorded(tmp_path):
    result = run_in_process(tmp_path)  # tmp_path/inbox does not exist
    assert result.exit_code is ExitCode.FAILED and "does not exist" in (result.error or "")
    status, error, code = _row(tmp_path / "store.duckdb",
                               "SELECT status, error, exit_code FROM runs")
    assert (status, code) == ("failed", 2) and "does not exist" in error


def test_store_locked_by_another_process_fails_with_exit_2(tmp_path):
    write_day(tmp_path / "inbox", ("T01",), range(3))
    holder = duckdb.connect(str(tmp_path / "store.duckdb"))
    try:
        # DuckDB allows one writer process; a second process gets the lock error
        # (after waiting --store-wait seconds for it to go).
        job = start_job(tmp_path, "--store-wait", "1")
        _, err = job.communicate(timeout=60)
    finally:
        holder.close()
    assert job.returncode == 2
    assert "cannot open the store" in err and "lock" in err.lower()


def test_second_concurrent_job_exits_2_at_once_with_the_lock_message(tmp_path):
    write_day(tmp_path / "inbox", TABLES, range(10))
    flag = tmp_path / "paused"
    first = start_job(tmp_path, env={PAUSE_ENV: "locked", PAUSE_FILE_ENV: str(flag)})
    try:
        deadline = time.monotonic() + 30
        while not flag.exists():
            assert first.poll() is None, first.communicate()
            assert time.monotonic() < deadline, "the first job never took the lock"
            time.sleep(0.05)
        started = time.monotonic()
        second = start_job(tmp_path)
        _, err = second.communicate(timeout=280)
        assert second.returncode == 2
        # Refused at once, not after the store wait (DEFAULT_WAIT, 300 s): the bound only
        # has to separate the two, and a loaded 2-core machine takes seconds to start Python.
        assert time.monotonic() - started < DEFAULT_WAIT / 3
        assert "another nightly job is already running" in err
        flag.unlink()
        first.communicate(timeout=300)  # its whole night; only the second must be quick
        assert first.returncode == 0
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert run_totals(tmp_path / "store.duckdb")[0] == 30
    assert _count(tmp_path / "store.duckdb", "SELECT count(*) FROM runs") == 1


def test_json_log_lines_on_stderr_and_report_path_on_stdout(tmp_path):
    write_day(tmp_path / "inbox", ("T01",), range(3))
    job = start_job(tmp_path, "--reports", str(tmp_path / "reports"))
    out, err = job.communicate(timeout=60)
    assert job.returncode == 0, err
    events = [json.loads(line) for line in err.splitlines()]
    assert {"run started", "run finished"} <= {e["message"] for e in events}
    audited = next(e for e in events if e["message"] == "audit done")
    assert audited["hands"] == 3 and audited["errors"] == 0 and "unverifiable" in audited
    # Every stage's line gives its CPU seconds and the job's peak so far.
    for message in ("ingest: done", "audit: done", "integrity done"):
        stage = next(e for e in events if e["message"] == message)
        assert stage["cpu_seconds"] > 0 and stage["peak_mib"] > 0, stage
    report = out.strip().removeprefix("report: ")
    assert report.endswith("report.html") and (tmp_path / "reports").is_dir()
    assert Path(report).read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_disk_full_fails_with_exit_2_and_the_reason(tmp_path, monkeypatch):
    import errno

    import openers.nightly.job as job

    def full(*_args, **_kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(job, "report_for_run", full)
    write_day(tmp_path / "inbox", ("T01",), range(3))
    result = run_in_process(tmp_path, reports=tmp_path / "reports")
    assert result.exit_code is ExitCode.FAILED and (result.error or "").startswith("disk full")
    status, error = _row(tmp_path / "store.duckdb", "SELECT status, error FROM runs")
    assert status == "failed" and error.startswith("disk full")


def test_an_out_of_memory_error_is_not_called_a_lock():
    from openers.nightly.job import _reason

    memory = duckdb.OutOfMemoryException(
        "Out of Memory Error: could not allocate block of size 256.0 KiB (244.1 MiB/244.1 "
        "MiB used)")
    assert _reason(memory).startswith("Out of Memory Error: could not allocate block")
    locked = duckdb.IOException('IO Error: Could not set lock on file "store.duckdb": '
                                "Conflicting lock is held")
    assert _reason(locked).startswith("database locked by another process: ")


def test_a_hand_still_being_written_waits_for_the_next_run(tmp_path):
    inbox = tmp_path / "inbox"
    write_day(inbox, ("T01",), range(3))
    log = inbox / "t01.log"
    complete = log.read_text()
    # The table system is writing hand 3: no blank line after it yet.
    partial = hand_text("T01", 3)
    log.write_text(complete + partial[: len(partial) // 2])
    first = run_in_process(tmp_path, settle_seconds=300)
    assert (first.counts.hands, first.counts.quarantined) == (3, 0)
    log.write_text(complete + partial + "\n")
    second = run_in_process(tmp_path, settle_seconds=300)
    assert (second.counts.files_grown, second.counts.hands, second.counts.quarantined) == (1, 1, 0)
    # A file that only holds a hand in progress is not an empty file: nothing is quarantined.
    (inbox / "t02.log").write_text(hand_text("T02", 0)[:200])
    third = run_in_process(tmp_path, settle_seconds=300)
    assert (third.counts.hands, third.counts.quarantined) == (0, 0)


def test_bad_profile_and_internal_errors_exit_2_never_1(tmp_path, monkeypatch):
    import openers.nightly.stages as stages

    write_day(tmp_path / "inbox", ("T01",), range(3))
    bad = run_in_process(tmp_path, profile="no-such-house")
    assert bad.exit_code is ExitCode.FAILED and "no-such-house" in (bad.error or "")

    def broken(*_args, **_kwargs):
        raise KeyError("a bug")

    monkeypatch.setattr(stages, "audit_store", broken)
    crashed = run_in_process(tmp_path)
    assert crashed.exit_code is ExitCode.FAILED
    assert (crashed.error or "").startswith("internal error: KeyError")
    monkeypatch.undo()
    # The next run finishes the work the failed one left.
    fixed = run_in_process(tmp_path)
    assert fixed.exit_code is ExitCode.OK and fixed.counts.hands == 3


def test_a_deal_arriving_late_gets_its_successor_reaudited(tmp_path):
    from datetime import timedelta

    from tests.nightly.handmaker import START

    inbox = tmp_path / "inbox"
    write_day(inbox, ("T01",), range(10))
    run_in_process(tmp_path)
    # A deal played between hands 4 and 5 arrives in another file the next night.
    late = hand_text("T01", 900, when=START + timedelta(minutes=9))
    (inbox / "t01-late.log").write_text(late + "\n", encoding="utf-8")
    night = run_in_process(tmp_path)
    assert night.counts.hands == 1 and night.counts.tables_resequenced == 1
    db = tmp_path / "store.duckdb"
    con = duckdb.connect(str(db), read_only=True)
    try:
        audited = dict(con.execute("SELECT hand_id, audited_at FROM audit_hands").fetchall())
    finally:
        con.close()
    second_night = audited["BCY-T01-000900"]
    # The deal after the late one is audited again (its J rules compare it with the late
    # deal); the others keep their first audit.
    assert audited["BCY-T01-000005"] == second_night
    assert all(audited[f"BCY-T01-{n:06d}"] < second_night for n in (0, 4, 6, 9))


def test_a_finished_run_leaves_no_lock_file(tmp_path):
    write_day(tmp_path / "inbox", ("T01",), range(3))
    assert run_in_process(tmp_path).exit_code is ExitCode.OK
    assert not (tmp_path / "store.duckdb.lock").exists()


def test_duckdb_is_held_small_while_working_and_large_only_to_close(tmp_path, monkeypatch):
    """The cache of blocks ingest wrote and the audit read is bounded by the working limit;
    the closing transaction (run claim and seal, whose aggregates do not spill) gets the
    larger one, and the limit is the working one again for the report."""
    import openers.nightly.job as job
    from openers.nightly.storeopen import CLOSING_MEMORY_LIMIT, WORK_MEMORY_LIMIT

    def limit(con):
        return con.execute("SELECT current_setting('memory_limit')").fetchall()[0][0]

    seen: dict[str, str] = {}
    sealing, reporting = job.seal, job.report_for_run

    def seal(con, **kw):
        seen["seal"] = limit(con)
        return sealing(con, **kw)

    def report(con, run_id, folder):
        seen["report"] = limit(con)
        return reporting(con, run_id, folder)

    def audit(con, profile, log, workers):
        seen["audit"] = limit(con)
        return stage(con, profile, log, workers)

    stage = job.audit_stage
    monkeypatch.setattr(job, "seal", seal)
    monkeypatch.setattr(job, "report_for_run", report)
    monkeypatch.setattr(job, "audit_stage", audit)
    write_day(tmp_path / "inbox", TABLES, range(10))
    assert run_in_process(tmp_path, reports=tmp_path / "reports").exit_code is ExitCode.OK
    probe = duckdb.connect()
    for name, wanted in (("audit", WORK_MEMORY_LIMIT), ("seal", CLOSING_MEMORY_LIMIT),
                         ("report", WORK_MEMORY_LIMIT)):
        probe.execute(f"SET memory_limit = '{wanted}'")
        assert seen[name] == limit(probe), name
