"""``openers warmup``: build the compiled code once for this machine, ahead of time."""

from __future__ import annotations

import shutil
import time
from typing import Annotated

import typer


def warmup_command(
    force: Annotated[bool, typer.Option(
        "--force", help="Delete this version's compiled code first and build it again.")] = False,
) -> None:
    """Compile the fast path now (tens of seconds, once), so no check waits for it later.

    The machine code is kept in a per-user cache (~/.cache/openers, or
    $XDG_CACHE_HOME/openers, or $OPENERS_CACHE_DIR), one folder per openers, Python
    and numba version, so a new virtual environment of the same version reuses it.
    What to compile is found in the sources: every module that uses numba and every
    warm_up() they define. Without this command, the first check that needs the code
    builds it and says so.
    """
    from ingest.scan.cache import cache_dir, compile_all, is_compiled, stamp, user_cache_dir

    where = user_cache_dir() or str(cache_dir())
    if force and not user_cache_dir():
        shutil.rmtree(cache_dir(), ignore_errors=True)
    if is_compiled() and not force:
        typer.echo(f"The compiled code is up to date in {where}.")
        return
    typer.echo(f"Compiling the fast path into {where} ...")
    start = time.perf_counter()
    missed = compile_all()
    typer.echo(f"Compiled in {time.perf_counter() - start:.1f} s (sources {stamp()[:12]}).")
    if missed:
        typer.echo(f"{len(missed)} compiled function(s) no warm_up() reaches compile on first "
                   "use: " + ", ".join(missed))


def register(app: typer.Typer) -> None:
    """Add ``openers warmup`` to the app."""
    app.command("warmup")(warmup_command)
