"""``openers report``: the nightly report, on demand."""

from __future__ import annotations

import dataclasses
from datetime import date, datetime
from pathlib import Path
from typing import Annotated

import duckdb
import typer

from openers.report import office_for_run, report_for_run, report_since
from schemas.office import OfficeError, load_office
from schemas.store import DEFAULT_DB, connect


def report(
    db: Annotated[Path, typer.Option("--db", help="The store to report on.")] = Path(DEFAULT_DB),
    since: Annotated[
        datetime | None,
        typer.Option("--since", formats=["%Y-%m-%d"],
                     help="Only hands played on or after this local day (YYYY-MM-DD)."),
    ] = None,
    run: Annotated[
        int | None,
        typer.Option("--run", help="Report what this nightly run added (see the runs table)."),
    ] = None,
    out: Annotated[
        Path, typer.Option("--out", help="Folder to write report.html, findings.csv, summary.json.")
    ] = Path("openers-report"),
    house: Annotated[
        Path | None,
        typer.Option("--house", help="House file whose [report] table sets the currency and the"
                     " dashboards' address (default: the run's house file, or $OPENERS_HOUSE)."),
    ] = None,
    dashboard_url: Annotated[
        str | None,
        typer.Option("--dashboard-url", help="Where the report's hand links point, e.g."
                     " https://audit.example/ (default: the house file's, else localhost:8501)."),
    ] = None,
) -> None:
    """Write the audit report (HTML page, findings.csv, summary.json) for a period or a run."""
    if run is not None and since is not None:
        raise typer.BadParameter("give --since or --run, not both")
    if not db.exists():
        typer.echo(f"error: no store at {db}", err=True)
        raise typer.Exit(2)
    try:
        con = connect(db, read_only=True)
    except duckdb.Error as exc:
        typer.echo(f"error: cannot open {db}: {exc}", err=True)
        raise typer.Exit(2) from exc
    try:
        if run is not None and not con.execute(
            "SELECT 1 FROM runs WHERE run_id = ?", [run]
        ).fetchall():
            typer.echo(f"error: the store has no run {run}", err=True)
            raise typer.Exit(2)
        try:
            office = load_office(house) if house else office_for_run(con, run)
        except OfficeError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from exc
        if dashboard_url:
            office = dataclasses.replace(office, dashboard_url=dashboard_url)
        if run is not None:
            files = report_for_run(con, run, out, office)
        else:
            day: date | None = since.date() if since else None
            files = report_since(con, day, out, office)
    finally:
        con.close()
    typer.echo(f"report: {files.html.resolve()}")
    typer.echo(f"findings: {files.csv.resolve()}")
    typer.echo(f"summary: {files.summary.resolve()}")


def register(app: typer.Typer) -> None:
    """Add ``openers report`` to the application."""
    app.command("report")(report)
