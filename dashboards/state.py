"""Streamlit glue: which store, the one cached connection, cached query results.

The store path comes from ``$OPENERS_DB`` (set by ``openers dashboard``) and the
review file from ``$OPENERS_REVIEWS`` or next to the store. Pages never touch
DuckDB directly: they call :func:`load` with a query name from
:mod:`dashboards.queries` and its parameters; results are cached per store
snapshot and per state of the review file, so a new snapshot or a new review
invalidates exactly what depends on it.
"""

from __future__ import annotations

import atexit
import os
import threading
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from dashboards import analytics, browser, hand_queries, queries
from dashboards.connection import Snapshot, StoreUnavailable, signature, take_snapshot
from dashboards.reviews import reviews_path_for
from dashboards.text import md
from schemas.office import Office, load_office

DEFAULT_STORE = "openers.duckdb"
# analytics, browser and hand_queries register their queries in queries.QUERIES on import.
_REGISTERED = (analytics, browser, hand_queries)


def store_path() -> Path:
    """The store the dashboard reads."""
    return Path(os.environ.get("OPENERS_DB", DEFAULT_STORE)).resolve()


def reviews_path() -> Path:
    """The review file the dashboard writes."""
    env = os.environ.get("OPENERS_REVIEWS")
    return Path(env).resolve() if env else reviews_path_for(store_path())


def house_path() -> Path | None:
    """The house file whose [review] and [report] settings apply (``$OPENERS_HOUSE``)."""
    env = os.environ.get("OPENERS_HOUSE")
    return Path(env).resolve() if env else None


def office() -> Office:
    """The house's reviewers, dismissal reasons, due days and currency."""
    return load_office(house_path())


def _release(snapshot: Snapshot) -> None:
    snapshot.close()


@atexit.register
def _close_all() -> None:
    # Streamlit does not release cached resources at exit; the copies must go.
    _snapshot.clear()


@st.cache_resource(max_entries=2, on_release=_release, show_spinner="Opening the store…")
def _snapshot(store: str, token: str) -> Snapshot:
    path = Path(store)
    current = signature(path)
    # The file may have changed since the caller read its signature; the copy
    # is whatever state the store is in now, named after what was asked for.
    snap = take_snapshot(path, current)
    snap.token = token
    return snap


# Per store: the token of the snapshot being served, and the thread preparing a newer one.
_last_token: dict[str, str] = {}
_builders: dict[str, tuple[str, threading.Thread]] = {}
_lock = threading.Lock()


def _build(store: str, token: str) -> None:
    try:
        _snapshot(store, token)
    except StoreUnavailable:
        return  # a writer holds the store: the next page load tries again
    with _lock:
        _last_token[store] = token


def snapshot() -> Snapshot:
    """The cached read-only connection on the current (or last readable) state of the store.

    The first snapshot of a store is taken while the page waits. When the store
    changes later (the nightly run), the new snapshot is prepared in a background
    thread and the previous one is served until it is ready, so no page waits for
    the copy of a million hands.
    """
    path = store_path()
    key = str(path)
    token = signature(path).token()
    with _lock:
        previous = _last_token.get(key)
        if previous is not None and previous != token:
            running = _builders.get(key)
            if running is None or not running[1].is_alive():
                builder = threading.Thread(target=_build, args=(key, token), daemon=True)
                _builders[key] = (token, builder)
                builder.start()
    if previous is not None:
        return _snapshot(key, previous)
    snap = _snapshot(key, token)
    with _lock:
        _last_token[key] = token
    return snap


def wait_for_refresh(timeout: float = 120.0) -> None:
    """Block until a snapshot being prepared in the background is ready (tests, scripts)."""
    with _lock:
        running = _builders.get(str(store_path()))
    if running is not None:
        running[1].join(timeout)


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
    ctx = queries.Context(_snap.con.cursor(), reviews_path(), dict(office().due_days))
    try:
        return queries.QUERIES[name](ctx, **params)
    finally:
        ctx.con.close()


def load(name: str, **params: Any) -> pd.DataFrame:
    """Run query ``name`` with ``params`` on the current snapshot, cached."""
    snap = snapshot()
    rtoken = (
        f"{_reviews_token(reviews_path())}|{house_path()}"
        if queries.QUERIES[name].uses_reviews
        else ""
    )
    return _cached(snap, f"{snap.store}|{snap.token}", rtoken, name, params)


def room_offset() -> int:
    """The room's UTC offset in minutes (instants are shown on the room's clock)."""
    return int(load("room_offset")["minutes"].iloc[0])


def guard() -> Snapshot | None:
    """The snapshot, or ``None`` after showing why the store cannot be read."""
    try:
        snap = snapshot()
    except StoreUnavailable as exc:
        st.error(f"Cannot read the store {md(store_path())}: {md(exc)}. Retry in a moment.")
        return None
    if snap.token != signature(store_path()).token():
        st.info(
            f"The store has changed (nightly job); showing it as of "
            f"{snap.taken_at:%Y-%m-%d %H:%M:%S} UTC while the new state is prepared."
        )
    return snap
