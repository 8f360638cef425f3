"""The nightly job: ingest what is new, audit it, record the run, write the report.

Crash safety does not come from one big transaction (DuckDB has no nested
transactions, and ingest and the audit commit their own batches) but from every
step being safe to redo, with the bookkeeping moved forward only after the work
it describes is committed:

1. each inbox file is loaded (ingest commits per batch; a hand already stored
   comes back as a duplicate, a quarantine row already there is ignored), and
   only then is its new offset recorded in ``ops_inbox_files``;
2. every hand the store holds no audit of (whoever loaded it), and the deal that
   follows it at its table (whose J findings compare it with that hand), are
   written to ``ops_pending_hands`` before anything is audited, and the queue is
   cleared only after the audit; auditing a hand again replaces its rows;
3. the run's figures are claimed from the store in the transaction that closes
   the run (``runs.claim_new``), so nothing is counted twice or lost; a run killed
   after that but before its report gets its report from the next run.

Killed anywhere, the next run redoes the unfinished step and ends with the
store an uninterrupted run would have made.
"""

from __future__ import annotations

import errno
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb
import pyarrow as pa

from audit.house import ProfileError
from ingest.conservation import record_run
from ingest.load import BATCH_SIZE, IngestSummary
from openers.nightly.checkpoints import checkpoint
from openers.nightly.inbox import (
    FileAction,
    FilePlan,
    InboxError,
    list_inbox,
    plan_files,
)
from openers.nightly.joblog import JobLog, Stopwatch
from openers.nightly.lock import JobLock, LockHeld
from openers.nightly.quality import (
    Expectations,
    Intake,
    QualityFinding,
    assess,
    load_expectations,
)
from openers.nightly.quality import record as record_quality
from openers.nightly.runs import (
    RunCounts,
    RunStatus,
    claim_new,
    finish_run,
    set_report_dir,
    start_run,
    undelivered_reports,
)
from openers.nightly.sealing import StoreTampered, check_head, check_queued, stored_mark
from openers.nightly.stages import audit_stage, ingest_stage, integrity_stage, queue_hands
from openers.nightly.startup import Preload
from openers.nightly.storeopen import (
    DEFAULT_WAIT,
    bound_memory,
    closing_memory,
    connect_waiting,
    names_a_lock,
)
from openers.verify import review_head
from schemas.findings import Severity
from schemas.seals import seal
from schemas.store import empty_table, transaction

if TYPE_CHECKING:
    from openers.report import ReportFiles


class ExitCode(IntEnum):
    """What the job tells its scheduler."""

    OK = 0
    FINDINGS = 1
    FAILED = 2


class FailOn(StrEnum):
    """The least severity of a new finding that makes the job exit 1."""

    CRITICAL = "critical"
    MAJOR = "major"
    MINOR = "minor"
    NEVER = "never"

    def triggered(self, findings: dict[Severity, int]) -> bool:
        """Whether these new findings reach the threshold."""
        if self is FailOn.NEVER:
            return False
        least = Severity(self.value).rank
        return any(count for severity, count in findings.items() if severity.rank >= least)


@dataclass(frozen=True)
class NightlyOptions:
    """Everything one run needs (the CLI's options)."""

    inboxes: tuple[Path, ...]
    db: Path
    reports: Path | None = None
    profile: str = "robert"
    fail_on: FailOn = FailOn.CRITICAL
    #: The least severity of a data-quality finding (missing data) that makes the job exit 1.
    fail_on_quality: FailOn = FailOn.MAJOR
    #: A file unmodified this long is finished: its last hand is read without a blank line
    #: after it. Younger files are read up to their last hand followed by a blank line.
    settle_seconds: float = 300.0
    batch_size: int = BATCH_SIZE
    #: Audit processes (None: every core the job may use).
    workers: int | None = None
    #: Seconds to wait for the store while another process (a dashboard taking its
    #: snapshot, ``openers verify``) holds it, before the run fails.
    store_wait: float = DEFAULT_WAIT


@dataclass
class NightlyResult:
    """How the run ended."""

    exit_code: ExitCode
    status: RunStatus
    run_id: int | None = None
    counts: RunCounts = field(default_factory=RunCounts)
    error: str | None = None
    report_dir: Path | None = None
    #: The run's seal (schemas/seals.py), once it closed.
    seal: str | None = None


def _reason(exc: BaseException) -> str:
    """A one-line reason for the scheduler, naming a full disk or a lock plainly."""
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return f"disk full: {exc}"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if isinstance(exc, duckdb.Error) and names_a_lock(text):
        return f"database locked by another process: {text}"
    if "no space" in text.lower():
        return f"disk full: {text}"
    return text


