"""``openers rules [CODE|PREFIX]``: the catalogue, a family of it, or one rule explained.

On a terminal the catalogue is a table whose cells wrap (never cut); piped or
redirected it is one tab-separated line per code with every name in full, for
``grep`` and ``cut``. The text of each rule comes from its docstring, as
``docs/rules.md`` does. The unreadable-input codes (``Q6xx``) are listed too.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer


def _catalogue() -> list[tuple[str, str, str, str]]:
    """(code, severity, name, summary) of every rule, then every unreadable-input code."""
    from audit.registry import RULES, codes
    from audit.unreadable import SEVERITY, all_codes

    rows = [(c, RULES[c].severity.value, RULES[c].name, RULES[c].summary) for c in codes()]
    rows += [(c, SEVERITY, name, "a hand or file that cannot be read: not audited")
             for c, name in all_codes().items()]
    return rows


def explain(code: str) -> str:
    """The text of ``openers rules CODE``: header, summary and the docstring sections."""
    from audit.registry import RULES
    from audit.rule import DOC_SECTIONS

    if code not in RULES:
        return _explain_unreadable(code)
    cls = RULES[code]
    doc = cls.doc()
    parts = [f"{code} {cls.name} ({cls.severity.value})", "", cls.summary]
    for section in DOC_SECTIONS:
        if section in doc:
            body = "\n".join("    " + line if line else "" for line in doc[section].splitlines())
            parts += ["", f"{section}:", body]
    return "\n".join(parts)


def _explain_unreadable(code: str) -> str:
    from audit.unreadable import SEVERITY, all_codes

    name = all_codes()[code]
    return "\n".join([
        f"{code} {name} ({SEVERITY})", "",
        f"A hand or file that cannot be read ({name}), reported by `openers check` in the "
        "same stream as the findings.", "",
        "What it does:",
        "    The reader could not take this hand (or file) as the hand log format defines "
        "it; the message says the line, the token and what was expected. `openers ingest` "
        "keeps such a hand in quarantine with its raw text.", "",
        "Why it matters:",
        "    Nothing in an unreadable hand was audited: a broken export can hide any "
        "violation. It counts for the exit code like a finding; `--ignore Q` leaves "
        "unreadable input out.", "",
        "Source:",
        "    ../shared/spec/hand-log-format.md",
    ])


def _print_table(rows: list[tuple[str, str, str, str]]) -> None:
    if not sys.stdout.isatty():
        for row in rows:
            typer.echo("\t".join(row))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table("code", "severity", "name", "rule", title="Audit rules")
    for row in rows:
        table.add_row(*row)
    for column in table.columns:
        column.overflow = "fold"
    Console(highlight=False).print(table)


def rules_command(
    code: Annotated[str | None, typer.Argument(
        help="A code to explain (B101), or a prefix to list (O2, Q); omit to list them all.",
        show_default=False)] = None,
) -> None:
    """List the rule catalogue, a family of it (by prefix), or explain one rule.

    Piped or redirected, the list is one tab-separated line per code (code, severity,
    name, rule), never cut; on a terminal it is a table that wraps.
    """
    rows = _catalogue()
    if code is None:
        _print_table(rows)
        return
    key = code.strip().upper()
    if any(c == key for c, *_ in rows):
        typer.echo(explain(key))
        return
    matching = [row for row in rows if row[0].startswith(key)]
    if not matching:
        typer.echo(f"error: no rule code starts with {code!r} (expected a code such as B101 "
                   "or a prefix such as O2 or Q; `openers rules` lists them)", err=True)
        raise typer.Exit(2)
    _print_table(matching)


def register(app: typer.Typer) -> None:
    """Add ``openers rules`` to the app."""
    app.command("rules")(rules_command)
