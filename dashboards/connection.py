"""Read-only access to the store without ever holding the nightly job's file.

DuckDB locks a database file per process: while any process has it open (even
read-only), no other process can open it for writing. A dashboard left open
overnight on the store itself would make the nightly job fail on the lock. So
the dashboard reads a *snapshot*: it opens the store read-only only for the
moment it takes to copy the file (and its WAL), then serves every page from
one read-only connection on the copy. When the store changes (size or mtime),
the next page load takes a new snapshot; if the job is writing at that moment,
the previous snapshot keeps being served and the page says since when.

The copy is the dashboard's own, so before serving it the ``mart_*`` views are
turned into tables there (:data:`MATERIALIZED`, in dependency order): the
store's marts stay views, always current, and the pages read precomputed
tables, so even a page's first render is fast on a million hands.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from schemas.store import DDL_DIR

_SNAPSHOT_ROOT = Path(tempfile.gettempdir()) / "openers-dashboard"
MARTS_DDL = DDL_DIR / "50_marts.sql"

#: Marts computed once per snapshot, each after the marts it reads. ``mart_hand_text``
#: (the raw logs) stays a view: it is only ever read one hand at a time.
MATERIALIZED: tuple[str, ...] = (
    "mart_hands",
    "mart_findings",
    "mart_totals",
    "mart_daily",
    "mart_findings_by_code",
    "mart_findings_by_table",
    "mart_unverifiable_by_code",
    "mart_dealer_hands_daily",
    "mart_dealer_findings_daily",
    "mart_table_deals",
    "mart_table_days",
    "mart_player_hands",
    "mart_player_actions",
    "mart_player_false_openers",
    "mart_player_findings",
    "mart_unit_hands_daily",
    "mart_unit_flagged_daily",
)


class StoreUnavailable(RuntimeError):
    """The store cannot be read: missing, or locked by a writer with no earlier snapshot."""


@dataclass(frozen=True)
class Signature:
    """What identifies one state of the store file on disk."""

    size: int
    mtime_ns: int
    wal_size: int
    wal_mtime_ns: int

    def token(self) -> str:
        """A short string naming this state, used in cache keys and snapshot names."""
        raw = f"{self.size}:{self.mtime_ns}:{self.wal_size}:{self.wal_mtime_ns}"
        return hashlib.sha256(raw.encode()).hexdigest()[:16]


def signature(store: Path) -> Signature:
    """The store's current on-disk state (raises ``StoreUnavailable`` if it is missing)."""
    try:
        main = store.stat()
    except OSError as exc:
        raise StoreUnavailable(f"no store at {store}") from exc
    wal = Path(f"{store}.wal")
    wal_stat = wal.stat() if wal.exists() else None
    return Signature(
        main.st_size,
        main.st_mtime_ns,
        wal_stat.st_size if wal_stat else 0,
        wal_stat.st_mtime_ns if wal_stat else 0,
    )


@dataclass
class Snapshot:
    """One read-only connection on a copy of the store taken at ``taken_at``."""

    store: Path
    path: Path
    token: str
    taken_at: datetime
    con: duckdb.DuckDBPyConnection

    def close(self) -> None:
        """Close the connection and delete the copy."""
        try:
            self.con.close()
        finally:
            for leftover in (self.path, Path(f"{self.path}.wal")):
                leftover.unlink(missing_ok=True)


def _snapshot_dir(store: Path) -> Path:
    digest = hashlib.sha256(str(store.resolve()).encode()).hexdigest()[:12]
    return _SNAPSHOT_ROOT / digest


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_orphans(directory: Path) -> None:
    """Delete snapshot copies left by dashboard processes that are gone (killed, crashed)."""
    for leftover in directory.glob("*.duckdb*"):
        parts = leftover.name.split("-")
        if len(parts) >= 3 and parts[1].isdigit() and not _alive(int(parts[1])):
            leftover.unlink(missing_ok=True)


def take_snapshot(store: Path, sig: Signature) -> Snapshot:
    """Copy the store under a shared read lock and open the copy read-only.

    Raises ``StoreUnavailable`` when a writer holds the store. Copies are named
    after the process that made them, so one left by a dead process is removed here.
    """
    target_dir = _snapshot_dir(store)
    target_dir.mkdir(parents=True, exist_ok=True)
    remove_orphans(target_dir)
    target = target_dir / f"{sig.token()}-{os.getpid()}-{datetime.now(UTC):%H%M%S%f}.duckdb"
    try:
        # The read-only connection is the lock: no writer can change the file
        # while it is open, so the copy is one consistent state.
        guard = duckdb.connect(str(store), read_only=True)
    except (duckdb.IOException, duckdb.Error) as exc:
        raise StoreUnavailable(f"the store is being written ({exc.__class__.__name__})") from exc
    try:
        shutil.copyfile(store, target)
        wal = Path(f"{store}.wal")
        if wal.exists():
            shutil.copyfile(wal, Path(f"{target}.wal"))
    finally:
        guard.close()
    try:
        materialize(target)
        con = duckdb.connect(str(target), read_only=True)
    except BaseException:
        for leftover in (target, Path(f"{target}.wal")):
            leftover.unlink(missing_ok=True)
        raise
    return Snapshot(store, target, sig.token(), datetime.now(UTC), con)


def materialize(copy: Path) -> None:
    """Replace each mart view of a snapshot copy by a table of its rows (never the store).

    The marts are defined afresh on the copy first, so a store last written by an
    older version is shown with the current marts.
    """
    con = duckdb.connect(str(copy))
    try:
        con.execute("SET enable_progress_bar = false")
        con.begin()
        con.execute(MARTS_DDL.read_text(encoding="utf-8"))
        for name in MATERIALIZED:
            con.execute(f"CREATE TABLE _materialized AS SELECT * FROM {name}")
            con.execute(f"DROP VIEW {name}")
            con.execute(f"ALTER TABLE _materialized RENAME TO {name}")
        con.commit()
        con.execute("CHECKPOINT")
    finally:
        con.close()
