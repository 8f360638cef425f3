"""Commands of the ingest area: ``openers ingest``, ``openers validate``, ``openers schema``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import duckdb
import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ingest.conservation import ConservationError
from ingest.load import IngestSummary, ingest_paths
from ingest.load import Progress as LoadProgress
from ingest.paths import expand_paths, missing_paths
from ingest.validate import validate_paths
from schemas.json_schema import hand_record_schema_json
from schemas.store import DEFAULT_DB

PathsArg = Annotated[
    list[str],
    typer.Argument(help="Hand log files, folders (read recursively) or glob patterns.",
                   show_default=False),
]


def _summary_table(summary: IngestSummary, db: str) -> Table:
    table = Table(title=f"Ingested into {db}", show_header=False)
    for label, value in (
        ("files", summary.files),
        ("hands read", summary.hands_read),
        ("hands stored", summary.stored),
        ("duplicates skipped", summary.duplicates),
        ("conflicts (quarantined)", summary.conflicts),
        ("unreadable (quarantined)", summary.quarantined),
        ("file problems (quarantined)", summary.file_problems),
        ("new quarantine rows", summary.quarantine_added),
    ):
        table.add_row(label, str(value))
    return table


def ingest_command(
    paths: PathsArg,
    db: Annotated[str, typer.Option("--db", help="The DuckDB store file.")] = DEFAULT_DB,
) -> None:
    """Read hand logs (text or JSONL, plain or .gz) into the store.

    Unreadable hands go to quarantine, duplicates are skipped and counted, and a hand
    whose id is already stored with another text is quarantined as a conflict.
    """
    console = Console()
    _require_paths(console, paths)
    try:
        summary = _ingest(console, paths, db)
    except ConservationError as exc:
        console.print(f"[red]ingest stopped: {escape(str(exc))}[/red] (the batches before "
                      "were stored; this is a bug, please report it)")
        raise typer.Exit(2) from None
    except (duckdb.Error, OSError) as exc:
        console.print(f"[red]cannot write the store {escape(db)}: {escape(str(exc))}[/red]")
        raise typer.Exit(2) from None
    console.print(_summary_table(summary, db))
    for item in summary.problems[:20]:
        console.print(f"[yellow]{escape(item.file)}:{item.line}[/yellow] "
                      f"{item.kind.value}: {escape(item.error)}")
    if summary.problems_total > 20:
        console.print(f"... and {summary.problems_total - 20} more: see the quarantine table")


def _require_paths(console: Console, paths: list[str]) -> None:
    """Exit 2, before anything is read or stored, when a path names nothing."""
    missing = missing_paths(paths)
    if missing:
        for path in missing:
            console.print(f"[red]error: no such file, folder or match: {escape(path)}[/red]")
        raise typer.Exit(2)
    if not expand_paths(paths):
        console.print("[red]error: no hand log files in the given paths[/red]")
        raise typer.Exit(2)


def _ingest(console: Console, paths: list[str], db: str) -> IngestSummary:
    if console.is_terminal:
        columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("{task.fields[hands]} hands"), TimeElapsedColumn())
        with Progress(*columns, console=console, transient=True) as bar:
            task = bar.add_task("ingesting", total=None, hands=0)

            def show(p: LoadProgress) -> None:
                bar.update(task, completed=p.files_done, total=p.files_total, hands=p.hands_read,
                           description=escape(Path(p.current_file).name))

            return ingest_paths(paths, db, progress=show)
    return ingest_paths(paths, db)


def validate_command(paths: PathsArg) -> None:
    """Read hand logs without storing them and print every problem; exit 1 if any."""
    console = Console(highlight=False)
    _require_paths(console, paths)
    report = validate_paths(expand_paths(paths))
    for item in report.problems:
        console.print(f"{escape(item.file)}:{item.line}: {item.kind.value}: {escape(item.error)}",
                      soft_wrap=True)
    console.print(f"{report.files} file(s), {report.hands} hand(s) read, "
                  f"{len(report.problems)} problem(s)")
    if report.problems:
        raise typer.Exit(1)


def schema_command(
    indent: Annotated[int, typer.Option(help="Indentation of the JSON output.")] = 2,
) -> None:
    """Print the JSON Schema of a hand record (one line of the JSONL form)."""
    typer.echo(hand_record_schema_json(indent=indent))


def register(app: typer.Typer) -> None:
    """Add the ingest commands to the ``openers`` app."""
    app.command("ingest")(ingest_command)
    app.command("validate")(validate_command)
    app.command("schema")(schema_command)
