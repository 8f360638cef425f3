"""Helpers for the nightly job tests: run it in or out of process, snapshot a store."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb

from openers.nightly.job import FailOn, NightlyOptions, NightlyResult, run_nightly
from openers.nightly.joblog import JobLog, LogFormat
from openers.verify import review_chain_for, verify_store

#: The store's content that a run must leave the same whether or not it was interrupted:
#: table -> columns left out (load times and run ids differ between runs by nature).
COMPARED: dict[str, tuple[str, ...]] = {
    "raw_hands": ("ingested_at",),
    "raw_files": ("ingested_at",),
    "stg_hands": (),
    "stg_seats": (),
    "stg_actions": (),
    "quarantine": ("ingested_at",),
    "audit_hands": ("audited_at",),
    "findings": (),
    "unverifiable": (),
    "ops_inbox_files": ("first_run_id", "last_run_id", "updated_at"),
    "ops_pending_hands": ("queued_by_run",),
}

CLI = [sys.executable, "-c", "from openers.cli import main; main()"]


def options(root: Path, **extra: Any) -> NightlyOptions:
    """The options of a run on ``root/inbox`` into ``root/store.duckdb``."""
    base: dict[str, Any] = {
        "inboxes": (root / "inbox",),
        "db": root / "store.duckdb",
        "reports": None,
        "fail_on": FailOn.NEVER,
        "fail_on_quality": FailOn.NEVER,
        "settle_seconds": 0.0,
    }
    base.update(extra)
    return NightlyOptions(**base)


def run_in_process(root: Path, **extra: Any) -> NightlyResult:
    """Run the job in this process, logging JSON lines to nowhere."""
    return run_nightly(options(root, **extra), JobLog(LogFormat.JSON, io.StringIO()))


def job_command(root: Path, *more: str) -> list[str]:
    """The command line of a run as a scheduler would start it."""
    return [*CLI, "nightly", str(root / "inbox"), "--db", str(root / "store.duckdb"),
            "--fail-on", "never", "--fail-on-quality", "never", "--settle", "0",
            "--log-format", "json", *more]


def start_job(root: Path, *more: str, env: dict[str, str] | None = None,
              log: Path | None = None) -> subprocess.Popen[str]:
    """Start the job as a real process (for kill and lock tests).

    Its output is piped, or written to ``log`` when given: a pipe reaches its end
    only when every process holding it has exited, which a test of processes that
    outlive the job cannot wait for.
    """
    out: Any = subprocess.PIPE if log is None else log.open("w", encoding="utf-8")
    try:
        return subprocess.Popen(job_command(root, *more), stdout=out, stderr=out, text=True,
                                env={**os.environ, **(env or {})})
    finally:
        if log is not None:
            out.close()


def snapshot(db: Path, root: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every compared table's rows, sorted, with ``root`` written as ``<ROOT>``."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        tables: dict[str, list[tuple[Any, ...]]] = {}
        for table, left_out in COMPARED.items():
            exclude = f" EXCLUDE ({', '.join(left_out)})" if left_out else ""
            rows = con.execute(f"SELECT *{exclude} FROM {table} ORDER BY ALL").fetchall()
            tables[table] = [tuple(_normal(v, root) for v in row) for row in rows]
        return tables
    finally:
        con.close()


def _normal(value: Any, root: Path) -> Any:
    if isinstance(value, str):
        return value.replace(str(root), "<ROOT>")
    if isinstance(value, list):
        return [_normal(v, root) for v in value]
    return value


def rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    """The rows of a query on the store, read-only."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def mismatches(db: Path) -> list[str]:
    """What ``openers verify`` finds wrong with the store (nothing, for any store a run made)."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        report = verify_store(con, workers=1, reviews=review_chain_for(db))
        return [str(m) for m in report.mismatches]
    finally:
        con.close()


def run_totals(db: Path) -> tuple[Any, ...]:
    """What the finished runs claimed, summed: the same however the work was split."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        row = con.execute(
            "SELECT sum(hands), sum(duplicates), sum(quarantined), sum(findings_critical), "
            "sum(findings_major), sum(findings_minor) FROM runs "
            "WHERE status IN ('ok', 'findings')"
        ).fetchone()
        assert row is not None
        return tuple(int(v or 0) for v in row)
    finally:
        con.close()
