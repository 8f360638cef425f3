"""``openers demo``: a real audit of a real-looking day, in one command.

It generates a day of a cardroom (several tables, a few thousand hands, a few
violations and damaged hands planted at a low rate) with the generator, runs the
nightly job on it into a demo store, and prints where the report and the store
are. The folder is the demo's own: running the demo again starts it afresh.
"""

from __future__ import annotations

import io
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from dashboards.cli import launch
from openers.generator import GenerateConfig, generate
from openers.nightly.job import ExitCode, FailOn, NightlyOptions, NightlyResult, run_nightly
from openers.nightly.joblog import JobLog, LogFormat
from schemas.findings import Severity

#: Marks a folder the demo made, so that it only ever clears its own folder.
MARKER = ".openers-demo"
DEMO_HANDS = 3000
DEMO_TABLES = 10
#: Share of deals with a planted violation, and of hands damaged so they are quarantined.
DEMO_VIOLATIONS = 0.01
DEMO_BROKEN = 0.002


class DemoError(RuntimeError):
    """The demo cannot run (its folder belongs to something else, or the job failed)."""


@dataclass(frozen=True)
class DemoResult:
    """Where the demo put things, and what the nightly job made of the day."""

    folder: Path
    inbox: Path
    db: Path
    report: Path
    planted: int
    job: NightlyResult


def _prepare(folder: Path) -> None:
    """Make ``folder`` an empty demo folder (refusing a non-empty folder it did not make)."""
    if folder.exists() and any(folder.iterdir()):
        if not (folder / MARKER).exists():
            raise DemoError(f"{folder} is not empty and was not made by `openers demo`; "
                            "choose another --dir")
        shutil.rmtree(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / MARKER).write_text("made by `openers demo`; the next demo run clears it\n")


def run_demo(folder: Path, *, hands: int = DEMO_HANDS, seed: int = 2026,
             log: JobLog | None = None) -> DemoResult:
    """Generate the day, run the nightly job on it, return where everything is."""
    _prepare(folder)
    day = folder / "day"
    summary = generate(
        GenerateConfig(hands=hands, tables=DEMO_TABLES, seed=seed, violations=DEMO_VIOLATIONS,
                       broken_share=DEMO_BROKEN, workers=2),
        day,
    )
    inbox = day / "logs"
    db = folder / "openers.duckdb"
    options = NightlyOptions(
        inboxes=(inbox,), db=db, reports=folder / "reports",
        fail_on=FailOn.NEVER,  # findings are the point of the demo, not a failure
        settle_seconds=0.0,    # the day is complete: read every file to its end
    )
    job = run_nightly(options, log or JobLog(LogFormat.JSON, io.StringIO()))
    if job.exit_code is ExitCode.FAILED or job.report_dir is None:
        raise DemoError(f"the nightly job failed: {job.error}")
    return DemoResult(folder=folder, inbox=inbox, db=db, report=job.report_dir / "report.html",
                      planted=sum(summary.planted.values()), job=job)


def demo(
    folder: Annotated[
        Path, typer.Option("--dir", help="Folder for the demo's logs, store and report "
                                         "(cleared and made again on every demo run).")
    ] = Path("openers-demo"),
    hands: Annotated[int, typer.Option("--hands", min=10, help="Hands in the day.")] = DEMO_HANDS,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the generated day.")] = 2026,
    open_dashboard: Annotated[
        bool | None,
        typer.Option(
            "--dashboard/--no-dashboard",
            help="Open the dashboards on the demo store when done (default: ask on a terminal, "
            "no otherwise).",
        ),
    ] = None,
) -> None:
    """Generate a realistic day of a cardroom, audit it with the nightly job, show the report."""
    typer.echo(f"Generating {hands} hands at {DEMO_TABLES} tables and auditing them...")
    try:
        result = run_demo(folder, hands=hands, seed=seed)
    except DemoError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    counts = result.job.counts
    findings = ", ".join(f"{counts.findings[s]} {s.value}" for s in Severity)
    typer.echo(f"Hands stored: {counts.hands} from {counts.files_new} files "
               f"({counts.quarantined} quarantined, {result.planted} violations planted)")
    typer.echo(f"Findings: {findings}")
    typer.echo(f"Hand logs: {result.inbox.resolve()}")
    typer.echo(f"Store:     {result.db.resolve()}")
    typer.echo(f"report: {result.report.resolve()}")
    typer.echo(f"Open the report in a browser, or the dashboards with:\n"
               f"  openers dashboard --db {result.db.resolve()}")
    if open_dashboard is None:
        # Only a person at a terminal can answer; cron, CI and pipes never block on a prompt.
        open_dashboard = sys.stdin.isatty() and sys.stdout.isatty() and typer.confirm(
            "Open the dashboards on the demo store now?", default=False)
    if open_dashboard:
        raise typer.Exit(launch(result.db))


def register(app: typer.Typer) -> None:
    """Add ``openers demo`` to the application."""
    app.command("demo")(demo)
