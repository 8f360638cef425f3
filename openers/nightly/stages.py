"""The nightly job's stages between planning the inbox and closing the run: ingest the
pending files, queue the hands to audit, audit them, run the integrity analysis.

Each is safe to redo (``openers.nightly.job`` says why the whole run is); each logs its
wall and CPU seconds (``JobLog.stage``), so the job's log names what limits a night.
Each stage imports its engine when it starts (the audit's and the integrity analysis's
take a second or more to import), so the job logs its start at once and a run that fails
early does not pay for them.
"""

from __future__ import annotations

import traceback
from collections.abc import Sequence
from typing import TYPE_CHECKING

import duckdb

from ingest.load import BATCH_SIZE, IngestSummary, Progress, load_items
from ingest.reader import HandReader
from openers.nightly.checkpoints import checkpoint
from openers.nightly.inbox import FilePlan, FileRecord, prefix_sha256, record_files
from openers.nightly.joblog import JobLog, Stopwatch
from schemas.store import transaction

if TYPE_CHECKING:
    from collections.abc import Callable

    import pyarrow as pa

    from audit.integrity.engine import IntegrityResult
    from audit.profiles import Profile
    from audit.store import StoreSummary

__all__ = ["audit_stage", "ingest_stage", "integrity_stage", "queue_hands"]


def audit_store(con: duckdb.DuckDBPyConnection, profile: Profile, hand_ids: pa.ChunkedArray,
                *, workers: int | None, progress: Callable[[int], None]) -> StoreSummary:
    """:func:`audit.store.audit_store`, imported when the audit starts (before its workers
    are forked, so they start with it)."""
    from audit.store import audit_store as audit

    return audit(con, profile, hand_ids, workers=workers, progress=progress)


def analyse_store(con: duckdb.DuckDBPyConnection, profile: Profile,
                  nightly_run_id: int, workers: int | None = None) -> IntegrityResult:
    """:func:`audit.integrity.store.analyse_store`, imported when the analysis starts."""
    from audit.integrity.store import analyse_store as analyse

    return analyse(con, profile, nightly_run_id=nightly_run_id, workers=workers)


def ingest_stage(con: duckdb.DuckDBPyConnection, plans: Sequence[FilePlan], log: JobLog,
                 run_id: int, batch_size: int = BATCH_SIZE) -> IngestSummary:
    """Load each pending file, then move its offset forward."""
    summary = IngestSummary(keep_ids=False)  # a million ids would be a hundred megabytes
    total = sum(p.size - p.start for p in plans)
    with log.stage("ingest", total) as advance:

        def on_batch(_: Progress) -> None:
            checkpoint("ingest-batch")

        readers = {HandReader(p.path, start_offset=p.start, start_line=p.start_line,
                              complete_only=p.complete_only): p for p in plans}

        def loaded(done: list[HandReader]) -> None:  # every hand of these is committed
            with transaction(con):
                records = []
                for reader in done:
                    plan = readers[reader]
                    checkpoint("file-loaded")
                    # A .gz is re-read whole when it changes: remember the file as hashed.
                    read_bytes = plan.size if plan.compressed else reader.resume_offset
                    whole = plan.compressed or read_bytes == plan.size
                    digest = plan.sha256 if whole else prefix_sha256(plan.path, read_bytes)
                    records.append(FileRecord(plan.path, read_bytes, reader.resume_line, digest))
                record_files(con, records, run_id=run_id)  # one statement for the files
                for reader in done:
                    checkpoint("file-recorded")
                    advance(readers[reader].size - readers[reader].start)

        # One load for all files: its transactions span files (a file's offset is
        # recorded once every hand of it is committed).
        load_items(con, list(readers), summary=summary, progress=on_batch,
                   files_total=len(plans), batch_size=batch_size, on_files=loaded)
    return summary


