"""The ``runs`` table: open a run, attribute what is new to it, close it.

What a run "added" is decided at its end, from the store itself: every hand,
finding and quarantine row that no finished run has claimed yet is claimed by
this one, in the same transaction that closes the run. So a run killed half way
claims nothing, and the next run that finishes claims its work as well as its
own — each hand and each finding is counted by exactly one run.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum

import duckdb

from schemas.findings import Severity
from schemas.seals import QUARANTINE_KEY_SQL


class RunStatus(StrEnum):
    """How a run ended (``running`` while it works)."""

    RUNNING = "running"
    OK = "ok"
    FINDINGS = "findings"
    FAILED = "failed"
    INTERRUPTED = "interrupted"


@dataclass
class RunCounts:
    """What a run did, as the ``runs`` row records it."""

    files_seen: int = 0
    files_new: int = 0
    files_grown: int = 0
    files_skipped: int = 0
    hands: int = 0
    duplicates: int = 0
    quarantined: int = 0
    tables_resequenced: int = 0
    findings: dict[Severity, int] = field(
        default_factory=lambda: {severity: 0 for severity in Severity}
    )
    #: Data-quality findings of the run (``ops_data_quality``), by severity.
    quality: dict[Severity, int] = field(
        default_factory=lambda: {severity: 0 for severity in Severity}
    )


def start_run(
    con: duckdb.DuckDBPyConnection,
    *,
    inbox: Sequence[str],
    profile: str,
    fail_on: str,
    reports_to: str | None,
    kind: str = "nightly",
) -> int:
    """Open a ``running`` row and return its id.

    The caller holds the job lock, so any other ``running`` row belongs to a job
    that died (killed, power cut): it is marked ``interrupted``.
    """
    con.execute(
        "UPDATE ops_runs SET status = ?, error = coalesce(error, ?) WHERE status = ?",
        [RunStatus.INTERRUPTED.value, "the job stopped before it finished",
         RunStatus.RUNNING.value],
    )
    rows = con.execute(
        """
        INSERT INTO ops_runs
            (kind, started_at, inbox, profile, fail_on, reports_to, status, pid, host)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        RETURNING run_id
        """,
        [kind, datetime.now(UTC), json.dumps(list(inbox)), profile, fail_on, reports_to,
         RunStatus.RUNNING.value, os.getpid(), socket.gethostname()],
    ).fetchall()
    return int(rows[0][0])


def claim_new(con: duckdb.DuckDBPyConnection, run_id: int) -> tuple[int, int, dict[Severity, int]]:
    """Claim for ``run_id`` every hand, quarantine row and finding no run has claimed.

    Returns (hands, quarantined, findings by severity). Call inside the closing
    transaction.
    """
    hands = _count(con.execute(
        """
        INSERT INTO ops_run_hands (hand_id, run_id)
        SELECT DISTINCT h.hand_id, ? FROM hands h
        WHERE NOT EXISTS (SELECT 1 FROM ops_run_hands r WHERE r.hand_id = h.hand_id)
        """,
        [run_id],
    ))
    quarantined = _count(con.execute(
        f"""
        INSERT INTO ops_run_quarantine (quarantine_key, run_id)
        SELECT DISTINCT {QUARANTINE_KEY_SQL}, ? FROM quarantine q
        WHERE NOT EXISTS (
            SELECT 1 FROM ops_run_quarantine r WHERE r.quarantine_key = {QUARANTINE_KEY_SQL})
        """,
        [run_id],
    ))
    con.execute(
        """
        INSERT INTO ops_run_findings (finding_key, run_id)
        SELECT DISTINCT f.finding_key, ? FROM findings f
        WHERE NOT EXISTS (
            SELECT 1 FROM ops_run_findings r WHERE r.finding_key = f.finding_key)
        """,
        [run_id],
    )
    by_severity = {severity: 0 for severity in Severity}
    for severity, count in con.execute(
        """
        SELECT f.severity, count(DISTINCT f.finding_key) FROM findings f
        JOIN ops_run_findings r USING (finding_key)
        WHERE r.run_id = ? GROUP BY f.severity
        """,
        [run_id],
    ).fetchall():
        by_severity[Severity(severity)] = int(count)
    return hands, quarantined, by_severity


def _count(cursor: duckdb.DuckDBPyConnection) -> int:
    """The row count an INSERT reports (fetched to the end, as DuckDB requires)."""
    rows = cursor.fetchall()
    return int(rows[0][0]) if rows else 0


def finish_run(
    con: duckdb.DuckDBPyConnection,
    run_id: int,
    counts: RunCounts,
    *,
    status: RunStatus,
    exit_code: int,
    error: str | None = None,
) -> None:
    """Write the run's figures and how it ended."""
    con.execute(
        """
        UPDATE ops_runs SET
            ended_at = ?, files_seen = ?, files_new = ?, files_grown = ?, files_skipped = ?,
            hands = ?, duplicates = ?, quarantined = ?,
            findings_critical = ?, findings_major = ?, findings_minor = ?,
            tables_resequenced = ?, status = ?, exit_code = ?, error = ?
        WHERE run_id = ?
        """,
        [
            datetime.now(UTC), counts.files_seen, counts.files_new, counts.files_grown,
            counts.files_skipped, counts.hands, counts.duplicates, counts.quarantined,
            counts.findings[Severity.CRITICAL], counts.findings[Severity.MAJOR],
            counts.findings[Severity.MINOR], counts.tables_resequenced, status.value,
            exit_code, error, run_id,
        ],
    )


def undelivered_reports(con: duckdb.DuckDBPyConnection) -> list[tuple[int, str, RunStatus]]:
    """Finished runs whose report was asked for but never written (the job was killed
    between closing the run and writing it): (run id, reports folder, status)."""
    rows = con.execute(
        "SELECT run_id, reports_to, status FROM ops_runs WHERE status IN (?, ?) "
        "AND reports_to IS NOT NULL AND report_dir IS NULL ORDER BY run_id",
        [RunStatus.OK.value, RunStatus.FINDINGS.value],
    ).fetchall()
    return [(int(run_id), str(folder), RunStatus(status)) for run_id, folder, status in rows]


def set_report_dir(con: duckdb.DuckDBPyConnection, run_id: int, folder: str) -> None:
    """Remember where the run's report was written."""
    con.execute("UPDATE ops_runs SET report_dir = ? WHERE run_id = ?", [folder, run_id])
