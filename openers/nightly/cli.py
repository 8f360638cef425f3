"""``openers nightly``: the unattended job for cron or a systemd timer."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ingest.paths import missing_paths
from ingest.sizes import BATCH_SIZE, WRITE_SIZE
from openers.nightly.job import FailOn, NightlyOptions, run_nightly
from openers.nightly.joblog import JobLog, LogFormat
from openers.nightly.startup import arrow_without_pandas
from openers.nightly.storeopen import DEFAULT_WAIT
from schemas.store import DEFAULT_DB


def nightly(
    inbox: Annotated[
        list[Path],
        typer.Argument(help="Inbox folders (searched recursively) or files of hand logs."),
    ],
    db: Annotated[Path, typer.Option("--db", help="The store (created if missing).")] = Path(
        DEFAULT_DB
    ),
    reports: Annotated[
        Path | None,
        typer.Option("--reports", help="Folder for the run reports, one sub-folder per run "
                                       "(default: a 'reports' folder beside the store)."),
    ] = None,
    profile: Annotated[
        str, typer.Option("--profile", help="House profile: a built-in name or a TOML file.")
    ] = "robert",
    fail_on: Annotated[
        FailOn,
        typer.Option("--fail-on", help="Exit 1 when the run finds new findings this severe "
                                       "or worse ('never': only failures change the exit code)."),
    ] = FailOn.CRITICAL,
    fail_on_quality: Annotated[
        FailOn,
        typer.Option("--fail-on-quality",
                     help="Exit 1 when the run has a data-quality finding this severe or worse: "
                          "no new hand, a table that went silent, far fewer hands than usual "
                          "(docs/nightly.md; severities in the house file's [nightly] table)."),
    ] = FailOn.MAJOR,
    log_format: Annotated[
        LogFormat,
        typer.Option("--log-format", help="'text': a progress bar on a terminal, plain lines "
                                          "otherwise; 'json': one JSON object per line."),
    ] = LogFormat.TEXT,
    settle: Annotated[
        float,
        typer.Option("--settle", min=0, help="Seconds since its last change after which a file "
                                             "is finished and its last hand is read even with "
                                             "no blank line after it."),
    ] = 300.0,
    store_wait: Annotated[
        float,
        typer.Option("--store-wait", min=0, help="Seconds to wait while another process holds "
                                                 "the store (a dashboard copying it) before "
                                                 "failing."),
    ] = DEFAULT_WAIT,
    workers: Annotated[
        int | None,
        typer.Option("--workers", min=1, help="Audit processes (default: every core the job "
                                               "may use)."),
    ] = None,
    batch_size: Annotated[
        int, typer.Option("--batch-size", min=1, help=(
            f"Most hands in an ingest transaction (default {BATCH_SIZE:,}, a DuckDB row group). "
            f"{WRITE_SIZE} or fewer writes each flush in a transaction of its own, where a hand "
            "the store refuses is quarantined whatever the ingest's checks said."))
    ] = BATCH_SIZE,
) -> None:
    """Ingest what is new in the inbox, audit it, record the run and write its report.

    Exit codes: 0 all well; 1 new findings at or above --fail-on, or data-quality
    findings (missing data) at or above --fail-on-quality; 2 the job failed
    (unreadable inbox, store locked or unwritable, disk full, another job running).
    """
    missing = missing_paths(inbox)
    if missing:  # a mistyped inbox is a usage error: no run is recorded
        typer.echo(f"error: no such inbox: {', '.join(missing)}", err=True)
        raise typer.Exit(2)
    arrow_without_pandas()  # a second of imports the job never uses
    options = NightlyOptions(
        inboxes=tuple(inbox),
        db=db,
        reports=reports if reports is not None else db.parent / "reports",
        profile=profile,
        fail_on=fail_on,
        fail_on_quality=fail_on_quality,
        settle_seconds=settle,
        batch_size=batch_size,
        workers=workers,
        store_wait=store_wait,
    )
    result = run_nightly(options, JobLog(log_format))
    if result.report_dir is not None:
        typer.echo(f"report: {(result.report_dir / 'report.html').resolve()}")
    if result.error:
        typer.echo(f"error: {result.error}", err=True)
    raise typer.Exit(int(result.exit_code))


def register(app: typer.Typer) -> None:
    """Add ``openers nightly`` to the application."""
    app.command("nightly")(nightly)
