"""The ``openers`` command line: small subcommands, each registered by its own area.

Every area keeps its commands in its own ``cli`` module with a ``register(app)``
function; this file only assembles them.
"""

from __future__ import annotations

import typer

app = typer.Typer(
    name="openers",
    help="Audit Jacks-or-Better five-card draw hand logs: ingest, audit, report, dashboards.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="rich",
)


def _register_all() -> None:
    # Each area adds its commands here, one line each.
    __import__("ingest.cli").cli.register(app)
    __import__("audit.cli").cli.register(app)
    __import__("dashboards.cli").cli.register(app)
    __import__("openers.nightly.cli").nightly.cli.register(app)
    __import__("openers.report.cli").report.cli.register(app)
    __import__("openers.demo").demo.register(app)
    __import__("openers.generator.cli").generator.cli.register(app)
    pass


_register_all()


def main() -> None:
    """Console-script entry point."""
    app()
