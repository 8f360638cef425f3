"""The ``openers`` command line: small subcommands, each registered by its own area.

Every area keeps its commands in its own ``cli`` module with a ``register(app)``
function; this file only assembles them, in the order ``openers --help`` lists them.
"""

from __future__ import annotations

import typer

from audit import cli as audit_cli
from audit.integrity import cli as integrity_cli
from dashboards import cli as dashboards_cli
from ingest import cli as ingest_cli
from openers import demo
from openers.generator import cli as generator_cli
from openers.nightly import cli as nightly_cli
from openers.report import cli as report_cli

app = typer.Typer(
    name="openers",
    help="Audit Jacks-or-Better five-card draw hand logs: ingest, audit, report, dashboards.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="rich",
)

for _area in (ingest_cli, audit_cli, integrity_cli, dashboards_cli, nightly_cli, report_cli, demo,
              generator_cli):
    _area.register(app)


def main() -> None:
    """Console-script entry point."""
    app()