def run_nightly(options: NightlyOptions, log: JobLog) -> NightlyResult:
    """Run the job once; never raises for an expected failure (see :class:`ExitCode`)."""
    lock = JobLock(options.db)
    try:
        lock.acquire()
    except LockHeld as exc:
        log.error(str(exc), db=str(options.db))
        return NightlyResult(ExitCode.FAILED, RunStatus.FAILED, error=str(exc))
    try:
        checkpoint("locked")
        return _locked_run(options, log)
    finally:
        lock.release()


def _locked_run(options: NightlyOptions, log: JobLog) -> NightlyResult:
    try:
        con = connect_waiting(options.db, wait=options.store_wait, on_wait=lambda why: log.warning(
            f"the store is held by another process; waiting up to {options.store_wait:g} s",
            reason=why))
    except (duckdb.Error, OSError) as exc:
        reason = f"cannot open the store {options.db}: {_reason(exc)}"
        log.error(reason)
        return NightlyResult(ExitCode.FAILED, RunStatus.FAILED, error=reason)
    try:
        con.execute("SET TimeZone = 'UTC'")
        bound_memory(con, options.db)
        run_id = start_run(con, inbox=[str(p) for p in options.inboxes],
                           profile=options.profile, fail_on=options.fail_on.value,
                           reports_to=str(options.reports) if options.reports else None)
        checkpoint("run-started")
        log.info("run started", run_id=run_id, db=str(options.db))
        result = NightlyResult(ExitCode.OK, RunStatus.RUNNING, run_id=run_id)
        try:
            _work(con, options, log, result)
        except (InboxError, ProfileError, StoreTampered, duckdb.Error, OSError) as exc:
            _fail(con, result, _reason(exc), log)
        except Exception as exc:
            # A bug must still reach the scheduler as "the job failed" (2), never as
            # "findings" (1, Python's own exit code for an uncaught exception).
            log.error("unexpected error", traceback=traceback.format_exc())
            _fail(con, result, f"internal error: {type(exc).__name__}: {exc}", log)
        return result
    finally:
        con.close()


def _fail(con: duckdb.DuckDBPyConnection, result: NightlyResult, reason: str,
          log: JobLog) -> None:
    """End the run as failed (exit 2), and record why in ``runs`` if the store still can."""
    assert result.run_id is not None
    result.error = reason
    result.status, result.exit_code = RunStatus.FAILED, ExitCode.FAILED
    log.error(f"run failed: {reason}", run_id=result.run_id)
    try:
        finish_run(con, result.run_id, result.counts, status=RunStatus.FAILED,
                   exit_code=ExitCode.FAILED, error=result.error)
    except duckdb.Error as exc:  # e.g. the disk is still full: the log has the reason
        log.warning(f"could not record the failure in runs: {_reason(exc)}")


def _work(con: duckdb.DuckDBPyConnection, options: NightlyOptions, log: JobLog,
          result: NightlyResult) -> None:
    assert result.run_id is not None
    from audit.profiles import load_profile  # the rule catalogue: after "run started"

    # The compiled scanner loaded, then the later stages' engines imported, in a thread
    # of its own from here on: the ingest's reading thread would wait 0.4 s for the
    # scanner, and the imports cost no wall time while the ingest waits for its writes.
    engines = Preload()
    try:
        check_head(con)
        profile = load_profile(options.profile)
        expect = load_expectations(options.profile)
        counts = result.counts
        missed_findings = _deliver_missed_reports(con, log)
        watch = Stopwatch()
        plans = plan_files(con, list_inbox(options.inboxes), settle_seconds=options.settle_seconds)
        checkpoint("planned")
        counts.files_seen = len(plans)
        counts.files_new = sum(p.action in (FileAction.NEW, FileAction.CHANGED) for p in plans)
        counts.files_grown = sum(p.action is FileAction.GROWN for p in plans)
        counts.files_skipped = sum(not p.pending for p in plans)
        log.info("inbox planned", files=counts.files_seen, new=counts.files_new,
                 grown=counts.files_grown, skipped=counts.files_skipped,
                 seconds=watch.seconds(), **watch.figures())
        read = [p for p in plans if p.pending]
        before = stored_mark(con)  # the hands stored before this run: their texts are checked
        summary = ingest_stage(con, read, log, result.run_id, options.batch_size)
        queue_hands(con, result.run_id)
        checkpoint("hands-queued")
        check_queued(con, before)
    finally:
        engines.join()  # before the audit forks its workers
    counts.tables_resequenced = audit_stage(con, profile, log, options.workers)
    integrity_stage(con, profile, log, result.run_id, options.workers)
    quality = _finalize(con, result, summary, read, options, expect, missed_findings)
    checkpoint("finalized")
    for finding in quality:
        log.warning(f"data quality: {finding.message}", code=finding.code.value,
                    severity=finding.severity.value, table=finding.table_id)
    log.info("run finished", run_id=result.run_id, status=result.status.value,
             hands=counts.hands, duplicates=counts.duplicates, quarantined=counts.quarantined,
             data_quality=len(quality), seal=result.seal,
             **{s.value: n for s, n in counts.findings.items()})
    if options.reports is not None:
        result.report_dir = _write_run_report(con, options.reports, result.run_id, log)
        checkpoint("report-written")


