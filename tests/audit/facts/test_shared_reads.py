"""A read kept in files gives each batch the arrays a direct read gives it, and goes away."""

from __future__ import annotations

import os
import pickle
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from audit.facts.shared_reads import shared_reads
from audit.facts.staging import StagingLabels, fetch_staging, staging_arrays, warm_up
from audit.facts.staging_kernels import fill_events, fill_hands, fill_seats, place, tally
from ingest.load import ingest_paths
from ingest.scan.layout import HandArrays
from schemas.store import connect
from tests.audit.corpus import corpus


def test_batches_of_a_shared_read_are_the_direct_reads(tmp_path: Path) -> None:
    warm_up()  # as the store audit does before it forks its workers
    room = corpus("foster", hands=300, seed=5, violations=0.3)
    db = tmp_path / "store.duckdb"
    ingest_paths([str(f) for f in room.files], str(db))
    con = connect(str(db))
    try:
        ids = [row[0] for row in con.execute(
            "SELECT hand_id FROM stg_hands ORDER BY table_id, time, hand_id").fetchall()]
        # Groups as the audit makes them, and one given in the store's reverse order.
        groups = [ids[:90], ids[90:91], list(reversed(ids[91:200])), ids[200:]]
        expected = fetch_staging(con, groups)
        with shared_reads() as reads:
            staged = reads.stage(con, groups)
            files = sorted(reads.folder.iterdir())
            assert len(files) == 3
            for group, want in zip(staged, expected, strict=True):
                # A batch travels as the read's name and its hands' range, not its rows.
                shipped = pickle.dumps(group)
                assert len(shipped) < 300
                got = pickle.loads(shipped).rows()
                assert (got.first, got.count) == (want.first, want.count)
                _same_arrays(staging_arrays(got), staging_arrays(want))
            # Mapped or not, the buffers reach the compiled passes as one type each: what
            # warm_up() compiled before the workers fork is all they ever use.
            kernels: tuple[Any, ...] = (tally, place, fill_hands, fill_seats, fill_events)
            assert {len(kernel.signatures) for kernel in kernels} == {1}
            for group in staged[:-1]:
                reads.done(group)
            assert sorted(reads.folder.iterdir()) == files  # a batch of the read is left
            reads.done(staged[-1])
            assert list(reads.folder.iterdir()) == []
            folder = reads.folder
        assert not folder.exists()
    finally:
        con.close()


def _same_arrays(got: tuple[HandArrays, StagingLabels],
                 want: tuple[HandArrays, StagingLabels]) -> None:
    for name in ("hands", "seats", "events", "cards"):
        assert np.array_equal(getattr(got[0], name), getattr(want[0], name)), name
    assert got[1].hand_ids.equals(want[1].hand_ids)
    for hand in range(len(got[0])):
        assert got[1].player_id(hand, 1) == want[1].player_id(hand, 1)


def test_a_killed_audits_reads_go_with_the_next_audit(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    dead = tmp_path / f"openers-audit-reads-{_ended_pid()}-x1"
    dead.mkdir()
    (dead / "read-1.hands.arrow").write_bytes(b"x")
    mine = tmp_path / f"openers-audit-reads-{os.getpid()}-x2"  # a live audit's
    mine.mkdir()
    with shared_reads() as reads:
        assert reads.folder.parent == tmp_path
        assert not dead.exists()
        assert mine.exists()


def _ended_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid
