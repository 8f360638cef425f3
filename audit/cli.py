"""Commands of the audit area: ``openers check``, ``openers audit``, ``openers rules``.

This module is loaded for ``openers check --help``: it imports only typer and the
light output module at the top; the engine, the profiles and the registry are
imported inside the commands that use them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn, TypeVar

import typer

from audit.output import Format
from schemas.findings import FailOn

if TYPE_CHECKING:
    from audit.output import Item, Summary
    from audit.profiles import Profile

ProfileOpt = Annotated[
    str,
    typer.Option("--profile", metavar="NAME|FILE", help="House profile: robert, house23, "
                 "foster, laws, or a TOML file that extends one."),
]
SelectOpt = Annotated[
    str | None,
    typer.Option("--select", metavar="CODES", help="Report only these codes or prefixes, "
                 "comma-separated (B,O201; Q for unreadable input)."),
]
IgnoreOpt = Annotated[
    str | None,
    typer.Option("--ignore", metavar="CODES", help="Leave out these codes or prefixes, "
                 "comma-separated (B103,J)."),
]
WorkersOpt = Annotated[
    int | None,
    typer.Option("--workers", metavar="N", min=1,
                 help="Worker processes (default: every usable core)."),
]


E = TypeVar("E", bound=StrEnum)


def choice(kind: type[E], what: str) -> Callable[[str], E]:
    """A parser for an option with fixed values that says, in our words, what it expects.

    (typer's own coercion answers a wrong value in its validation library's words.)
    """

    def parse(value: str | E) -> E:
        if isinstance(value, kind):
            return value
        try:
            return kind(str(value).strip().lower())
        except ValueError:
            expected = ", ".join(m.value for m in kind)
            raise typer.BadParameter(
                f"{value!r} is not {what}: expected one of {expected}") from None

    return parse


def fail(message: str) -> NoReturn:
    """Print ``error: message`` on stderr and exit 2 (the command could not run)."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def _split(value: str | None) -> list[str] | None:
    return None if value is None else [v.strip().upper() for v in value.split(",") if v.strip()]


def _is_unreadable_code(code: str) -> bool:
    return code.startswith("Q")


def _profile(name: str, select: list[str] | None, ignore: list[str] | None) -> Profile:
    """The profile with the command line's rule selection, or exit 2 naming the problem."""
    from audit.profiles import ProfileError, check_codes, load_profile
    from audit.registry import codes

    known = frozenset(codes())
    rules_sel = None if select is None else [c for c in select if not _is_unreadable_code(c)]
    rules_ign = None if ignore is None else [c for c in ignore if not _is_unreadable_code(c)]
    try:
        profile = load_profile(name, known)
        return profile.with_selection(
            None if rules_sel is None else check_codes(rules_sel, known, "--select"),
            None if rules_ign is None else check_codes(rules_ign, known, "--ignore"),
        )
    except ProfileError as exc:
        fail(str(exc))


def _check_unreadable_codes(codes: list[str] | None, where: str) -> None:
    from audit.unreadable import all_codes

    known = all_codes()
    for code in codes or ():
        if _is_unreadable_code(code) and not any(k.startswith(code) for k in known):
            fail(f"{where}: unknown code {code!r} (unreadable input is Q601…Q699; "
                 "see `openers rules Q`)")


def _wanted(code: str, select: list[str] | None, ignore: list[str] | None) -> bool:
    """For Q codes (rule codes are selected by the profile): --select then --ignore."""
    if select is not None and not any(code.startswith(s) for s in select):
        return False
    return not (ignore and any(code.startswith(i) for i in ignore))


def _existing_paths(paths: list[str]) -> list[Path]:
    """The files the arguments name; a missing file or a pattern matching none exits 2."""
    from ingest.paths import expand_paths

    for given in paths:
        matched = Path(given).exists() or (any(ch in given for ch in "*?[")
                                           and expand_paths([given]))
        if not matched:
            fail(f"{given}: no such file or folder (expected hand logs: files, folders "
                 "or glob patterns)")
    files = expand_paths(paths)
    if not files:
        fail("no hand logs in " + ", ".join(paths) + " (expected files ending in "
             ".log, .txt, .hands or .jsonl, plain or .gz)")
    return files


