"""``audit_store`` on the fast path writes exactly what the reference path writes.

Generated rooms (violations and unrecorded cards planted) are ingested into a store
and audited both ways: the per-batch results must be equal, in order, and so must
the audit tables. Small batches put table runs across batch boundaries (context
deals); a partial re-audit and JSON Lines hands (alone and mixed into a text-form
table) go through the same comparison.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb
import pytest

import audit.fast.stored
import audit.store
from audit.engine import AuditResult
from audit.profiles import Profile
from audit.store import _run, _stored, audit_store
from ingest.load import ingest_paths
from schemas.store import connect
from tests.audit.fast.corpus import corpus, profile

PROFILES = ("robert", "house23", "foster", "laws")
HANDS = 800


def _results(con: duckdb.DuckDBPyConnection, prof: Profile, fast: bool,
             hand_ids: Sequence[str] | None = None) -> list[AuditResult]:
    items = _stored(con, hand_ids)
    return [r for part in _run(items, prof, 1, fast) for r in part]


def _tables(con: duckdb.DuckDBPyConnection) -> dict[str, list[Any]]:
    return {
        "findings": con.execute("SELECT * FROM audit_findings ORDER BY ALL").fetchall(),
        "unverifiable": con.execute(
            "SELECT * FROM audit_unverifiable ORDER BY ALL").fetchall(),
        "hands": con.execute("SELECT * EXCLUDE (audited_at) FROM audit_hands ORDER BY ALL"
                             ).fetchall(),
    }


def _store(tmp_path: Path, paths: Sequence[Path]) -> duckdb.DuckDBPyConnection:
    db = tmp_path / "s.duckdb"
    ingest_paths([str(p) for p in paths], str(db))
    return connect(db)


@pytest.fixture(autouse=True)
def _small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(audit.store, "BATCH_HANDS", 150)


@pytest.mark.parametrize("name", PROFILES)
def test_fast_store_audit_equals_the_reference(name: str, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    room = corpus(name, HANDS, seed=3, violations=0.05, unrecorded=0.05)
    con = _store(tmp_path, room.files)
    prof = profile(name)
    reference = _results(con, prof, fast=False)
    audited = 0
    real = audit.fast.stored.audit_hand

    def counting(*args: Any, **kwargs: Any) -> AuditResult:
        nonlocal audited
        audited += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(audit.fast.stored, "audit_hand", counting)
    fast = _results(con, prof, fast=True)
    assert fast == reference
    assert any(r.findings for r in reference)
    # The fast path must actually certify: most generated hands are clean.
    assert audited < 0.35 * len(reference)


def test_partial_reaudit_with_context_deals(tmp_path: Path) -> None:
    room = corpus("robert", HANDS, seed=3, violations=0.05, unrecorded=0.05)
    con = _store(tmp_path, room.files)
    prof = profile("robert")
    summary_ref = audit_store(con, prof, workers=1, fast=False)
    written_ref = _tables(con)
    summary_fast = audit_store(con, prof, workers=2, fast=True)
    assert summary_fast == summary_ref
    assert _tables(con) == written_ref
    assert summary_ref.unverifiable and summary_ref.findings
    ids = [h for (h,) in con.execute("SELECT hand_id FROM stg_hands ORDER BY hand_id"
                                     ).fetchall()]
    subset = ids[::7] + ids[len(ids) // 2 : len(ids) // 2 + 40]
    reference = _results(con, prof, fast=False, hand_ids=subset)
    assert {r.hand_id for r in reference} <= set(subset)
    assert _results(con, prof, fast=True, hand_ids=subset) == reference
    audit_store(con, prof, subset, workers=1, fast=False)
    written_ref = _tables(con)
    audit_store(con, prof, subset, workers=1, fast=True)
    assert _tables(con) == written_ref


def test_jsonl_hands_alone_and_mixed_into_a_table(tmp_path: Path) -> None:
    room = corpus("laws", 600, seed=5, violations=0.05, unrecorded=0.05)
    by_file: dict[str, list[str]] = {}
    for record in room.records:
        by_file.setdefault(record.table_id, []).append(record.model_dump_json())
    tables = sorted(by_file)
    paths: list[Path] = []
    # One table entirely as JSON Lines.
    whole = tmp_path / "whole.jsonl"
    whole.write_text("\n".join(by_file[tables[0]]) + "\n")
    paths.append(whole)
    # Another table half JSON Lines, half text (its later hands as text).
    mixed = next(f for f in room.files if tables[1] in f.read_text())
    chunks = mixed.read_text().split("\n\n")
    half = len(chunks) // 2
    (tmp_path / "half.jsonl").write_text("\n".join(by_file[tables[1]][:half]) + "\n")
    (tmp_path / "half.log").write_text("\n\n".join(chunks[half:]))
    paths += [tmp_path / "half.jsonl", tmp_path / "half.log"]
    paths += [f for f in room.files
              if tables[0] not in f.read_text() and tables[1] not in f.read_text()]
    con = _store(tmp_path, paths)
    forms = {f for (f,) in con.execute("SELECT DISTINCT form FROM raw_hands").fetchall()}
    assert forms == {"text", "jsonl"}
    prof = profile("laws")
    assert _results(con, prof, fast=True) == _results(con, prof, fast=False)


@pytest.mark.parametrize("repeated_id", [False, True])
def test_odd_stored_texts_go_to_the_reference(repeated_id: bool,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    room = corpus("house23", 300, seed=7, violations=0.05, unrecorded=0.05, tables=2)
    path = room.files[0]
    chunks = [c for c in path.read_text().split("\n\n") if c.strip()]
    first_lines = [1 + sum(c.count("\n") + 2 for c in chunks[:k]) for k in range(len(chunks))]
    table = room.records[0].table_id
    items: list[audit.store.StoredHand] = [
        (f"id-{k}", text, line, "text", table, k < 2)
        for k, (text, line) in enumerate(zip(chunks, first_lines, strict=True))]
    # Ids the texts disagree with, a CRLF text, a BOM, a trailing line end, garbage.
    items = [(r.hand_id, *item[1:]) for r, item in zip(room.records, items, strict=False)]
    items[3] = (items[3][0], items[3][1], items[3][2], "text", "another table", False)
    items[4] = (*items[4][:1], items[4][1].replace("\n", "\r\n"), *items[4][2:])
    items[5] = (*items[5][:1], "\ufeff" + items[5][1], *items[5][2:])
    items[6] = (*items[6][:1], items[6][1] + "\n", *items[6][2:])
    items[7] = (*items[7][:1], "not a hand", *items[7][2:])
    if repeated_id:  # a text stored under another hand id: the batch goes to the reference
        items[8] = (*items[8][:1], items[9][1], *items[8][2:])
    prof = profile("house23")
    reference = audit.store.audit_stored(items, prof, fast=False)
    assert len(reference) < len(items) - 2
    calls: list[int] = []
    real = audit.fast.stored.audit_hand

    def counting(*args: Any, **kwargs: Any) -> AuditResult:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(audit.fast.stored, "audit_hand", counting)
    monkeypatch.setattr(audit.store, "audit_hand", counting)
    assert audit.store.audit_stored(items, prof, fast=True) == reference
    assert (len(calls) > len(reference) // 2) == repeated_id
