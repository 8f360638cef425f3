"""Which inbox files hold something the store has not read yet.

The store remembers, per file path, how many bytes it has read and the SHA-256
of those bytes (``ops_inbox_files``). On the next run a file is:

- ``skip``: its content is what was read already (same hash over the same
  size), or the same content was read under another path (a file moved or
  copied into the inbox again);
- ``grown``: its first ``size`` bytes still hash to what was read, and it is
  longer: only the bytes after them are read (a table system appending hands);
- ``new`` / ``changed``: never seen, or rewritten; the whole file is read, and
  hands the store already holds come back as duplicates, never as second copies.

Compressed files are never read from an offset (an offset into a gzip stream
is no place to start); a ``.gz`` that changed is read again in full.

Hashing every known file again each night costs what the inbox's history weighs (3.5 s
for the 2,600 files of a million hands), so each hash is remembered with the file's stat
(size, modification and change times in nanoseconds, inode, device; ``ops_inbox_stats``):
a file whose stat is the remembered one is not read, its remembered hash stands for the
one it would give. Anything that differs and the file is hashed, as when nothing was
remembered; a rewrite at equal size and mtime still changes the change time, which no
one can set. A file changed less than :data:`_RACY_SECONDS` before the plan began is not
remembered (a write in the same tick of the file system's clock may leave its stat as
it was).
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import NamedTuple

import duckdb
import pyarrow as pa

from ingest.paths import is_log_name

_CHUNK = 1 << 20


class InboxError(RuntimeError):
    """An inbox path cannot be read (missing, not a directory or file, no permission)."""


class FileAction(StrEnum):
    """What the run does with one inbox file."""

    NEW = "new"
    GROWN = "grown"
    CHANGED = "changed"
    SKIP = "skip"


@dataclass(frozen=True)
class FilePlan:
    """One inbox file: what to do with it, and from where to read it.

    ``start``/``start_line`` are where reading begins (0/1, or where the last run
    stopped). ``complete_only`` holds back a last hand that no blank line follows
    yet, because the file was modified too recently to be taken as finished.
    """

    path: Path
    action: FileAction
    start: int
    start_line: int
    size: int
    sha256: str
    complete_only: bool

    @property
    def pending(self) -> bool:
        """Whether the run has anything to read from this file."""
        return self.action is not FileAction.SKIP

    @property
    def compressed(self) -> bool:
        """A ``.gz`` file: always read whole, never from an offset."""
        return self.path.name.lower().endswith(".gz")


def list_inbox(inboxes: Sequence[Path]) -> list[Path]:
    """Every hand log under the inbox paths, sorted, without repeats.

    A path may be a directory (searched recursively for the log names ``openers
    ingest`` reads from a folder, hidden files and folders left out) or a single
    file (always read). Raises
    :class:`InboxError` for a path that does not exist or cannot be listed.
    """
    found: dict[Path, None] = {}
    real_dirs: dict[str, str] = {}
    for inbox in inboxes:
        if inbox.is_file():
            found[inbox.resolve()] = None
            continue
        if not inbox.is_dir():
            raise InboxError(f"inbox {inbox} does not exist or is not a directory")
        try:
            entries = sorted(inbox.rglob("*"))
        except OSError as exc:
            raise InboxError(f"inbox {inbox} cannot be listed: {exc.strerror or exc}") from exc
        for entry in entries:
            relative = entry.relative_to(inbox)
            if any(part.startswith(".") for part in relative.parts):
                continue
            if entry.is_file() and is_log_name(entry.name):
                found[_resolved(entry, real_dirs)] = None
    return sorted(found)


#: Links followed one by one before :func:`_resolved` leaves a chain to ``Path.resolve``.
_MAX_LINKS = 8


def _resolved(path: Path, real_dirs: dict[str, str]) -> Path:
    """``path.resolve()`` of an existing file, each folder on the way resolved once
    (``real_dirs``): resolving each of 2,600 links in one folder walked every folder of
    both paths again, a fifth of a second of a night's planning."""
    text = str(path)
    for _ in range(_MAX_LINKS):
        head, name = os.path.split(text)
        if name in ("", ".", ".."):
            break
        real_head = real_dirs.get(head)
        if real_head is None:
            real_head = real_dirs[head] = os.path.realpath(head)
        full = os.path.join(real_head, name)
        if not os.path.islink(full):
            return Path(full)
        text = os.path.join(real_head, os.readlink(full))  # absolute, or from its folder
    return path.resolve()


