"""Planning an inbox: new, grown, changed, unchanged and moved files."""

from __future__ import annotations

import gzip
import hashlib
import os

import pytest

from openers.nightly.inbox import (
    FileAction,
    InboxError,
    list_inbox,
    plan_files,
    prefix_sha256,
    record_file,
)
from schemas.store import connect


@pytest.fixture
def con(tmp_path):
    con = connect(tmp_path / "store.duckdb")
    yield con
    con.close()


def _plan(con, inbox, settle=0.0):
    return {p.path.name: p for p in plan_files(con, list_inbox([inbox]), settle_seconds=settle)}


def _record_whole(con, plan):
    record_file(con, plan.path, read_bytes=plan.size, next_line=9, sha256=plan.sha256, run_id=1)


def test_list_inbox_recurses_skips_hidden_and_rejects_missing(tmp_path):
    (tmp_path / "in" / "sub").mkdir(parents=True)
    (tmp_path / "in" / "a.log").write_text("x")
    (tmp_path / "in" / "sub" / "b.log").write_text("y")
    (tmp_path / "in" / ".partial.log").write_text("z")
    (tmp_path / "in" / "README.md").write_text("not a log")
    names = [p.name for p in list_inbox([tmp_path / "in"])]
    assert names == ["a.log", "b.log"]
    assert [p.name for p in list_inbox([tmp_path / "in" / "README.md"])] == ["README.md"]
    with pytest.raises(InboxError, match="does not exist"):
        list_inbox([tmp_path / "missing"])


def test_new_skip_grown_changed(con, tmp_path):
    inbox = tmp_path / "in"
    inbox.mkdir()
    log = inbox / "t1.log"
    log.write_bytes(b"first hand\n\n")
    plan = _plan(con, inbox)["t1.log"]
    assert (plan.action, plan.start) == (FileAction.NEW, 0)
    _record_whole(con, plan)

    assert _plan(con, inbox)["t1.log"].action is FileAction.SKIP

    with log.open("ab") as handle:
        handle.write(b"second hand\n\n")
    grown = _plan(con, inbox)["t1.log"]
    assert (grown.action, grown.start, grown.start_line) == (FileAction.GROWN, 12, 9)

    log.write_bytes(b"rewritten!!!\n\nmore")
    changed = _plan(con, inbox)["t1.log"]
    assert (changed.action, changed.start) == (FileAction.CHANGED, 0)


def test_same_content_under_another_path_is_skipped(con, tmp_path):
    inbox = tmp_path / "in"
    inbox.mkdir()
    (inbox / "a.log").write_bytes(b"hand\n\n")
    _record_whole(con, _plan(con, inbox)["a.log"])
    (inbox / "copy.log").write_bytes(b"hand\n\n")
    assert _plan(con, inbox)["copy.log"].action is FileAction.SKIP


def test_gz_is_never_read_from_an_offset(con, tmp_path):
    inbox = tmp_path / "in"
    inbox.mkdir()
    path = inbox / "t.log.gz"
    path.write_bytes(gzip.compress(b"hand one\n\n"))
    plan = _plan(con, inbox)["t.log.gz"]
    _record_whole(con, plan)
    assert _plan(con, inbox)["t.log.gz"].action is FileAction.SKIP
    with path.open("ab") as handle:  # a second gzip member: the file grew
        handle.write(gzip.compress(b"hand two\n\n"))
    again = _plan(con, inbox)["t.log.gz"]
    assert (again.action, again.start) == (FileAction.CHANGED, 0)


def test_recent_files_hold_back_their_last_hand(con, tmp_path):
    inbox = tmp_path / "in"
    inbox.mkdir()
    log = inbox / "t.log"
    log.write_bytes(b"hand\n")
    assert _plan(con, inbox, settle=300)["t.log"].complete_only
    old = log.stat().st_mtime - 600
    os.utime(log, (old, old))
    assert not _plan(con, inbox, settle=300)["t.log"].complete_only


def test_prefix_sha256(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"abcdefgh" * 300_000)  # spans several read chunks
    assert prefix_sha256(path, 5) == hashlib.sha256(b"abcde").hexdigest()
    assert prefix_sha256(path, 2_400_000) == hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.raises(InboxError):
        prefix_sha256(path, 2_400_001)
