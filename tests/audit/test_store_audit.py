"""The store audit from staging: the same rows as ``--reference``, in any batching, and no
stored hand passed silently when it cannot be audited."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

import audit.store as store
from audit.facts.arrays import TableMemory
from audit.profiles import load_profile
from ingest.load import ingest_paths
from schemas.store import connect
from tests.audit.corpus import corpus


def _rows(con: duckdb.DuckDBPyConnection) -> tuple[list[Any], list[Any], list[Any]]:
    return (
        con.execute("SELECT hand_id, code, line, action_index, seat, message, evidence "
                    "FROM audit_findings ORDER BY ALL").fetchall(),
        con.execute("SELECT hand_id, code, seat, reason FROM audit_unverifiable "
                    "ORDER BY ALL").fetchall(),
        con.execute("SELECT hand_id, table_id, n_findings, n_unverifiable FROM audit_hands "
                    "ORDER BY ALL").fetchall(),
    )


@pytest.mark.parametrize("name", ["robert", "laws"])
def test_staging_and_reference_give_the_same_rows(tmp_path: Path, name: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    room = corpus(name, hands=900, seed=17, violations=0.2, unrecorded=0.05, broken=0.02,
                  tables=4)
    ingest_paths([str(p) for p in room.files], str(tmp_path / "store.duckdb"))
    con = connect(str(tmp_path / "store.duckdb"))
    try:
        profile = load_profile(name)
        whole = store.audit_store(con, profile, workers=1)
        rows = _rows(con)
        assert whole.hands == len(rows[2]) > 800 and whole.findings == len(rows[0]) > 50
        monkeypatch.setattr(store, "BATCH_HANDS", 150)  # several batches, on the pool
        assert store.audit_store(con, profile, workers=2) == whole
        assert _rows(con) == rows
        assert store.audit_store(con, profile, workers=1, fast=False) == whole
        assert _rows(con) == rows
        # Some hands only: their tables' other deals are context, their rows the same.
        some = [h for h, *_ in rows[2][::7]]
        assert store.audit_store(con, profile, some).hands == len(some)
        assert _rows(con) == rows
    finally:
        con.close()


def test_a_stored_hand_without_staging_rows_is_counted_and_reported(tmp_path: Path) -> None:
    room = corpus("robert", hands=60, seed=18, violations=0.0, unrecorded=0.0, tables=2)
    ingest_paths([str(p) for p in room.files], str(tmp_path / "store.duckdb"))
    con = connect(str(tmp_path / "store.duckdb"))
    try:
        (lost,) = con.execute("SELECT hand_id FROM stg_hands LIMIT 1").fetchall()[0]
        for table in ("stg_actions", "stg_seats", "stg_hands"):
            con.execute(f"DELETE FROM {table} WHERE hand_id = ?", [lost])
        summary = store.audit_store(con, load_profile("robert"), workers=1)
        assert summary.unaudited == 1 and summary.errors >= 1
        reasons = {r for (r,) in con.execute(
            "SELECT reason FROM audit_unverifiable WHERE hand_id = ?", [lost]).fetchall()}
        assert reasons == {"the stored hand cannot be audited: it has no staging rows "
                           "(ingest it again)"}
        assert con.execute("SELECT count(*) FROM audit_hands WHERE hand_id = ?",
                           [lost]).fetchone() == (1,)
    finally:
        con.close()


def test_batches_in_kept_memory_give_the_rows_of_fresh_memory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker lays out, replays and checks batch after batch in the same memory
    (``audit.facts.arrays.TableMemory``): nothing of a batch may outlive it."""
    room = corpus("robert", hands=700, seed=23, violations=0.3, unrecorded=0.05, tables=5)
    ingest_paths([str(p) for p in room.files], str(tmp_path / "store.duckdb"))
    con = connect(str(tmp_path / "store.duckdb"))
    try:
        profile = load_profile("robert")
        monkeypatch.setattr(store, "BATCH_HANDS", 90)
        monkeypatch.setattr(store, "READ_HANDS", 200)
        kept = store.audit_store(con, profile, workers=1)
        rows = _rows(con)
        assert kept.findings > 50
        batch = store._audit_batch
        memories: list[TableMemory] = []

        def fresh(work: Any, profile: Any, memory: TableMemory | None = None) -> Any:
            memories.append(TableMemory())
            return batch(work, profile, memories[-1])

        monkeypatch.setattr(store, "_audit_batch", fresh)
        assert store.audit_store(con, profile, workers=1) == kept
        assert len(memories) >= 5
        assert _rows(con) == rows
    finally:
        con.close()


@pytest.mark.parametrize("name", ["robert", "laws"])
def test_batches_cut_inside_tables_give_the_rows_of_whole_tables(
        tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Batches of one hand cut every table everywhere (inside carried pots, kills,
    misdeals), batches of 7 a night's later hands: each carries the deals before it back
    to one that carries nothing forward, and every J code planted is found on exactly the
    hands whole tables give (one deal of context is not enough: J506 follows a carried
    pot back)."""
    from openers.generator import GenerateConfig, generate
    from openers.generator.generate import LOGS_DIR

    generate(GenerateConfig(hands=360, tables=2, seed=30, profile=name, violations=0.35,
                            codes=tuple(f"J50{k}" for k in range(1, 9))), tmp_path / "room")
    ingest_paths(sorted(str(p) for p in (tmp_path / "room" / LOGS_DIR).iterdir()),
                 str(tmp_path / "store.duckdb"))
    con = connect(str(tmp_path / "store.duckdb"))
    try:
        profile = load_profile(name)
        monkeypatch.setattr(store, "BATCH_HANDS", 10**6)  # one batch: whole tables
        whole = store.audit_store(con, profile, workers=1)
        rows = _rows(con)
        planted = {code for line in (tmp_path / "room" / "labels.jsonl").open()
                   for code in json.loads(line)["codes"]}
        assert len(planted) >= 7  # the profile's J codes
        assert {code for _, code, *_ in rows[0] if code.startswith("J5")} >= planted
        parts = list(store._batches(store._stored(con, None), 7))
        assert len(parts) == 52
        assert max(sum(p.column("context").to_pylist()) for p in parts) >= 2  # in a carry
        monkeypatch.setattr(store, "BATCH_HANDS", 1)
        assert store.audit_store(con, profile, workers=1) == whole
        assert _rows(con) == rows
        monkeypatch.setattr(store, "BATCH_HANDS", 7)
        later = [h for (h,) in con.execute(
            "SELECT hand_id FROM (SELECT hand_id, row_number() OVER (PARTITION BY table_id "
            "ORDER BY time, hand_id) AS n FROM stg_hands) WHERE n > 100").fetchall()]
        con.execute("DELETE FROM audit_findings")
        assert store.audit_store(con, profile, later, workers=1).hands == len(later)
        assert _rows(con)[0] == [f for f in rows[0] if f[0] in set(later)]
    finally:
        con.close()
