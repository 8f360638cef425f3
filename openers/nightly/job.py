"""The nightly job: ingest what is new, audit it, record the run, write the report.

Crash safety does not come from one big transaction (DuckDB has no nested
transactions, and ingest and the audit commit their own batches) but from every
step being safe to redo, with the bookkeeping moved forward only after the work
it describes is committed:

1. each inbox file is loaded (ingest commits per batch; a hand already stored
   comes back as a duplicate, a quarantine row already there is ignored), and
   only then is its new offset recorded in ``ops_inbox_files``;
2. the tables of every hand not yet audited are written to
   ``ops_pending_tables`` before the audit, and each is removed only after its
   deal sequence has been audited again;
3. hands are audited when the store holds no audit of them, whoever loaded them;
4. the run's figures are claimed from the store in the transaction that closes
   the run (``runs.claim_new``), so nothing is counted twice or lost.

Killed anywhere, the next run redoes the unfinished step and ends with the
store an uninterrupted run would have made.
"""

from __future__ import annotations

import errno
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from enum import IntEnum, StrEnum
from pathlib import Path

import duckdb
import pyarrow as pa

from audit.profiles import ProfileError, load_profile
from ingest.errors import ErrorKind
from ingest.load import BATCH_SIZE, IngestSummary, Progress, load_items
from ingest.reader import HandReader, ParsedHand, ReadItem
from openers.nightly.checkpoints import checkpoint
from openers.nightly.inbox import (
    FileAction,
    FilePlan,
    InboxError,
    list_inbox,
    plan_files,
    prefix_sha256,
    record_file,
)
from openers.nightly.joblog import JobLog
from openers.nightly.lock import JobLock, LockHeld
from openers.nightly.runs import (
    RunCounts,
    RunStatus,
    claim_new,
    finish_run,
    set_report_dir,
    start_run,
)
from openers.report import report_for_run
from schemas.findings import Severity
from schemas.store import connect, transaction


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
    #: A file unmodified this long is finished: its last hand is read without a blank line
    #: after it. Younger files are read up to their last hand followed by a blank line.
    settle_seconds: float = 300.0
    batch_size: int = BATCH_SIZE


@dataclass
class NightlyResult:
    """How the run ended."""

    exit_code: ExitCode
    status: RunStatus
    run_id: int | None = None
    counts: RunCounts = field(default_factory=RunCounts)
    error: str | None = None
    report_dir: Path | None = None


class JobFailed(RuntimeError):
    """The job cannot go on; the message is the reason given to the scheduler."""


class _TrackingReader(HandReader):
    """A reader that remembers the ids of the hands it yields (to count duplicates)."""

    def __init__(self, plan: FilePlan, seen: list[str]) -> None:
        super().__init__(plan.path, start_offset=plan.start, start_line=plan.start_line,
                         complete_only=plan.complete_only)
        self._seen = seen
        # A file still being written whose first hand is not finished yet holds no
        # complete hand: that is not the "empty file" problem ingest reports.
        self._wait_for_first_hand = plan.complete_only and plan.size > 0

    def __iter__(self) -> Iterator[ReadItem]:
        for item in super().__iter__():
            if isinstance(item, ParsedHand):
                self._seen.append(item.record.hand_id)
            elif item.kind is ErrorKind.EMPTY_FILE and self._wait_for_first_hand:
                continue
            yield item


def _reason(exc: BaseException) -> str:
    """A one-line reason for the scheduler, naming a full disk or a lock plainly."""
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return f"disk full: {exc}"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if "lock" in text.lower() and isinstance(exc, duckdb.Error):
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
        con = connect(options.db)
    except (duckdb.Error, OSError) as exc:
        reason = f"cannot open the store {options.db}: {_reason(exc)}"
        log.error(reason)
        return NightlyResult(ExitCode.FAILED, RunStatus.FAILED, error=reason)
    try:
        con.execute("SET TimeZone = 'UTC'")
        run_id = start_run(con, inbox=[str(p) for p in options.inboxes],
                           profile=options.profile, fail_on=options.fail_on.value)
        checkpoint("run-started")
        log.info("run started", run_id=run_id, db=str(options.db))
        result = NightlyResult(ExitCode.OK, RunStatus.RUNNING, run_id=run_id)
        try:
            _work(con, options, log, result)
        except (JobFailed, InboxError, ProfileError, duckdb.Error, OSError) as exc:
            result.error = _reason(exc)
            result.status, result.exit_code = RunStatus.FAILED, ExitCode.FAILED
            log.error(f"run failed: {result.error}", run_id=run_id)
            _close_failed(con, result, log)
        return result
    finally:
        con.close()


def _close_failed(con: duckdb.DuckDBPyConnection, result: NightlyResult, log: JobLog) -> None:
    """Record the failure in ``runs`` if the store still takes writes."""
    assert result.run_id is not None
    try:
        finish_run(con, result.run_id, result.counts, status=RunStatus.FAILED,
                   exit_code=ExitCode.FAILED, error=result.error)
    except duckdb.Error as exc:  # e.g. the disk is still full: the log has the reason
        log.warning(f"could not record the failure in runs: {_reason(exc)}")


