"""The SQL page's engine: any query an officer types, unable to write anything anywhere.

Each query runs on a fresh in-memory DuckDB that attaches the dashboard's snapshot
copy ``READ_ONLY`` and then, before the query, turns off every access outside the
process (``enable_external_access = false``: no COPY TO, ATTACH of another file,
reading files, installing or loading extensions) and locks the configuration so
the query cannot turn it back on. The store itself is never opened here, and the
copy cannot be written. What the query can still create lives in the throw-away
in-memory database and dies with it.

A row limit (rows past it are not fetched) and a timeout (``interrupt`` from a
timer) bound what one query costs.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pandas as pd

#: Defaults and ceilings of the page's limits.
DEFAULT_ROWS, MAX_ROWS = 1_000, 10_000
DEFAULT_SECONDS, MAX_SECONDS = 10.0, 60.0
#: Memory one query may use.
MEMORY_LIMIT = "2GB"


class QueryRefused(RuntimeError):
    """The query failed: refused (a write, a file), wrong, or stopped at the timeout."""


@dataclass(frozen=True)
class QueryResult:
    """The first rows of a query's result."""

    frame: pd.DataFrame
    truncated: bool
    seconds: float


def _sandbox(database: Path) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(":memory:")
    try:
        con.execute(f"SET memory_limit = '{MEMORY_LIMIT}'")
        con.execute("ATTACH ? AS store (READ_ONLY)", [str(database)])
        con.execute("USE store")
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
    except BaseException:
        con.close()
        raise
    return con


def run_query(
    database: Path, sql: str, max_rows: int = DEFAULT_ROWS, seconds: float = DEFAULT_SECONDS
) -> QueryResult:
    """Run ``sql`` read-only on ``database`` (a snapshot copy); at most ``max_rows`` rows.

    Raises :class:`QueryRefused` with DuckDB's reason (or the timeout) on failure.
    """
    max_rows = max(1, min(int(max_rows), MAX_ROWS))
    seconds = max(0.1, min(float(seconds), MAX_SECONDS))
    con = _sandbox(database)
    timer = threading.Timer(seconds, con.interrupt)
    started = time.perf_counter()
    timer.start()
    try:
        cursor = con.execute(sql)
        if cursor.description is None:
            return QueryResult(pd.DataFrame(), False, time.perf_counter() - started)
        columns = [d[0] for d in cursor.description]
        rows = cursor.fetchmany(max_rows + 1)
    except duckdb.InterruptException as exc:
        raise QueryRefused(f"stopped after the {seconds:g} s timeout") from exc
    except duckdb.Error as exc:
        raise QueryRefused(str(exc)) from exc
    finally:
        timer.cancel()
        con.close()
    frame = pd.DataFrame(rows[:max_rows], columns=columns, dtype=object)
    return QueryResult(frame, len(rows) > max_rows, time.perf_counter() - started)