def check_command(
    paths: Annotated[list[str], typer.Argument(
        metavar="PATH", show_default=False,
        help="Hand log files (text or JSONL, plain or .gz), folders or glob patterns.")],
    profile: ProfileOpt = "robert",
    select: SelectOpt = None,
    ignore: IgnoreOpt = None,
    fmt: Annotated[Format, typer.Option(
        "--output-format", "--format", metavar="FORMAT", parser=choice(Format, "a format"),
        help="text (PATH:LINE:COL: CODE [severity] message (hand ID), then a summary), "
        "concise, json, jsonl, csv, sarif (SARIF 2.1.0), github (workflow annotations) or "
        "junit (JUnit XML).")] = Format.TEXT,
    statistics: Annotated[bool, typer.Option(
        "--statistics", help="Print how many of each code instead of the findings.")] = False,
    quiet: Annotated[bool, typer.Option(
        "--quiet", "-q", help="Print the findings and nothing else (no summary, no "
        "progress).")] = False,
    exit_zero: Annotated[bool, typer.Option(
        "--exit-zero", help="Exit 0 even when there are findings (2 still means the check "
        "could not run).")] = False,
    fail_on: Annotated[FailOn, typer.Option(
        "--fail-on", metavar="SEVERITY", parser=choice(FailOn, "a severity"),
        help="Exit 1 only for findings this severe or worse: critical, major, minor (the "
        "default: any finding) or never.")] = FailOn.MINOR,
    baseline: Annotated[Path | None, typer.Option(
        "--baseline", metavar="FILE", help="Leave out the findings this baseline file "
        "accepts (matched by hand, code and place in the hand, not by line).")] = None,
    write_baseline: Annotated[Path | None, typer.Option(
        "--write-baseline", metavar="FILE", help="Record every finding of this check in "
        "FILE as accepted, and exit 0.")] = None,
    workers: WorkersOpt = None,
    reference: Annotated[bool, typer.Option(
        "--reference", help="Read every hand with the reference parser and replay it in "
        "Python instead of the compiled scanner and replay (the slower, independent path; "
        "the same report).")] = False,
    fast: Annotated[bool, typer.Option(
        "--fast", help="Use the compiled scanner and replay even for a small input (by "
        "default inputs under about 500 hands take the reference path, which finishes "
        "before the compiled code has loaded; the same report).")] = False,
) -> None:
    """Audit hand logs directly, like a linter, without a database.

    Prints one line per finding, `PATH:LINE:COL: CODE [severity] message (hand ID)`,
    sorted by file and line, then a summary. A hand or file that cannot be read is a
    finding too (codes Q601…, severity critical): its hands were not audited.

    Exit status: 0 no finding (at or above --fail-on), 1 findings, 2 the check could
    not run (a usage error, a missing path, a bad profile or baseline, or an internal
    error, which names the hand it failed on).
    """
    from audit.baseline import BaselineError, apply_baseline, read_baseline
    from audit.baseline import write_baseline as save_baseline
    from audit.output import sort_items, write_items, write_statistics

    sel, ign = _split(select), _split(ignore)
    _check_unreadable_codes(sel, "--select")
    _check_unreadable_codes(ign, "--ignore")
    prof = _profile(profile, sel, ign)
    files = _existing_paths(paths)
    try:
        accepted = read_baseline(baseline) if baseline is not None else None
    except BaselineError as exc:
        fail(str(exc))
    compiled = not reference and (fast or _large(files))
    items, summary, errors = _run_check(files, prof, workers, compiled, quiet)
    items = sort_items([i for i in items if i.kind == "finding" or _wanted(i.code, sel, ign)])
    if write_baseline is not None:
        try:
            save_baseline(items, write_baseline)
        except BaselineError as exc:
            fail(str(exc))
        if not quiet:
            typer.echo(f"Wrote {len(items)} accepted finding(s) to {write_baseline}.", err=True)
        raise typer.Exit(0)
    if accepted is not None:
        items, summary.baselined = apply_baseline(items, accepted)
    out = sys.stdout
    if statistics:
        write_statistics(items, fmt, out)
    else:
        write_items(items, fmt, out, summary)
    if (not quiet and fmt in (Format.TEXT, Format.CONCISE)) or (statistics and not quiet \
            and fmt not in (Format.JSON, Format.JSONL)):
        from audit.output import summary_line

        out.write(summary_line(items, summary) + "\n")
    for error in errors:
        typer.echo(error, err=True)
    if errors:
        typer.echo(f"{len(errors)} internal error(s): the check is incomplete.", err=True)
        raise typer.Exit(2)
    if not exit_zero and _fails(items, fail_on):
        raise typer.Exit(1)


