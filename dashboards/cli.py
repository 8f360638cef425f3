"""``openers dashboard``: start the Streamlit app on a store, read-only."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import typer

APP_FILE = Path(__file__).resolve().parent / "app.py"


def streamlit_command(port: int, address: str) -> list[str]:
    """The ``streamlit run`` command line for the app."""
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(APP_FILE),
        "--server.port",
        str(port),
        "--server.address",
        address,
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
        "--server.fileWatcherType",
        "none",
    ]


def launch(
    db: Path, port: int = 8501, address: str = "127.0.0.1", reviews: Path | None = None
) -> int:
    """Run the dashboard on ``db`` until interrupted; return Streamlit's exit code.

    ``openers demo`` calls this to open the demo store.
    """
    store = db.resolve()
    if not store.exists():
        raise FileNotFoundError(f"no store at {store}")
    env = dict(os.environ)
    env["OPENERS_DB"] = str(store)
    from dashboards.reviews import reviews_path_for  # pandas: only when a dashboard starts

    env["OPENERS_REVIEWS"] = str((reviews or reviews_path_for(store)).resolve())
    typer.echo(f"Dashboard on {store} at http://{address}:{port} (Ctrl+C to stop)")
    try:
        return subprocess.call(streamlit_command(port, address), env=env)
    except KeyboardInterrupt:
        return 0


def register(app: typer.Typer) -> None:
    """Add the ``dashboard`` command to the ``openers`` CLI."""

    @app.command("dashboard")
    def dashboard(
        db: Annotated[
            Path, typer.Option("--db", help="The store to show (opened read-only).")
        ] = Path("openers.duckdb"),
        port: Annotated[int, typer.Option("--port", help="Port to serve on.")] = 8501,
        address: Annotated[
            str, typer.Option("--address", help="Address to bind; localhost by default.")
        ] = "127.0.0.1",
        reviews: Annotated[
            Path | None,
            typer.Option(
                "--reviews",
                help="Review file (default: next to the store, NAME.reviews.sqlite).",
            ),
        ] = None,
    ) -> None:
        """Open the compliance dashboards on a store: findings, hands, dealers, reviews."""
        try:
            code = launch(db, port, address, reviews)
        except FileNotFoundError as exc:
            typer.echo(str(exc), err=True)
            raise typer.Exit(2) from exc
        raise typer.Exit(code)
