"""Streamlit glue: which store, the one cached connection, cached query results.

The store path comes from ``$OPENERS_DB`` (set by ``openers dashboard``) and the
review file from ``$OPENERS_REVIEWS`` or next to the store. Pages never touch
DuckDB directly: they call :func:`load` with a query name from
:mod:`dashboards.queries` and its parameters; results are cached per store
snapshot and per state of the review file, so a new snapshot or a new review
invalidates exactly what depends on it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from dashboards import analytics, queries
from dashboards.connection import Snapshot, StoreUnavailable, signature, take_snapshot
from dashboards.reviews import reviews_path_for

DEFAULT_STORE = "openers.duckdb"
# analytics registers its queries in queries.QUERIES on import.
_REGISTERED = (analytics,)


def store_path() -> Path:
    """The store the dashboard reads."""
    return Path(os.environ.get("OPENERS_DB", DEFAULT_STORE)).resolve()


def reviews_path() -> Path:
    """The review file the dashboard writes."""
    env = os.environ.get("OPENERS_REVIEWS")
    return Path(env).resolve() if env else reviews_path_for(store_path())


def _release(snapshot: Snapshot) -> None:
    snapshot.close()


@st.cache_resource(max_entries=2, on_release=_release, show_spinner="Opening the store…")
def _snapshot(store: str, token: str) -> Snapshot:
    path = Path(store)
    current = signature(path)
    # The file may have changed since the caller read its signature; the copy
    # is whatever state the store is in now, named after what was asked for.
    snap = take_snapshot(path, current)
    snap.token = token
    return snap


_last_token: dict[str, str] = {}


def snapshot() -> Snapshot:
    """The cached read-only connection on the current (or last readable) state of the store."""
    path = store_path()
    token = signature(path).token()
    try:
        snap = _snapshot(str(path), token)
    except StoreUnavailable:
        previous = _last_token.get(str(path))
        if previous is None:
            raise
        # A writer holds the store: keep serving the last snapshot.
        return _snapshot(str(path), previous)
    _last_token[str(path)] = token
    return snap


def _reviews_token(path: Path) -> str:
    # The path is part of the token: two review files may share a size and mtime.
    parts = [str(path)]
    for item in (path, Path(f"{path}-wal")):
        if item.exists():
            stat = item.stat()
            parts.append(f"{stat.st_size}:{stat.st_mtime_ns}")
    return "|".join(parts)


@st.cache_data(max_entries=512, show_spinner=False)
def _cached(
    _snap: Snapshot, store_key: str, reviews_token: str, name: str, params: dict[str, Any]
) -> pd.DataFrame:
    ctx = queries.Context(_snap.con.cursor(), reviews_path())
    try:
        return queries.QUERIES[name](ctx, **params)
    finally:
        ctx.con.close()


def load(name: str, **params: Any) -> pd.DataFrame:
    """Run query ``name`` with ``params`` on the current snapshot, cached."""
    snap = snapshot()
    rtoken = _reviews_token(reviews_path()) if queries.QUERIES[name].uses_reviews else ""
    return _cached(snap, f"{snap.store}|{snap.token}", rtoken, name, params)


def guard() -> Snapshot | None:
    """The snapshot, or ``None`` after showing why the store cannot be read."""
    try:
        snap = snapshot()
    except StoreUnavailable as exc:
        st.error(f"Cannot read the store {store_path()}: {exc}. Retry in a moment.")
        return None
    if snap.token != signature(store_path()).token():
        st.info(
            f"The store is being written (nightly job); showing it as of "
            f"{snap.taken_at:%Y-%m-%d %H:%M:%S} UTC."
        )
    return snap