def _work(con: duckdb.DuckDBPyConnection, options: NightlyOptions, log: JobLog,
          result: NightlyResult) -> None:
    assert result.run_id is not None
    profile = load_profile(options.profile)
    counts = result.counts
    plans = plan_files(con, list_inbox(options.inboxes), settle_seconds=options.settle_seconds)
    checkpoint("planned")
    counts.files_seen = len(plans)
    counts.files_new = sum(p.action in (FileAction.NEW, FileAction.CHANGED) for p in plans)
    counts.files_grown = sum(p.action is FileAction.GROWN for p in plans)
    counts.files_skipped = sum(not p.pending for p in plans)
    log.info("inbox planned", files=counts.files_seen, new=counts.files_new,
             grown=counts.files_grown, skipped=counts.files_skipped)
    read_ids: list[str] = []
    summary = _ingest(con, [p for p in plans if p.pending], options, log, result.run_id,
                      read_ids)
    tables = _queue_tables(con, result.run_id)
    checkpoint("tables-queued")
    counts.tables_resequenced = _audit(con, profile, log, tables)
    _finalize(con, result, summary, read_ids, options.fail_on)
    checkpoint("finalized")
    log.info("run finished", run_id=result.run_id, status=result.status.value,
             hands=counts.hands, duplicates=counts.duplicates, quarantined=counts.quarantined,
             **{s.value: n for s, n in counts.findings.items()})
    if options.reports is not None:
        result.report_dir = _write_run_report(con, options.reports, result.run_id, log)
        checkpoint("report-written")


def _ingest(con: duckdb.DuckDBPyConnection, plans: Sequence[FilePlan], options: NightlyOptions,
            log: JobLog, run_id: int, read_ids: list[str]) -> IngestSummary:
    """Load each pending file, then move its offset forward."""
    summary = IngestSummary()
    total = sum(p.size - p.start for p in plans)
    with log.stage("ingest", total) as advance:

        def on_batch(_: Progress) -> None:
            checkpoint("ingest-batch")

        for plan in plans:
            reader = _TrackingReader(plan, read_ids)
            load_items(con, [reader], summary=summary, progress=on_batch,
                       files_total=len(plans), batch_size=options.batch_size)
            checkpoint("file-loaded")
            # A .gz is re-read whole when it changes: remember the file as hashed.
            read_bytes = plan.size if plan.compressed else reader.resume_offset
            digest = plan.sha256 if plan.compressed else prefix_sha256(plan.path, read_bytes)
            record_file(con, plan.path, read_bytes=read_bytes, next_line=reader.resume_line,
                        sha256=digest, run_id=run_id)
            checkpoint("file-recorded")
            advance(plan.size - plan.start)
    return summary


def _queue_tables(con: duckdb.DuckDBPyConnection, run_id: int) -> list[str]:
    """Write down the tables with unaudited hands; return every table still pending."""
    con.execute(
        """
        INSERT OR IGNORE INTO ops_pending_tables (table_id, queued_by_run)
        SELECT DISTINCT h.table_id, ? FROM hands h
        WHERE NOT EXISTS (SELECT 1 FROM audit_hands a WHERE a.hand_id = h.hand_id)
        """,
        [run_id],
    )
    return [row[0] for row in
            con.execute("SELECT table_id FROM ops_pending_tables ORDER BY table_id").fetchall()]


def _finalize(con: duckdb.DuckDBPyConnection, result: NightlyResult, summary: IngestSummary,
              read_ids: list[str], fail_on: FailOn) -> None:
    """Claim the run's work and close its row, in one transaction."""
    assert result.run_id is not None
    counts = result.counts
    with transaction(con):
        counts.hands, counts.quarantined, counts.findings = claim_new(con, result.run_id)
        counts.duplicates = _duplicates(con, result.run_id, summary, read_ids)
        if fail_on.triggered(counts.findings):
            result.status, result.exit_code = RunStatus.FINDINGS, ExitCode.FINDINGS
        else:
            result.status, result.exit_code = RunStatus.OK, ExitCode.OK
        finish_run(con, result.run_id, counts, status=result.status,
                   exit_code=result.exit_code)


def _duplicates(con: duckdb.DuckDBPyConnection, run_id: int, summary: IngestSummary,
                read_ids: list[str]) -> int:
    """Hands read this run that were not new to the night.

    A hand stored by a killed run and read again now is reported by ingest as a
    duplicate; it is new work for this run (claimed by it), so it is not counted.
    """
    if not read_ids:
        return 0
    con.register("_nightly_read", pa.table({"hand_id": pa.array(read_ids, pa.string())}))
    try:
        row = con.execute(
            "SELECT count(DISTINCT r.hand_id) FROM _nightly_read r "
            "JOIN ops_run_hands c ON c.hand_id = r.hand_id WHERE c.run_id = ?",
            [run_id],
        ).fetchone()
    finally:
        con.unregister("_nightly_read")
    new_ids = int(row[0]) if row else 0
    return len(read_ids) - summary.conflicts - new_ids


def _write_run_report(con: duckdb.DuckDBPyConnection, reports: Path, run_id: int,
                      log: JobLog) -> Path:
    """Write the run's report folder (``<reports>/<day>-run-<id>``) and remember it."""
    row = con.execute("SELECT CAST(started_at AS DATE) FROM ops_runs WHERE run_id = ?",
                      [run_id]).fetchone()
    day = row[0].isoformat() if row else "run"
    folder = reports / f"{day}-run-{run_id:05d}"
    files = report_for_run(con, run_id, folder)
    set_report_dir(con, run_id, str(folder.resolve()))
    log.info("report written", report=str(files.html.resolve()))
    return folder
