"""``openers dashboard``: start the Streamlit app on a store, read-only."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import typer

APP_FILE = Path(__file__).resolve().parent / "app.py"
_PR_SET_PDEATHSIG = 1


def streamlit_command(port: int, address: str) -> list[str]:
    """The ``streamlit run`` command line for the app (the rest is in .streamlit/config.toml)."""
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
    ]


def _die_with_parent() -> None:
    """In the child, before exec: ask Linux to SIGTERM it when its parent dies (even by kill -9)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):  # not Linux: the signal handlers below still apply
        pass


def launch(
    db: Path, port: int = 8501, address: str = "127.0.0.1", reviews: Path | None = None,
    house: Path | None = None,
) -> int:  # fmt: skip
    """Run the dashboard on ``db`` until interrupted or terminated; return Streamlit's exit code.

    The Streamlit server is a child process. It goes down with this one: SIGTERM,
    SIGHUP or Ctrl+C here stop it and wait for it, and on Linux the child also gets
    SIGTERM if this process is killed outright. ``openers demo`` calls this too.
    """
    store = db.resolve()
    if not store.exists():
        raise FileNotFoundError(f"no store at {store}")
    env = dict(os.environ)
    env["OPENERS_DB"] = str(store)
    from dashboards.reviews import reviews_path_for  # pandas: only when a dashboard starts

    env["OPENERS_REVIEWS"] = str((reviews or reviews_path_for(store)).resolve())
    if house is not None:
        env["OPENERS_HOUSE"] = str(house.resolve())
    typer.echo(f"Dashboard on {store} at http://{address}:{port} (Ctrl+C to stop)")
    # cwd: the app's folder, so Streamlit reads the app's .streamlit/config.toml.
    child = subprocess.Popen(
        streamlit_command(port, address), env=env, cwd=APP_FILE.parent,
        preexec_fn=_die_with_parent,
    )  # fmt: skip

    def stop(signum: int, _frame: object) -> None:
        child.terminate()
        raise SystemExit(128 + signum)

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        return child.wait()
    except KeyboardInterrupt:
        return 0
    finally:
        if child.poll() is None:
            child.terminate()
            try:
                child.wait(timeout=15)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


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
        house: Annotated[
            Path | None,
            typer.Option(
                "--house",
                help="House file whose [review] (reviewers, dismissal reasons, due days) and"
                " [report] (currency) tables apply; default: anyone, as the login user.",
            ),
        ] = None,
    ) -> None:
        """Open the compliance dashboards on a store: findings, cases, hands, dealers, tables."""
        try:
            code = launch(db, port, address, reviews, house)
        except FileNotFoundError as exc:
            typer.echo(str(exc), err=True)
            raise typer.Exit(2) from exc
        raise typer.Exit(code)
