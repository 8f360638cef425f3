"""Commands of the audit area: ``openers check``, ``openers audit``, ``openers rules``."""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from audit.batch import check_paths
from audit.output import Format, write_findings
from audit.profiles import Profile, ProfileError, check_codes, load_profile
from audit.registry import RULES, codes
from audit.rule import DOC_SECTIONS
from ingest.paths import expand_paths
from schemas.store import DEFAULT_DB

ProfileOpt = Annotated[
    str,
    typer.Option("--profile", help="House profile: robert, house23, foster, laws, or a TOML file "
                 "that extends one."),
]
SelectOpt = Annotated[
    str | None,
    typer.Option("--select", help="Run only these codes or prefixes, comma-separated (B,O201)."),
]
IgnoreOpt = Annotated[
    str | None,
    typer.Option("--ignore", help="Skip these codes or prefixes, comma-separated (B103,J)."),
]
WorkersOpt = Annotated[
    int | None,
    typer.Option("--workers", min=1, help="Worker processes (default: every usable core)."),
]


def _split(value: str | None) -> list[str] | None:
    return None if value is None else [v for v in value.split(",") if v.strip()]


def _profile(name: str, select: str | None, ignore: str | None) -> Profile:
    """The profile with the command line's selection, or exit 2 naming the problem."""
    known = frozenset(codes())
    try:
        profile = load_profile(name, known)
        sel = _split(select)
        ign = _split(ignore)
        return profile.with_selection(
            None if sel is None else check_codes(sel, known, "--select"),
            None if ign is None else check_codes(ign, known, "--ignore"),
        )
    except ProfileError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None


def check_command(
    paths: Annotated[list[str], typer.Argument(
        help="Hand log files (text or JSONL, plain or .gz), folders or glob patterns.",
        show_default=False)],
    profile: ProfileOpt = "robert",
    select: SelectOpt = None,
    ignore: IgnoreOpt = None,
    fmt: Annotated[Format, typer.Option(
        "--format", help="text (HAND_ID:LINE CODE message), json, jsonl or csv.")] = Format.TEXT,
    workers: WorkersOpt = None,
    reference: Annotated[bool, typer.Option(
        "--reference", help="Send every hand through the reference engine instead of "
        "certifying ordinary clean hands with the compiled fast path (slower; the same "
        "report).")] = False,
) -> None:
    """Audit hand logs directly, like a linter, without a database.

    Exit status: 0 no finding, 1 findings, 2 a usage or input error (a file or hand
    that cannot be read; its problems are printed on stderr, the findings still are),
    or a rule that failed on a hand (an internal error: that hand is not fully audited).
    """
    prof = _profile(profile, select, ignore)
    if not expand_paths(paths):
        typer.echo("error: no files match the given paths", err=True)
        raise typer.Exit(2)
    report = check_paths(paths, prof, workers=workers, fast=not reference)
    findings = [f for r in report.results for f in r.findings]
    write_findings(findings, fmt, sys.stdout)
    for item in report.problems:
        typer.echo(f"{item.file}:{item.line}: {item.kind.value}: {item.error}", err=True)
    errors = [e for r in report.results for e in r.errors]
    for error in errors:
        typer.echo(f"{error.hand_id}: {error.reason}", err=True)
    unverifiable = sum(len(r.unverifiable) for r in report.results)
    if findings or unverifiable or report.problems:
        hands = len({f.hand_id for f in findings})
        typer.echo(f"{len(findings)} finding(s) in {hands} of {report.hands} hand(s); "
                   f"{unverifiable} unverifiable check(s) ({len(errors)} internal error(s)); "
                   f"{len(report.problems)} unreadable", err=True)
    if report.problems or errors:
        raise typer.Exit(2)
    if findings:
        raise typer.Exit(1)


def audit_command(
    db: Annotated[str, typer.Option("--db", help="The DuckDB store file.")] = DEFAULT_DB,
    profile: ProfileOpt = "robert",
    select: SelectOpt = None,
    ignore: IgnoreOpt = None,
    workers: WorkersOpt = None,
    reference: Annotated[bool, typer.Option(
        "--reference", help="Send every hand through the reference engine instead of "
        "certifying clean hands on the compiled fast path (same results, slower).")] = False,
) -> None:
    """Audit the hands in the store and replace their findings (a re-audit never doubles them)."""
    from audit.store import audit_store
    from schemas.seals import check_raw, seal
    from schemas.store import connect, transaction

    prof = _profile(profile, select, ignore)
    con = connect(db)
    try:
        if edited := check_raw(con):  # never audit a text edited since it was read
            for mismatch in edited:
                typer.echo(f"MISMATCH {mismatch}", err=True)
            typer.echo("error: the stored hands were edited; nothing audited "
                       "(`openers verify` lists every difference)", err=True)
            raise typer.Exit(2)
        summary = audit_store(con, prof, workers=workers, fast=not reference)
        with transaction(con):
            seal(con, kind="audit")  # the new audit layer is attested (openers verify)
    finally:
        con.close()
    typer.echo(f"audited {summary.hands} hand(s) with profile {prof.name}: "
               f"{summary.findings} finding(s), {summary.unverifiable} unverifiable check(s)"
               + (f", {summary.errors} internal error(s)" if summary.errors else ""))


def rules_command(
    code: Annotated[str | None, typer.Argument(
        help="A rule code to explain (e.g. B101); omit to list the catalogue.")] = None,
) -> None:
    """List the rule catalogue, or explain one rule (from its docstring)."""
    console = Console(highlight=False)
    if code is None:
        table = Table("code", "severity", "name", "rule", title="Audit rules")
        for c in codes():
            cls = RULES[c]
            table.add_row(c, cls.severity.value, cls.name, cls.summary)
        console.print(table)
        return
    key = code.strip().upper()
    if key not in RULES:
        typer.echo(f"error: unknown rule code {code!r} (see `openers rules`)", err=True)
        raise typer.Exit(2)
    typer.echo(explain(key))


def explain(code: str) -> str:
    """The text of ``openers rules CODE``: header, summary and the docstring sections."""
    cls = RULES[code]
    doc = cls.doc()
    parts = [f"{code} {cls.name} ({cls.severity.value})", "", cls.summary]
    for section in DOC_SECTIONS:
        if section in doc:
            body = "\n".join("    " + line if line else "" for line in doc[section].splitlines())
            parts += ["", f"{section}:", body]
    return "\n".join(parts)


def register(app: typer.Typer) -> None:
    """Add the audit commands to the ``openers`` app."""
    app.command("check")(check_command)
    app.command("audit")(audit_command)
    app.command("rules")(rules_command)
