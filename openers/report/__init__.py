"""The audit report: a self-contained HTML page, ``findings.csv`` and ``summary.json``.

``report_for_run`` covers what one nightly run added; ``report_since`` the hands
played since a date (``openers report``). Both write the same three files. The
house's office settings (currency, the dashboards' address for the hand links)
come from the house file the run was judged under, or ``$OPENERS_HOUSE``.
"""

from __future__ import annotations

import os
from datetime import date
from pathlib import Path

import duckdb

from openers.report.data import build_report, run_scope, since_scope
from openers.report.render import ReportFiles, write_report
from schemas.office import Office, load_office

__all__ = ["ReportFiles", "office_for_run", "report_for_run", "report_since"]


def office_for_run(con: duckdb.DuckDBPyConnection, run_id: int | None) -> Office:
    """``$OPENERS_HOUSE``'s settings, else those of the house file the run was judged under."""
    env = os.environ.get("OPENERS_HOUSE")
    if env:
        return load_office(env)
    if run_id is not None:
        row = con.execute("SELECT profile FROM runs WHERE run_id = ?", [run_id]).fetchone()
        if row and row[0] and Path(row[0]).is_file():
            return load_office(row[0])
    return Office()


def report_for_run(
    con: duckdb.DuckDBPyConnection, run_id: int, folder: Path, office: Office | None = None
) -> ReportFiles:
    """Write the report of nightly run ``run_id`` into ``folder``."""
    report = build_report(con, run_scope(run_id), title="Nightly audit report",
                          office=office or office_for_run(con, run_id))  # fmt: skip
    return write_report(report, folder)


def report_since(
    con: duckdb.DuckDBPyConnection, since: date | None, folder: Path, office: Office | None = None
) -> ReportFiles:
    """Write the report of the hands played since ``since`` (all hands if None)."""
    title = f"Audit report — since {since.isoformat()}" if since else "Audit report — all hands"
    report = build_report(con, since_scope(since), title=title,
                          office=office or office_for_run(con, None))  # fmt: skip
    return write_report(report, folder)