#: The hands to audit: those not audited yet and the deal right after each of them at its
#: table (its J findings compare it with the deal before it, which may be new). Ordered as
#: the audit orders a table's deals: by time, then hand id. Only a table's deals from its
#: first unaudited one are ordered (every deal before it is audited, so it neither is
#: queued nor makes the next one queued): a night sorts its own deals, not the tables'
#: history.
_QUEUE_SQL = """
INSERT OR IGNORE INTO ops_pending_hands (hand_id, table_id, queued_by_run)
WITH changed AS (
    SELECT h.table_id, min(h.time) AS since FROM hands h
    WHERE NOT EXISTS (SELECT 1 FROM audit_hands a WHERE a.hand_id = h.hand_id)
    GROUP BY h.table_id
), deals AS (
    SELECT h.hand_id, h.table_id, a.hand_id IS NULL AS unaudited,
           lag(a.hand_id IS NULL) OVER (
               PARTITION BY h.table_id ORDER BY h.time, h.hand_id) AS after_unaudited
    FROM hands h
    JOIN changed c ON c.table_id = h.table_id AND h.time >= c.since
    LEFT JOIN audit_hands a ON a.hand_id = h.hand_id
)
SELECT hand_id, table_id, ? FROM deals WHERE unaudited OR coalesce(after_unaudited, false)
"""


def queue_hands(con: duckdb.DuckDBPyConnection, run_id: int) -> None:
    """Write down, before auditing anything, every hand this audit must (re)check."""
    con.execute(_QUEUE_SQL, [run_id])


def audit_stage(con: duckdb.DuckDBPyConnection, profile: Profile, log: JobLog,
           workers: int | None) -> int:
    """Audit the queued hands; returns how many tables they are at.

    ``audit_store`` replaces a hand's audit rows, so hands audited by a killed run and
    audited again now are not doubled. The queue is cleared when the run closes and
    seals the new audit layer (``openers.nightly.job``): until then the queue names the tables
    whose audit rows may differ from the last seal.
    """
    # An Arrow column, not Python strings: a night of a million hands stays small. (Read
    # through a cursor: DuckDB refuses a relation on a connection whose last execute()
    # result is unread.)
    reader = con.cursor()
    try:
        hand_ids = reader.sql("SELECT hand_id FROM ops_pending_hands ORDER BY table_id, "
                              "hand_id").to_arrow_table().column("hand_id")
    finally:
        reader.close()
    tables = int(con.execute(
        "SELECT count(DISTINCT table_id) FROM ops_pending_hands").fetchall()[0][0])
    if not len(hand_ids):
        return 0
    with log.stage("audit", len(hand_ids)) as advance:

        def on_part(hands: int) -> None:
            advance(hands)
            checkpoint("audit-batch")

        summary = audit_store(con, profile, hand_ids, workers=workers, progress=on_part)
    checkpoint("hands-audited")
    log.info("audit done", hands=summary.hands, tables=tables, findings=summary.findings,
             unverifiable=summary.unverifiable, errors=summary.errors)
    return tables


def integrity_stage(con: duckdb.DuckDBPyConnection, profile: Profile, log: JobLog,
                    run_id: int, workers: int | None = None) -> None:
    """Integrity analytics over the store (docs/integrity.md), kept with its alerts. A failure
    (its worker's too) is logged, not the run's: the audit's findings stand without it.

    ``workers`` is the job's ``--workers``: with two or more (None: by the cores) a share
    of the tests runs in a second process (``audit/integrity/parallel.py``), with one the
    analysis stays in the job's process."""
    watch = Stopwatch()
    try:
        found = analyse_store(con, profile, nightly_run_id=run_id,
                              workers=None if workers is None else int(workers >= 2))
    except Exception:
        log.error("integrity analysis failed", traceback=traceback.format_exc())
        return
    log.info("integrity done", hands=found.hands, cells=len(found.tested),
             alerts=len(found.alerts), seconds=round(found.seconds, 1), **watch.figures())
