"""``openers integrity``: the statistics for cheating that breaks no rule, on the store."""

from __future__ import annotations

import sys
from datetime import date, datetime
from pathlib import Path
from typing import Annotated

import duckdb
import typer
from rich.console import Console
from rich.table import Table

from audit.integrity.engine import Options, run_integrity
from audit.integrity.output import Format, write_result
from audit.integrity.registry import TESTS, codes, select
from audit.integrity.store import store_result
from audit.integrity.test import DOC_SECTIONS, Settings
from audit.profiles import ProfileError, load_profile
from schemas.store import DEFAULT_DB, connect


def _day(value: datetime | None) -> date | None:
    return value.date() if value else None


def integrity(
    db: Annotated[Path, typer.Option("--db", help="The store to analyse.")] = Path(DEFAULT_DB),
    since: Annotated[datetime | None, typer.Option(
        "--since", formats=["%Y-%m-%d"],
        help="Only hands played on or after this local day (YYYY-MM-DD).")] = None,
    until: Annotated[datetime | None, typer.Option(
        "--until", formats=["%Y-%m-%d"],
        help="Only hands played on or before this local day (YYYY-MM-DD).")] = None,
    fdr: Annotated[float | None, typer.Option(
        "--fdr", help="False discovery rate across every test (default: the profile's "
             "integrity_fdr, 0.05 in the built-ins).")] = None,
    dependent: Annotated[bool, typer.Option(
        "--any-dependence", help="Benjamini-Yekutieli instead of Benjamini-Hochberg: valid "
        "under any dependence between tests, fewer alerts.")] = False,
    tests: Annotated[str | None, typer.Option(
        "--tests", help="Run only these tests (codes or prefixes, comma-separated: F,C202).")
    ] = None,
    profile: Annotated[str, typer.Option(
        "--profile", help="House profile (openers per jack-pot, bobtail, integrity_fdr).")
    ] = "robert",
    fmt: Annotated[Format, typer.Option(
        "--format", help="text (ranked alerts), json or csv (every alert, all its hands).")
    ] = Format.TEXT,
    store: Annotated[bool, typer.Option(
        "--store", help="Also keep the run in the store (integrity_runs, integrity_alerts...), "
        "as the nightly job does.")] = False,
) -> None:
    """Rank the alerts of dealing-fairness and collusion tests over the stored hands.

    Every test is exact or conservative under fair play; alerts are the tests that pass
    the false discovery control across all of them, each with its effect size, 95%
    interval and the hands behind it. Exit status 0 (alerts or not), 2 on a usage or
    store error. docs/integrity.md says what each test assumes.
    """
    try:
        house = load_profile(profile)
        chosen = select(None if tests is None else [t for t in tests.split(",") if t.strip()])
    except (ProfileError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    if not db.exists():
        typer.echo(f"error: no store at {db}", err=True)
        raise typer.Exit(2)
    if fdr is not None and not 0 < fdr < 1:
        raise typer.BadParameter(f"--fdr must be between 0 and 1, not {fdr}")
    if since and until and since > until:
        raise typer.BadParameter("--since is after --until")
    options = Options(since=_day(since), until=_day(until), tests=chosen, profile=house,
                      settings=Settings(fdr=fdr if fdr is not None else house.integrity_fdr,
                                        dependent=dependent))
    try:
        con = connect(db, read_only=not store)
    except duckdb.Error as exc:
        typer.echo(f"error: cannot open {db}: {exc}", err=True)
        raise typer.Exit(2) from exc
    try:
        result = run_integrity(con, options)
        if store:
            run_id = store_result(con, result)
            typer.echo(f"stored as integrity run {run_id}", err=True)
    finally:
        con.close()
    write_result(result, fmt, sys.stdout)


def integrity_tests(
    code: Annotated[str | None, typer.Argument(help="A test code (F102) to explain.")] = None,
) -> None:
    """List the integrity tests, or explain one (what it assumes, when it is not valid)."""
    console = Console()
    if code is None:
        table = Table("code", "name", "family", "cells", "summary", box=None)
        for c in codes():
            cls = TESTS[c]
            table.add_row(c, cls.name, cls.family.value,
                          ", ".join(level.value for level in cls.levels), cls.summary)
        console.print(table)
        return
    try:
        cls = TESTS[code.upper()]
    except KeyError:
        typer.echo(f"error: unknown integrity test {code!r} (codes: {', '.join(codes())})",
                   err=True)
        raise typer.Exit(2) from None
    console.print(f"[bold]{cls.code}[/bold] {cls.name} ({cls.family.value}): {cls.summary}")
    doc = cls.doc()
    for section in DOC_SECTIONS:
        if section in doc:
            console.print(f"\n[bold]{section}[/bold]\n{doc[section]}", highlight=False)


def register(app: typer.Typer) -> None:
    """Add ``openers integrity`` and ``openers integrity-tests`` to the application."""
    app.command("integrity")(integrity)
    app.command("integrity-tests")(integrity_tests)