def _hash_file(path: Path, prefix: int | None) -> tuple[int, str, str | None]:
    """Hash ``path`` up to its current size, and its first ``prefix`` bytes on the way.

    Returns (size hashed, hash of all of it, hash of the prefix or None when the
    file is shorter than the prefix).
    """
    try:
        size = path.stat().st_size
        whole = hashlib.sha256()
        prefix_hash: str | None = None
        done = 0
        with path.open("rb") as handle:
            if prefix == 0:
                prefix_hash = whole.hexdigest()
            while done < size:
                want = min(_CHUNK, size - done)
                if prefix is not None and done < prefix < done + want:
                    want = prefix - done  # stop exactly on the prefix boundary
                chunk = handle.read(want)
                if not chunk:
                    break  # truncated while being read: hash what is there
                whole.update(chunk)
                done += len(chunk)
                if prefix is not None and done == prefix:
                    prefix_hash = whole.hexdigest()
    except OSError as exc:
        raise InboxError(f"inbox file {path} cannot be read: {exc.strerror or exc}") from exc
    return done, whole.hexdigest(), prefix_hash


def plan_files(
    con: duckdb.DuckDBPyConnection,
    files: Iterable[Path],
    *,
    settle_seconds: float,
    now: float | None = None,
) -> list[FilePlan]:
    """Decide, for each file, whether to skip it or from where to read it.

    A file last modified ``settle_seconds`` or more ago is finished: its last hand
    is read even without a blank line after it.
    """
    known = {
        row[0]: (int(row[1]), int(row[2]), str(row[3]))
        for row in con.execute(
            "SELECT path, read_bytes, next_line, sha256 FROM ops_inbox_files"
        ).fetchall()
    }
    read_whole = {(offset, sha) for offset, _, sha in known.values()}
    clock = time.time() if now is None else now
    hashes = _remembered_hashes(con)
    hashed: list[tuple[Path, FileStat, str]] = []
    plans: list[FilePlan] = []
    for path in files:
        previous = known.get(str(path))
        compressed = path.name.lower().endswith(".gz")
        prefix = previous[0] if previous is not None and not compressed else None
        stat = file_stat(path)
        remembered = hashes.get(str(path))
        if remembered is not None and remembered[0] == stat and prefix in (None, stat.size):
            # Unchanged since it was hashed: what _hash_file would give, without reading.
            size, sha = stat.size, remembered[1]
            prefix_sha = sha if prefix is not None else None
        else:
            size, sha, prefix_sha = _hash_file(path, prefix)
            if size == stat.size and clock - stat.changed_ns / 1e9 >= _RACY_SECONDS:
                hashed.append((path, stat, sha))
        start, start_line = 0, 1
        if previous is not None and compressed and (size, sha) == (previous[0], previous[2]):
            action = FileAction.SKIP
        elif previous is not None and prefix_sha == previous[2]:
            unchanged = size == previous[0] or _blank_tail(path, previous[0], size)
            action = FileAction.SKIP if unchanged else FileAction.GROWN
            start, start_line = previous[0], previous[1]
        elif (size, sha) in read_whole:
            action = FileAction.SKIP  # the same content was read under another path
        else:
            action = FileAction.CHANGED if previous is not None else FileAction.NEW
        settled = clock - _mtime(path) >= settle_seconds
        if action in (FileAction.NEW, FileAction.CHANGED) and not settled and not compressed \
                and not _has_complete_hand(path):
            action = FileAction.SKIP  # its first hand is still being written: wait for it
        plans.append(
            FilePlan(path, action, start, start_line, size, sha, complete_only=not settled)
        )
    _remember_hashes(con, hashed)
    return plans


#: A file changed less than this many seconds before the plan began is not remembered by
#: its stat (see the module docstring): the clock of a file's times ticks coarsely.
_RACY_SECONDS = 2.0


class FileStat(NamedTuple):
    """What a file's stat says of its content: any write changes one of them."""

    size: int
    mtime_ns: int
    ctime_ns: int
    inode: int
    device: int

    @property
    def changed_ns(self) -> int:
        """When the file was last changed (its content, or its stat by hand)."""
        return max(self.mtime_ns, self.ctime_ns)


def file_stat(path: Path) -> FileStat:
    """The stat of ``path`` (links followed)."""
    try:
        st = path.stat()
    except OSError as exc:
        raise InboxError(f"inbox file {path} cannot be read: {exc.strerror or exc}") from exc
    return FileStat(st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)


