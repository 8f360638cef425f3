"""The audit report: a self-contained HTML page, ``findings.csv`` and ``summary.json``.

``report_for_run`` covers what one nightly run added; ``report_since`` the hands
played since a date (``openers report``). Both write the same three files.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import duckdb

from openers.report.data import build_report, run_scope, since_scope
from openers.report.render import ReportFiles, write_report

__all__ = ["ReportFiles", "report_for_run", "report_since"]


def report_for_run(con: duckdb.DuckDBPyConnection, run_id: int, folder: Path) -> ReportFiles:
    """Write the report of nightly run ``run_id`` into ``folder``."""
    report = build_report(con, run_scope(run_id), title=f"Nightly audit report — run #{run_id}")
    return write_report(report, folder)


def report_since(con: duckdb.DuckDBPyConnection, since: date | None, folder: Path) -> ReportFiles:
    """Write the report of the hands played since ``since`` (all hands if None)."""
    title = f"Audit report — since {since.isoformat()}" if since else "Audit report — all hands"
    return write_report(build_report(con, since_scope(since), title=title), folder)
