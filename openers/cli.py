"""The ``openers`` command line: small subcommands, each registered by its own area.

Every area keeps its commands in its own module with a ``register(app)`` function
and is listed here by ONE line, ``area(MODULE, COMMAND...)``, in the order
``openers --help`` shows them. The module is imported only when one of its commands
runs (:mod:`openers.lazy`), so ``openers --help`` starts at once; a new command
appears in ``--help`` and in ``docs/cli.md`` (``python -m openers.cli_docs``) by
itself. Errors reach the user in the project's words: an unexpected exception is
an internal error (exit 2) without a Python traceback unless ``OPENERS_DEBUG=1``.
"""

from __future__ import annotations

import gc
import os
import re
import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer._click.exceptions import BadParameter

if TYPE_CHECKING:
    from typer import _click as click

from openers import version
from openers.lazy import LazyGroup, area

AREAS = (
    area("ingest.cli", "ingest", "validate", "schema"),
    area("audit.cli", "check", "audit"),
    area("audit.rules_cli", "rules"),
    area("audit.integrity.cli", "integrity", "integrity-tests"),
    area("dashboards.cli", "dashboard"),
    area("openers.nightly.cli", "nightly"),
    area("openers.report.cli", "report"),
    area("openers.demo", "demo"),
    area("openers.generator.cli", "generate"),
    area("openers.export", "export"),
    area("openers.warmup", "warmup"),
    area("openers.verify", "verify"),
)
SETTINGS: dict[str, Any] = {
    "add_completion": False,
    "rich_markup_mode": None,
    "pretty_exceptions_enable": False,
}


#: typer checks option values with a validation library and repeats its phrases; each
#: is said again here in our words, with what was expected (anything else is kept).
PLAIN_WORDS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"^Value error, (.*?)\.?$"), r"\1"),
    (re.compile(r"^Input should be a valid integer.*$"), "expected a whole number"),
    (re.compile(r"^Input should be a valid number.*$"), "expected a number"),
    (re.compile(r"^Input should be a valid boolean.*$"), "expected yes or no"),
    (re.compile(r"^Input should be (greater|less) than or equal to (\S+)$"),
     r"expected a value \1 than or equal to \2"),
    (re.compile(r"^Input should be (greater|less) than (\S+)$"),
     r"expected a value \1 than \2"),
    (re.compile(r"^Input should be (.*)$"), r"expected \1"),
)


def plain_words(message: str) -> str:
    """An option's error message without the validation library's phrasing."""
    for pattern, replacement in PLAIN_WORDS:
        if pattern.match(message):
            message = pattern.sub(replacement, message)
            break
    return message.replace("'%Y-%m-%d'", "YYYY-MM-DD")


class OpenersGroup(LazyGroup):
    """The ``openers`` group: the areas above, loaded on use."""

    areas = AREAS
    app_settings = SETTINGS

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BadParameter as exc:
            exc.message = plain_words(exc.message)
            raise


app = typer.Typer(
    name="openers", cls=OpenersGroup,
    help="Audit Jacks-or-Better five-card draw hand logs: ingest, audit, report, dashboards.",
    no_args_is_help=True, **SETTINGS,
)


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"openers {version()}")
        raise typer.Exit(0)


@app.callback()
def root(
    version: Annotated[bool, typer.Option(
        "--version", is_eager=True, callback=_show_version,
        help="Print the version of openers and exit.")] = False,
) -> None:
    """Audit Jacks-or-Better five-card draw hand logs: ingest, audit, report, dashboards."""


def main() -> None:
    """Console-script entry point: the app, with internal errors in the project's words."""
    from ingest.scan.cache import configure

    configure()  # where compiled code is cached, for this process and its workers
    try:
        app()
    except KeyboardInterrupt:
        sys.stderr.write("openers: interrupted\n")
        sys.exit(130)
    except BrokenPipeError:  # the reader of a pipe left (`openers check ... | head`)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no flush error
        sys.exit(141)  # 128 + SIGPIPE, as a shell reports a program a pipe stopped
    except Exception:  # the last line of defence: no traceback reaches a user
        if os.environ.get("OPENERS_DEBUG"):
            raise
        sys.stderr.write(
            "openers: internal error: the command could not finish. "
            "This is a bug in openers; please report it with the command you ran "
            "(OPENERS_DEBUG=1 shows the details).\n")
        sys.exit(2)
    finally:
        # The interpreter's last collection walks every object the command left (after a
        # nightly run, 1 to 1.5 s of a 100,000-hand night's exit); frozen, they are left
        # for the system to free with the process.
        gc.freeze()