def _fails(items: list[Item], fail_on: FailOn) -> bool:
    return any(fail_on.reached_by(i.severity) for i in items)


#: Input size (bytes of log text) from which the compiled fast path pays for itself:
#: loading its compiled code costs about as much as the reference engine's ~1 ms a hand
#: for some 500 hands (benchmarks/bench_startup.py measures both).
FAST_PATH_MIN_BYTES = 512 * 1024
#: How much a compressed log is taken to expand.
GZIP_RATIO = 5


def _large(files: list[Path]) -> bool:
    """Whether the input is large enough for the compiled fast path to pay off."""
    total = 0
    for file in files:
        try:
            size = file.stat().st_size
        except OSError:
            continue  # the reader reports it
        total += size * (GZIP_RATIO if file.name.lower().endswith(".gz") else 1)
    return total >= FAST_PATH_MIN_BYTES


def _run_check(files: list[Path], prof: Profile, workers: int | None, compiled: bool,
               quiet: bool) -> tuple[list[Item], Summary, list[str]]:
    """Run the check: its items, its summary and its internal errors (as messages)."""
    from audit.batch import check_paths
    from audit.output import Summary, finding_item
    from audit.unreadable import unreadable_item

    if compiled:
        from ingest.scan.cache import ensure_compiled

        ensure_compiled(None if quiet else sys.stderr)
    report = check_paths(files, prof, workers=workers, fast=compiled)
    items = [finding_item(f, r.file, r.first_line) for r in report.results for f in r.findings]
    items += [unreadable_item(q) for q in report.problems]
    debug = bool(os.environ.get("OPENERS_DEBUG"))
    errors = [f"error: rule {e.code} failed on hand {r.hand_id} at {r.file}:{r.first_line}: "
              "that hand is not fully audited. This is a bug in openers; please report it "
              "with the hand" + (f" ({e.reason})." if debug else
                                 " (OPENERS_DEBUG=1 shows the details).")
              for r in report.results for e in r.errors]
    summary = Summary(files=[str(f) for f in files], hands=report.hands,
                      unverifiable=sum(len(r.unverifiable) - len(r.errors) for r in report.results))
    return items, summary, errors


def audit_command(
    db: Annotated[str | None, typer.Option(
        "--db", metavar="FILE", help="The DuckDB store file (default: openers.duckdb).",
        show_default=False)] = None,
    profile: ProfileOpt = "robert",
    select: SelectOpt = None,
    ignore: IgnoreOpt = None,
    workers: WorkersOpt = None,
    reference: Annotated[bool, typer.Option(
        "--reference", help="Read every hand's raw text with the reference parser and "
        "replay it in Python instead of replaying the staging rows with the compiled "
        "replay (the slower, independent path; the same rows).")] = False,
) -> None:
    """Audit the hands in the store and replace their findings (a re-audit never doubles them)."""
    from audit.store import audit_store
    from schemas.seals import check_raw, seal
    from schemas.store import DEFAULT_DB, connect, transaction

    prof = _profile(profile, _split(select), _split(ignore))
    db = db or DEFAULT_DB
    if not Path(db).is_file():
        fail(f"{db}: no such store (expected a DuckDB file made by `openers ingest`)")
    if not reference:
        from ingest.scan.cache import ensure_compiled

        ensure_compiled(sys.stderr)
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


def register(app: typer.Typer) -> None:
    """Add ``openers check`` and ``openers audit`` to the app."""
    app.command("check")(check_command)
    app.command("audit")(audit_command)