def _remembered_hashes(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[FileStat, str]]:
    """Each remembered file's stat when it was hashed, and its hash."""
    rows = con.execute("SELECT path, size, mtime_ns, ctime_ns, inode, device, sha256 "
                       "FROM ops_inbox_stats").fetchall()
    return {row[0]: (FileStat(*(int(v) for v in row[1:6])), str(row[6])) for row in rows}


def _remember_hashes(con: duckdb.DuckDBPyConnection,
                     hashed: Sequence[tuple[Path, FileStat, str]]) -> None:
    """Remember the hashes just computed with their files' stats (one statement)."""
    if not hashed:
        return
    columns = list(zip(*((str(path), *stat, sha) for path, stat, sha in hashed), strict=True))
    names = ("path", "size", "mtime_ns", "ctime_ns", "inode", "device", "sha256")
    types = (pa.string(), pa.int64(), pa.int64(), pa.int64(), pa.uint64(), pa.uint64(),
             pa.string())
    _inbox_stats = pa.table(  # named in the statement (DuckDB scans the variable)
        [pa.array(values, kind) for values, kind in zip(columns, types, strict=True)],
        names=list(names))
    con.execute(f"INSERT OR REPLACE INTO ops_inbox_stats SELECT {', '.join(names)} "
                "FROM _inbox_stats")


#: A tail longer than this is never only blank lines: it is read (and may hold nothing).
_BLANK_TAIL_MAX = 1 << 16


def _blank_tail(path: Path, offset: int, size: int) -> bool:
    """Whether the bytes after what was read are only the blank lines that ended it."""
    if size - offset > _BLANK_TAIL_MAX:
        return False
    try:
        with path.open("rb") as handle:
            handle.seek(offset)
            return not handle.read(size - offset).strip()
    except OSError as exc:
        raise InboxError(f"inbox file {path} cannot be read: {exc.strerror or exc}") from exc


_SEPARATOR = re.compile(rb"\S[^\n]*\n(?:[ \t\f\v]*\r?\n)+")


def _has_complete_hand(path: Path) -> bool:
    """Whether some text in the file is followed by a blank line (a hand is complete)."""
    try:
        with path.open("rb") as handle:
            tail = b""
            while block := handle.read(_CHUNK):
                # Keep a little of the previous block: a separator may straddle two.
                if _SEPARATOR.search(tail + block):
                    return True
                tail = block[-256:]
    except OSError as exc:
        raise InboxError(f"inbox file {path} cannot be read: {exc.strerror or exc}") from exc
    return False


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError as exc:
        raise InboxError(f"inbox file {path} cannot be read: {exc.strerror or exc}") from exc


def prefix_sha256(path: Path, length: int) -> str:
    """The SHA-256 of the first ``length`` bytes of ``path``."""
    _, _, digest = _hash_file(path, length)
    if digest is None:
        raise InboxError(f"inbox file {path} shrank while it was being read")
    return digest


@dataclass(frozen=True)
class FileRecord:
    """How far the store now holds one inbox file."""

    path: Path
    read_bytes: int
    next_line: int
    sha256: str


def record_file(
    con: duckdb.DuckDBPyConnection,
    path: Path,
    *,
    read_bytes: int,
    next_line: int,
    sha256: str,
    run_id: int,
) -> None:
    """Remember that the store now holds ``path`` up to ``read_bytes`` bytes."""
    record_files(con, [FileRecord(path, read_bytes, next_line, sha256)], run_id=run_id)


def record_files(con: duckdb.DuckDBPyConnection, files: Sequence[FileRecord], *,
                 run_id: int) -> None:
    """Remember how far the store now holds each of ``files`` (one statement for all)."""
    if not files:
        return
    con.register("_inbox_files", pa.table({
        "path": pa.array([str(f.path) for f in files], pa.string()),
        "read_bytes": pa.array([f.read_bytes for f in files], pa.int64()),
        "next_line": pa.array([f.next_line for f in files], pa.int64()),
        "sha256": pa.array([f.sha256 for f in files], pa.string()),
    }))
    try:
        con.execute(
            """
            INSERT INTO ops_inbox_files
                (path, read_bytes, next_line, sha256, first_run_id, last_run_id, updated_at)
            SELECT path, read_bytes, next_line, sha256, ?, ?, ? FROM _inbox_files
            ON CONFLICT (path) DO UPDATE SET
                read_bytes = excluded.read_bytes, next_line = excluded.next_line,
                sha256 = excluded.sha256, last_run_id = excluded.last_run_id,
                updated_at = excluded.updated_at
            """,
            [run_id, run_id, datetime.now(UTC)],
        )
    finally:
        con.unregister("_inbox_files")
