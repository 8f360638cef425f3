"""The store: duplicates, conflicts, idempotent re-ingest, batches in transactions, views."""

from __future__ import annotations

import gzip
from pathlib import Path

import duckdb
import pytest

import ingest.commit
from ingest.load import ingest_paths
from ingest.parser import parse_hand
from schemas.store import connect, empty_table, transaction
from tests.ingest.conftest import example


def _file(path: Path, *ids: str, crlf: bool = False) -> Path:
    text = "\n\n".join(example(i) for i in ids) + "\n"
    path.write_bytes(text.replace("\n", "\r\n").encode() if crlf else text.encode())
    return path


def _rows(db: Path, sql: str) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_ingest_twice_stores_once(tmp_path: Path, db: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    _file(folder / "a.log", "A1", "A2")
    _file(folder / "b.log", "B1")
    (folder / "bad.log").write_text(example("Z").replace("Limit: 10/20", "Limit: x"))
    first = ingest_paths([folder], db)
    assert (first.files, first.stored, first.duplicates, first.quarantined) == (3, 3, 0, 1)
    snapshot = {t: _rows(db, f"SELECT * EXCLUDE (ingested_at) FROM {t} ORDER BY ALL")
                for t in ("raw_hands", "quarantine")}
    second = ingest_paths([folder], db)
    assert (second.stored, second.duplicates, second.quarantine_added) == (0, 3, 0)
    assert second.stored_ids == []
    for table, rows in snapshot.items():
        assert _rows(db, f"SELECT * EXCLUDE (ingested_at) FROM {table} ORDER BY ALL") == rows
    for table in ("stg_hands", "stg_seats", "stg_actions"):
        assert _rows(db, f"SELECT count(*) FROM {table}")[0][0] > 0
    assert _rows(db, "SELECT count(*) FROM hands") == [(3,)]
    assert _rows(db, "SELECT count(*) FROM actions") == [(3 * 27,)]


def test_changed_hand_with_same_id_is_a_conflict(tmp_path: Path, db: Path) -> None:
    ingest_paths([_file(tmp_path / "a.log", "H1")], db)
    changed = tmp_path / "b.log"
    changed.write_text(example("H1").replace("Rake: 4\nSeat 3: collects 140",
                                             "Rake: 5\nSeat 3: collects 139"))
    summary = ingest_paths([changed], db)
    assert (summary.stored, summary.conflicts) == (0, 1)
    [(file, hand_id, kind, raw, other_file, other_raw)] = _rows(
        db, "SELECT file, hand_id, kind, raw_text, other_file, other_raw_text FROM quarantine")
    assert (file, hand_id, kind, other_file) == (str(changed), "H1", "conflict",
                                                 str(tmp_path / "a.log"))
    assert "Rake: 5" in raw and "Rake: 4" in other_raw
    assert _rows(db, "SELECT rake FROM hands") == [(400,)]
    # Seeing the conflicting version again adds nothing.
    assert ingest_paths([changed], db).quarantine_added == 0


def test_duplicate_and_conflict_inside_one_file(tmp_path: Path, db: Path) -> None:
    other = example("D").replace("Seat 5: mucks", "Seat 5: mucks [Ac Jk Ad 8h 7c]")
    path = tmp_path / "one.log"
    path.write_text("\n\n".join([example("D"), example("D"), other, example("E")]) + "\n")
    summary = ingest_paths([path], db, batch_size=2)
    assert (summary.stored, summary.duplicates, summary.conflicts) == (2, 1, 1)
    assert summary.stored_ids == ["D", "E"]
    [(line, other_line)] = _rows(db, "SELECT line, other_line FROM quarantine")
    assert (line, other_line) == (105, 1)


def test_crlf_copy_is_a_duplicate_not_a_conflict(tmp_path: Path, db: Path) -> None:
    ingest_paths([_file(tmp_path / "lf.log", "C1")], db)
    summary = ingest_paths([_file(tmp_path / "crlf.log", "C1", crlf=True)], db)
    assert (summary.duplicates, summary.conflicts) == (1, 0)


def test_gzip_and_jsonl_forms(tmp_path: Path, db: Path) -> None:
    gz = tmp_path / "a.log.gz"
    gz.write_bytes(gzip.compress(("\n\n".join([example("G1"), example("G2")])).encode()))
    record = parse_hand(example("J1"), first_line=7)
    jsonl = tmp_path / "b.jsonl.gz"
    jsonl.write_bytes(gzip.compress((record.model_dump_json() + "\n").encode()))
    summary = ingest_paths([gz, jsonl], db)
    assert summary.stored_ids == ["G1", "G2", "J1"]
    assert _rows(db, "SELECT form, first_line FROM raw_hands WHERE hand_id = 'J1'") == [
        ("jsonl", 1)]
    assert _rows(db, "SELECT first_line FROM stg_hands WHERE hand_id = 'J1'") == [(7,)]


def test_crash_mid_batch_leaves_store_as_before_the_batch(
    tmp_path: Path, db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _file(tmp_path / "a.log", "K1", "K2", "K3", "K4", "K5")
    real_insert = ingest.commit._insert
    calls = {"stg_actions": 0}

    def failing(con, table, data, **kw):
        if table == "stg_actions":
            calls["stg_actions"] += 1
            if calls["stg_actions"] == 2:
                raise RuntimeError("power cut")
        return real_insert(con, table, data, **kw)

    monkeypatch.setattr(ingest.commit, "_insert", failing)
    with pytest.raises(RuntimeError, match="power cut"):
        ingest_paths([path], db, batch_size=2)
    # The first batch (K1, K2) is stored whole; nothing of the second batch is.
    for table in ("raw_hands", "stg_hands"):
        assert _rows(db, f"SELECT hand_id FROM {table} ORDER BY 1") == [("K1",), ("K2",)]
    assert _rows(db, "SELECT DISTINCT hand_id FROM stg_seats ORDER BY 1") == [("K1",), ("K2",)]
    assert _rows(db, "SELECT DISTINCT hand_id FROM stg_actions ORDER BY 1") == [
        ("K1",), ("K2",)]
    monkeypatch.setattr(ingest.commit, "_insert", real_insert)
    summary = ingest_paths([path], db, batch_size=2)
    assert (summary.stored, summary.duplicates) == (3, 2)


def test_public_views_have_the_contract_columns(db: Path) -> None:
    con = connect(db)
    connect_again = con  # applying the DDL twice changes nothing
    from schemas.store import apply_ddl

    apply_ddl(connect_again)

    def columns(view: str) -> set[str]:
        return {r[0] for r in con.execute(f"DESCRIBE {view}").fetchall()}

    assert {"hand_id", "table_id", "time", "game", "limit_small", "limit_big", "ante", "button",
            "jackpot", "openers", "carried", "source_file", "sha256"} <= columns("hands")
    assert {"hand_id", "action_index", "line", "section", "actor", "verb", "seat", "amount",
            "to_amount", "cards"} <= columns("actions")
    assert {"file", "line", "hand_id", "error", "raw_text"} <= columns("quarantine")
    con.close()


def test_actions_view_keeps_log_order_and_amounts_in_cents(tmp_path: Path, db: Path) -> None:
    ingest_paths([_file(tmp_path / "a.log", "V1")], db)
    rows = _rows(db, "SELECT action_index, line, verb, seat, player_id, amount, to_amount "
                     "FROM actions WHERE hand_id = 'V1' ORDER BY action_index")
    assert rows[10] == (10, 29, "raises", 3, "P-30988", 1000, 2000)
    assert [r[1] for r in rows] == sorted(r[1] for r in rows)
    assert _rows(db, "SELECT card FROM stg_cards WHERE hand_id = 'V1' AND verb = 'dealt' "
                     "AND seat = 5 ORDER BY position") == [
        ("Ac",), ("Jk",), ("9s",), ("5d",), ("3c",)]
    assert _rows(db, "SELECT utc_offset_minutes, pot, rake FROM hands") == [(-480, 14400, 400)]


def test_fast_path_and_reference_parser_store_the_same_rows(tmp_path: Path, db: Path) -> None:
    # The comment inside F2 sends it to the reference parser; F1 takes the fast path.
    commented = example("F2").replace("*** DRAW ***", "# new deck\n*** DRAW ***")
    path = tmp_path / "mixed.log"
    path.write_text(f"{example('F1')}\n\n{commented}\n")
    assert ingest_paths([path], db).stored_ids == ["F1", "F2"]
    cols = "action_index, section, actor, verb, seat, amount, to_amount, cards, drawn, all_in"
    first, second = (_rows(db, f"SELECT {cols} FROM stg_actions WHERE hand_id = '{h}' "
                               "ORDER BY action_index") for h in ("F1", "F2"))
    assert first == second and len(first) == 27
    lines = _rows(db, "SELECT hand_id, min(line), max(line) FROM stg_actions GROUP BY 1 ORDER BY 1")
    assert lines == [("F1", 17, 51), ("F2", 69, 104)]
    hands = _rows(db, "SELECT * EXCLUDE (hand_id, first_line, result_line, sha256) FROM hands "
                      "ORDER BY hand_id")
    assert hands[0] == hands[1]


def test_a_hand_id_already_stored_fails_the_batch_without_an_index(
    tmp_path: Path, db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """raw_hands has no primary key: the insert itself leaves out an id already stored (as
    another writer could have stored it since the batch was sorted) and the count fails
    the batch, rolled back whole -- never two rows for one id."""
    from ingest.classify import Classified
    from ingest.conservation import ConservationError

    path = _file(tmp_path / "a.log", "U1", "U2")
    ingest_paths([path], db)
    before = {t: _rows(db, f"SELECT count(*) FROM {t}") for t in
              ("raw_hands", "stg_hands", "stg_seats", "stg_actions")}

    def unsorted(con, hands, batch_sizes):  # every hand taken for new
        return Classified(new=list(range(len(hands))))

    monkeypatch.setattr(ingest.commit, "classify", unsorted)
    with pytest.raises(ConservationError, match="raw_hands rows"):
        ingest_paths([path], db)
    assert {t: _rows(db, f"SELECT count(*) FROM {t}") for t in before} == before
    assert _rows(db, "SELECT count(DISTINCT hand_id) = count(*) FROM raw_hands") == [(True,)]


def _definition(con: duckdb.DuckDBPyConnection, table: str) -> list[tuple[object, ...]]:
    columns = con.execute(
        "SELECT column_name, data_type, is_nullable FROM duckdb_columns() "
        "WHERE table_name = ? ORDER BY column_index", [table]).fetchall()
    keys = con.execute(
        "SELECT constraint_type, constraint_column_names FROM duckdb_constraints() "
        "WHERE table_name = ? ORDER BY constraint_type, constraint_index", [table]).fetchall()
    return [*columns, *keys]


def test_empty_table_keeps_the_definition_and_its_key_and_rolls_back(tmp_path: Path) -> None:
    con = connect(tmp_path / "s.duckdb")
    before = _definition(con, "ops_pending_hands")
    assert ("PRIMARY KEY", ["hand_id"]) in before
    con.execute("INSERT INTO ops_pending_hands VALUES ('h1', 'T1', 1), ('h2', 'T1', 1)")
    with pytest.raises(RuntimeError), transaction(con):
        empty_table(con, "ops_pending_hands")
        assert con.execute("SELECT count(*) FROM ops_pending_hands").fetchall() == [(0,)]
        raise RuntimeError("the closing transaction fails")
    assert con.execute("SELECT count(*) FROM ops_pending_hands").fetchall() == [(2,)]
    with transaction(con):
        empty_table(con, "ops_pending_hands")
    assert con.execute("SELECT count(*) FROM ops_pending_hands").fetchall() == [(0,)]
    assert _definition(con, "ops_pending_hands") == before
    # The key still deduplicates the queue (the nightly job queues with INSERT OR IGNORE).
    con.execute("INSERT OR IGNORE INTO ops_pending_hands VALUES ('h1', 'T1', 2), ('h1', 'T1', 3)")
    assert con.execute("SELECT count(*) FROM ops_pending_hands").fetchall() == [(1,)]
    with pytest.raises(ValueError, match="no table"):
        empty_table(con, "no_such_table")
