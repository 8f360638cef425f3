"""Planning an inbox from remembered hashes: a file whose stat is the one it was hashed
with is not read again; any other is hashed, and decided as if nothing were remembered."""

from __future__ import annotations

import os
import time

import pytest

from openers.nightly import inbox as inbox_module
from openers.nightly.inbox import FileAction, list_inbox, plan_files, record_file
from schemas.store import connect


@pytest.fixture
def con(tmp_path):
    con = connect(tmp_path / "store.duckdb")
    yield con
    con.close()


#: A plan made this long after the files were written: they are old enough to be
#: remembered (a plan right after a write does not trust the file's stat).
LATER = 60.0


def _plan(con, inbox, later=LATER):
    plans = plan_files(con, list_inbox([inbox]), settle_seconds=0.0,
                       now=time.time() + later)
    return {p.path.name: p for p in plans}


def _record_whole(con, plan):
    record_file(con, plan.path, read_bytes=plan.size, next_line=9, sha256=plan.sha256, run_id=1)


def _remembered(con):
    return dict(con.execute("SELECT path, sha256 FROM ops_inbox_stats").fetchall())


@pytest.fixture
def unread(monkeypatch):
    """Count the files hashed (read) by the plans of the test."""
    hashed: list[str] = []
    real = inbox_module._hash_file

    def counting(path, prefix):
        hashed.append(path.name)
        return real(path, prefix)

    monkeypatch.setattr(inbox_module, "_hash_file", counting)
    return hashed


def _inbox(tmp_path, **files: bytes):
    inbox = tmp_path / "in"
    inbox.mkdir()
    for name, text in files.items():
        (inbox / f"{name}.log").write_bytes(text)
    return inbox


def test_an_unchanged_file_is_not_read_again(con, tmp_path, unread):
    inbox = _inbox(tmp_path, a=b"hand one\n\n", b=b"hand two\n\n")
    first = _plan(con, inbox)
    assert sorted(unread) == ["a.log", "b.log"]
    assert set(_remembered(con).values()) == {first["a.log"].sha256, first["b.log"].sha256}
    _record_whole(con, first["a.log"])
    unread.clear()
    again = _plan(con, inbox)
    assert unread == []
    assert again["a.log"].action is FileAction.SKIP
    assert again["b.log"].action is FileAction.NEW  # never recorded: still new
    assert (again["a.log"].size, again["a.log"].sha256) == (first["a.log"].size,
                                                            first["a.log"].sha256)


def test_a_rewrite_of_equal_size_and_mtime_is_still_caught(con, tmp_path, unread):
    inbox = _inbox(tmp_path, a=b"hand one\n\n")
    log = inbox / "a.log"
    _record_whole(con, _plan(con, inbox)["a.log"])
    before = log.stat()
    log.write_bytes(b"hand 1!!\n\n")  # same size
    os.utime(log, ns=(before.st_atime_ns, before.st_mtime_ns))  # same mtime: ctime moves
    assert (log.stat().st_size, log.stat().st_mtime_ns) == (before.st_size,
                                                            before.st_mtime_ns)
    unread.clear()
    plan = _plan(con, inbox)["a.log"]
    assert unread == ["a.log"]
    assert (plan.action, plan.start) == (FileAction.CHANGED, 0)


def test_a_touched_file_is_hashed_skipped_and_remembered_again(con, tmp_path, unread):
    inbox = _inbox(tmp_path, a=b"hand one\n\n")
    log = inbox / "a.log"
    _record_whole(con, _plan(con, inbox)["a.log"])
    os.utime(log, (1_000_000_000, 1_000_000_000))
    unread.clear()
    assert _plan(con, inbox)["a.log"].action is FileAction.SKIP
    assert unread == ["a.log"]
    unread.clear()
    assert _plan(con, inbox)["a.log"].action is FileAction.SKIP
    assert unread == []


def test_a_grown_file_is_read_from_where_the_store_stopped(con, tmp_path, unread):
    inbox = _inbox(tmp_path, a=b"hand one\n\n")
    log = inbox / "a.log"
    _record_whole(con, _plan(con, inbox)["a.log"])
    with log.open("ab") as handle:
        handle.write(b"hand two\n\n")
    grown = _plan(con, inbox)["a.log"]
    assert (grown.action, grown.start, grown.start_line) == (FileAction.GROWN, 10, 9)
    # Remembered whole, but the store holds only its first 10 bytes: their hash is needed.
    unread.clear()
    assert _plan(con, inbox)["a.log"].action is FileAction.GROWN
    assert unread == ["a.log"]


def test_a_file_changed_just_before_the_plan_is_not_remembered(con, tmp_path):
    inbox = _inbox(tmp_path, a=b"hand one\n\n")
    _plan(con, inbox, later=0.0)
    assert _remembered(con) == {}
    _plan(con, inbox)
    assert list(_remembered(con)) == [str((inbox / "a.log").resolve())]


def test_a_copy_under_another_path_is_skipped_without_reading(con, tmp_path, unread):
    inbox = _inbox(tmp_path, a=b"hand\n\n")
    _record_whole(con, _plan(con, inbox)["a.log"])
    (inbox / "copy.log").write_bytes(b"hand\n\n")
    assert _plan(con, inbox)["copy.log"].action is FileAction.SKIP
    unread.clear()
    assert _plan(con, inbox)["copy.log"].action is FileAction.SKIP
    assert unread == []


def test_a_store_without_remembered_hashes_upgrades(tmp_path, unread):
    db = tmp_path / "old.duckdb"
    inbox = _inbox(tmp_path, a=b"hand one\n\n")
    con = connect(db)
    _record_whole(con, _plan(con, inbox)["a.log"])
    con.execute("DROP TABLE ops_inbox_stats")  # a store written before the table was
    con.close()
    con = connect(db)
    try:
        unread.clear()
        assert _plan(con, inbox)["a.log"].action is FileAction.SKIP
        assert unread == ["a.log"]  # hashed once, as before, and remembered
        unread.clear()
        assert _plan(con, inbox)["a.log"].action is FileAction.SKIP
        assert unread == []
    finally:
        con.close()


def test_listed_files_are_named_by_their_resolved_path(tmp_path, monkeypatch):
    real = tmp_path / "real"
    (real / "deep").mkdir(parents=True)
    (real / "a.log").write_text("a")
    (real / "deep" / "b.log").write_text("b")
    (tmp_path / "alias").symlink_to(real)  # a linked folder on the way to a link's target
    inbox = tmp_path / "in"
    (inbox / "sub").mkdir(parents=True)
    (inbox / "plain.log").write_text("p")
    (inbox / "abs.log").symlink_to(real / "a.log")
    (inbox / "rel.log").symlink_to("../real/deep/b.log")
    (inbox / "sub" / "up.log").symlink_to("../../alias/deep/../a.log")
    (inbox / "chain.log").symlink_to(inbox / "rel.log")
    (inbox / "dot.log").symlink_to("./plain.log")
    monkeypatch.chdir(tmp_path)
    for given in (inbox, inbox.relative_to(tmp_path), tmp_path / "in" / "sub" / ".."):
        expected = sorted({p.resolve() for p in inbox.rglob("*.log")})
        assert list_inbox([given]) == expected
    assert len(expected) == 3  # a.log, b.log and plain.log, each once
