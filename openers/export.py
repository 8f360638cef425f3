"""``openers export``: the store's public views as files other tools read, one folder a day.

Each public view (``hands``, ``actions``, ``findings``, ``quarantine``, ``runs``) is
written to ``DIR/VIEW/day=YYYY-MM-DD/`` as Parquet (or CSV with a header), the
Hive-style layout that DuckDB, polars, pandas and Spark read as one partitioned
table. A hand's day is its local day at the table (``mart_hands.day``), and its
actions and findings go with it; quarantined input is filed by the UTC day it was
ingested and a run by the UTC day it started. ``--since`` writes only the days from
that date on (replacing them, leaving older days as they are); without it each
view's folder is written anew. The store is opened read-only.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from audit.cli import choice

if TYPE_CHECKING:
    import duckdb


class ExportFormat(StrEnum):
    """File formats of ``openers export``."""

    PARQUET = "parquet"
    CSV = "csv"


#: view -> the query giving its rows with a ``day`` column (public views and marts only).
VIEWS: dict[str, str] = {
    "hands": "SELECT h.*, m.day FROM hands AS h JOIN mart_hands AS m USING (hand_id)",
    "actions": "SELECT a.*, m.day FROM actions AS a JOIN mart_hands AS m USING (hand_id)",
    "findings": "SELECT f.*, m.day FROM findings AS f LEFT JOIN mart_hands AS m USING (hand_id)",
    "quarantine": "SELECT q.*, CAST(timezone('UTC', q.ingested_at) AS DATE) AS day "
                  "FROM quarantine AS q",
    "runs": "SELECT r.*, CAST(timezone('UTC', r.started_at) AS DATE) AS day FROM runs AS r",
}


@dataclass(frozen=True)
class Exported:
    """What one view's export wrote."""

    view: str
    rows: int
    days: int


def export_views(con: duckdb.DuckDBPyConnection, to: Path, fmt: ExportFormat,
                 since: date | None = None) -> list[Exported]:
    """Write every public view under ``to``, partitioned by day."""
    out = []
    options = "FORMAT parquet" if fmt is ExportFormat.PARQUET else "FORMAT csv, HEADER true"
    for view, query in VIEWS.items():
        where = "" if since is None else " WHERE day >= ?"
        select = f"SELECT * FROM ({query}) AS v{where}"
        params = [] if since is None else [since]
        rows, days = con.execute(f"SELECT count(*), count(DISTINCT day) FROM ({select})",
                                 params).fetchone() or (0, 0)
        folder = to / view
        if since is None:
            shutil.rmtree(folder, ignore_errors=True)
        else:
            for old in folder.glob("day=*"):
                if old.name[4:] >= since.isoformat():
                    shutil.rmtree(old)
        if rows:
            folder.mkdir(parents=True, exist_ok=True)
            con.execute(f"COPY ({select}) TO '{_sql_string(folder)}' "
                        f"({options}, PARTITION_BY (day), OVERWRITE_OR_IGNORE true)", params)
        out.append(Exported(view, int(rows), int(days)))
    return out


def _sql_string(path: Path) -> str:
    """A path inside a SQL string literal (COPY's target cannot be a bound parameter)."""
    return str(path).replace("'", "''")


def export_command(
    to: Annotated[Path, typer.Option(
        "--to", metavar="DIR", help="Folder to write (one sub-folder per view and day).",
        show_default=False)],
    db: Annotated[Path | None, typer.Option(
        "--db", metavar="FILE", help="The DuckDB store (default: openers.duckdb).",
        show_default=False)] = None,
    fmt: Annotated[ExportFormat, typer.Option(
        "--format", metavar="FORMAT", parser=choice(ExportFormat, "an export format"),
        help="parquet (the default) or csv.")] = ExportFormat.PARQUET,
    since: Annotated[str | None, typer.Option(
        "--since", metavar="DATE", help="Only the days from DATE (YYYY-MM-DD) on, replacing "
        "them; older days already exported are kept.", show_default=False)] = None,
) -> None:
    """Write the public views (hands, actions, findings, quarantine, runs) for other tools.

    Files go to DIR/VIEW/day=YYYY-MM-DD/, Hive-style, which DuckDB, polars, pandas and
    Spark read as one table partitioned by day. A hand's day is its local day at the
    table; its actions and findings go with it.
    """
    from schemas.store import DEFAULT_DB, connect

    store = db or Path(DEFAULT_DB)
    day = None
    if since is not None:
        try:
            day = date.fromisoformat(since)
        except ValueError:
            typer.echo(f"error: --since {since!r} is not a date (expected YYYY-MM-DD)", err=True)
            raise typer.Exit(2) from None
    if not store.is_file():
        typer.echo(f"error: {store}: no such store (expected a DuckDB file made by "
                   "`openers ingest`)", err=True)
        raise typer.Exit(2)
    con = connect(store, read_only=True)
    try:
        written = export_views(con, to, fmt, day)
    finally:
        con.close()
    for e in written:
        typer.echo(f"{e.view}: {e.rows} row(s) in {e.days} day(s)")
    typer.echo(f"Wrote {fmt.value} files under {to}.")


def register(app: typer.Typer) -> None:
    """Add ``openers export`` to the app."""
    app.command("export")(export_command)