def _finalize(con: duckdb.DuckDBPyConnection, result: NightlyResult, summary: IngestSummary,
              read: Sequence[FilePlan], options: NightlyOptions, expect: Expectations,
              missed_findings: bool) -> list[QualityFinding]:
    """Claim the run's work, judge its data and close its row, in one transaction.

    ``missed_findings``: a killed run closed with findings its scheduler never heard
    of; this run exits 1 for it.
    """
    assert result.run_id is not None
    counts = result.counts
    with closing_memory(con), transaction(con):
        counts.hands, counts.quarantined, counts.findings = claim_new(con, result.run_id)
        counts.duplicates = _duplicates(con, result.run_id, summary, read)
        intake = Intake(counts.files_seen, counts.files_skipped, counts.hands, counts.quarantined)
        quality = assess(con, result.run_id, intake, expect)
        counts.quality = record_quality(con, result.run_id, quality)
        empty_table(con, "ops_pending_hands")  # the queue is done
        result.seal = seal(con, kind="nightly", run_id=result.run_id,
                           review=review_head(options.db)).seal
        if (options.fail_on.triggered(counts.findings) or missed_findings
                or options.fail_on_quality.triggered(counts.quality)):
            result.status, result.exit_code = RunStatus.FINDINGS, ExitCode.FINDINGS
        else:
            result.status, result.exit_code = RunStatus.OK, ExitCode.OK
        finish_run(con, result.run_id, counts, status=result.status,
                   exit_code=result.exit_code)
        record_run(con, result.run_id, summary.conservation)  # hands met, where each went
    return quality


def _duplicates(con: duckdb.DuckDBPyConnection, run_id: int, summary: IngestSummary,
                read: Sequence[FilePlan]) -> int:
    """Hands read this run that the store held before the night's work began.

    Ingest calls a hand already stored a duplicate, including one stored by a
    killed run and read again now. That hand is new work for this run (the run
    claims it), so it is taken out: of the hands read (stored + duplicates), those
    claimed by this run and stored from the part of a file this run read were new.
    """
    if not read:
        return 0
    ranges = pa.table({
        "source_file": pa.array([str(p.path) for p in read], pa.string()),
        "start_line": pa.array([p.start_line for p in read], pa.int64()),
    })
    con.register("_nightly_read", ranges)
    try:
        rows = con.execute(
            "SELECT count(*) FROM ops_run_hands c "
            "JOIN raw_hands h ON h.hand_id = c.hand_id "
            "JOIN _nightly_read r ON r.source_file = h.source_file "
            "AND h.first_line >= r.start_line WHERE c.run_id = ?",
            [run_id],
        ).fetchall()
    finally:
        con.unregister("_nightly_read")
    return summary.stored + summary.duplicates - int(rows[0][0])


def _deliver_missed_reports(con: duckdb.DuckDBPyConnection, log: JobLog) -> bool:
    """Write the reports of runs killed after they closed; True if any had findings."""
    findings = False
    for run_id, folder, status in undelivered_reports(con):
        log.warning("writing the report of an interrupted run", run_id=run_id)
        _write_run_report(con, Path(folder), run_id, log)
        findings = findings or status is RunStatus.FINDINGS
    return findings


def report_for_run(con: duckdb.DuckDBPyConnection, run_id: int, folder: Path) -> ReportFiles:
    """:func:`openers.report.report_for_run`, imported when the report is written."""
    from openers.report import report_for_run as write

    return write(con, run_id, folder)


def _write_run_report(con: duckdb.DuckDBPyConnection, reports: Path, run_id: int,
                      log: JobLog) -> Path:
    """Write the run's report folder (``<reports>/<day>-run-<id>``) and remember it."""
    rows = con.execute("SELECT CAST(started_at AS DATE) FROM ops_runs WHERE run_id = ?",
                       [run_id]).fetchall()
    day = rows[0][0].isoformat() if rows else "run"
    folder = reports / f"{day}-run-{run_id:05d}"
    files = report_for_run(con, run_id, folder)
    set_report_dir(con, run_id, str(folder.resolve()))
    log.info("report written", report=str(files.html.resolve()))
    return folder
