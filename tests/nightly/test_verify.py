"""Tamper evidence: each run seals what it stored; ``openers verify`` names every direct
edit of the store, and the nightly job refuses to write over one."""

from __future__ import annotations

import shutil
import sqlite3
from datetime import timedelta
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from openers.cli import app
from openers.nightly.job import ExitCode
from openers.nightly.sealing import StoreTampered, check_queued, stored_mark
from openers.verify import verify_store
from schemas import seals as seals_module
from schemas.raw import raw_rows_of
from schemas.reviews import Change, FindingKey, record, reviews_path_for
from schemas.seals import seal
from schemas.store import transaction
from tests.nightly.handmaker import START, hand_text, write_day
from tests.nightly.jobtools import mismatches, rows, run_in_process

TABLES = ("T01", "T02", "T03")
#: A hand with an over-cap raise (every 7th hand is one): it has a finding, and actions.
HAND = "BCY-T02-000014"


@pytest.fixture(scope="module")
def sealed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two nights, two seals, findings at every table."""
    root = tmp_path_factory.mktemp("sealed")
    write_day(root / "inbox", TABLES, range(10))
    assert run_in_process(root).exit_code is ExitCode.OK
    write_day(root / "inbox", TABLES, range(10, 20), append=True)
    assert run_in_process(root).exit_code is ExitCode.OK
    return root


@pytest.fixture
def store(sealed: Path, tmp_path: Path) -> Path:
    """A private copy of the sealed store, with its inbox, that a test may tamper with."""
    shutil.copytree(sealed, tmp_path, dirs_exist_ok=True)
    return tmp_path / "store.duckdb"


def _edit(db: Path, *statements: str) -> None:
    con = duckdb.connect(str(db))
    try:
        for statement in statements:
            con.execute(statement)
    finally:
        con.close()


def test_an_intact_store_verifies(store):
    assert mismatches(store) == []
    result = CliRunner().invoke(app, ["verify", "--db", str(store), "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "verified 60 hand(s) and 2 seal(s): intact" in result.output


def test_raw_text_edited(store):
    _edit(store, f"UPDATE raw_hands SET raw_text = replace(raw_text, 'calls 20', 'calls 2') "
                 f"WHERE hand_id = '{HAND}'")
    found = mismatches(store)
    assert f"hand {HAND}: its raw text does not hash to its sha256 (edited)" in found
    assert any(m.startswith(f"hand {HAND}: stg_actions differs from its raw text") for m in found)


def test_raw_text_edited_with_its_sha256_recomputed(store):
    _edit(store,
          f"UPDATE raw_hands SET raw_text = replace(raw_text, 'calls 20', 'calls 2') "
          f"WHERE hand_id = '{HAND}'",
          f"UPDATE raw_hands SET sha256 = sha256(raw_text) WHERE hand_id = '{HAND}'",
          f"UPDATE stg_hands SET sha256 = (SELECT sha256 FROM raw_hands WHERE hand_id = "
          f"'{HAND}') WHERE hand_id = '{HAND}'")
    found = mismatches(store)
    assert any(m.startswith("seal 2 (runs 2-2): its 30 hands no longer match the store")
               for m in found), found
    assert any(m.startswith(f"hand {HAND}: stg_actions differs") for m in found)
    assert not any("does not hash" in m for m in found)


def test_a_staging_amount_edited(store):
    _edit(store, f"UPDATE stg_actions SET amount = 2000 WHERE hand_id = '{HAND}' "
                 "AND action_index = (SELECT min(action_index) FROM stg_actions "
                 f"WHERE hand_id = '{HAND}' AND verb = 'calls')")
    [found] = mismatches(store)
    assert found.startswith(f"hand {HAND}: stg_actions differs from its raw text: "
                            "amount stored 2000, text ")
    assert "at action_index" in found


def test_a_finding_deleted(store):
    _edit(store, f"DELETE FROM audit_findings WHERE hand_id = '{HAND}'")
    [found] = mismatches(store)
    assert found.startswith("table T02: its findings changed since seal 2: ")


def test_a_hand_deleted(store):
    _edit(store, *(f"DELETE FROM {table} WHERE hand_id = '{HAND}'" for table in (
        "raw_hands", "stg_hands", "stg_seats", "stg_actions", "audit_hands", "audit_findings",
        "audit_unverifiable")))
    found = mismatches(store)
    assert any(m.startswith("seal 2 (runs 2-2): its 30 hands no longer match the store")
               and m.endswith(f"deleted: {HAND}") for m in found), found
    assert any(m.startswith("table T02: its findings changed") for m in found)


def test_a_hand_deleted_with_its_claim(store):
    _edit(store, *(f"DELETE FROM {table} WHERE hand_id = '{HAND}'" for table in (
        "raw_hands", "stg_hands", "stg_seats", "stg_actions", "ops_run_hands")))
    found = mismatches(store)
    assert any("its 30 hands no longer match the store (29 claimed now" in m for m in found)


def test_a_seal_edited_or_removed(store):
    _edit(store, "UPDATE ops_seals SET hands = 31 WHERE seal_id = 1")
    found = mismatches(store)
    assert "seal 1: its fields do not make its hash (edited)" in found
    _edit(store, "UPDATE ops_seals SET hands = 30 WHERE seal_id = 1",
          "DELETE FROM ops_seal_tables WHERE seal_id = 2",
          "DELETE FROM ops_seals WHERE seal_id = 2")
    found = mismatches(store)
    assert any(m.startswith("run 2: finished, claimed 30 hands, and no seal covers it")
               for m in found), found


def test_the_cli_names_every_mismatch_and_exits_1(store):
    _edit(store, f"DELETE FROM audit_findings WHERE hand_id = '{HAND}'",
          "UPDATE raw_hands SET raw_text = raw_text || ' ' WHERE hand_id = 'BCY-T01-000003'")
    result = CliRunner().invoke(app, ["verify", "--db", str(store), "--workers", "1",
                                      "--head", "f" * 64])
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if line.startswith("MISMATCH")]
    assert any("hand BCY-T01-000003: its raw text does not hash" in line for line in lines)
    assert any("table T02: its findings changed" in line for line in lines)
    assert any(f"the seal {'f' * 64} kept elsewhere is not in it" in line for line in lines)
    assert CliRunner().invoke(app, ["verify", "--db", str(store.with_name("nope"))]).exit_code == 2


def test_the_job_refuses_to_write_over_an_edit_and_openers_audit_repairs_findings(store):
    root = store.parent
    _edit(store, f"DELETE FROM audit_findings WHERE hand_id = '{HAND}'")
    write_day(root / "inbox", TABLES, range(20, 25), append=True)
    refused = run_in_process(root)
    assert refused.exit_code is ExitCode.FAILED
    assert "does not match its last seal" in (refused.error or "")
    assert "table T02" in (refused.error or "")
    assert rows(store, "SELECT count(*) FROM raw_hands") == [(60,)]  # nothing was read
    # Findings are derived data: a re-audit from the sealed raw hands restores and seals them.
    assert CliRunner().invoke(app, ["audit", "--db", str(store)]).exit_code == 0
    assert mismatches(store) == []
    assert run_in_process(root).exit_code is ExitCode.OK
    assert mismatches(store) == []


class FakeReviewChain:
    """A review file's chain as ``schemas.reviews`` reports it: breaks and head."""

    def __init__(self, breaks: list[str], head: tuple[int, str]) -> None:
        self.breaks, self.head = breaks, head

    def verify_chain(self, path: Path) -> list[str]:
        return self.breaks

    def chain_head(self, path: Path) -> tuple[int, str]:
        return self.head


def _review_mismatches(db: Path, chain: FakeReviewChain) -> list[str]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        report = verify_store(con, workers=1, reviews=(db.with_name("r.sqlite"), chain))
        return [str(m) for m in report.mismatches]
    finally:
        con.close()


def test_the_review_chain_is_checked_and_its_sealed_head_kept(store):
    # No seal has recorded a review head yet: only the chain's own breaks count.
    assert _review_mismatches(store, FakeReviewChain([], (0, "0" * 64))) == []
    assert _review_mismatches(store, FakeReviewChain(["event 3: its hash does not match"],
                                                     (4, "a" * 64))) == [
        "review file r.sqlite: event 3: its hash does not match"]
    con = duckdb.connect(str(store))
    try:
        with transaction(con):
            seal(con, kind="audit", review=(4, "a" * 64))
    finally:
        con.close()
    assert _review_mismatches(store, FakeReviewChain([], (4, "a" * 64))) == []
    assert _review_mismatches(store, FakeReviewChain([], (6, "b" * 64))) == []  # appended
    assert _review_mismatches(store, FakeReviewChain([], (3, "c" * 64))) == [
        "review file r.sqlite: holds 3 events; seal 3 recorded 4 (events were removed from "
        "its end)"]
    assert _review_mismatches(store, FakeReviewChain([], (4, "d" * 64))) == [
        "review file r.sqlite: its last event is not the one seal 3 recorded (the file was "
        "rewritten)"]


def test_openers_audit_refuses_to_audit_an_edited_text(store):
    _edit(store,
          f"UPDATE raw_hands SET raw_text = replace(raw_text, 'calls 20', 'calls 2') "
          f"WHERE hand_id = '{HAND}'",
          f"UPDATE raw_hands SET sha256 = sha256(raw_text) WHERE hand_id = '{HAND}'")
    result = CliRunner().invoke(app, ["audit", "--db", str(store)])
    assert result.exit_code == 2
    assert "seal 2 (runs 2-2): its 30 hands no longer match the store" in result.output
    assert "nothing audited" in result.output


def test_the_job_never_re_audits_an_edited_old_hand(store):
    """An old hand (sealed by run 1, not the head) edited with its hash recomputed: the
    head check cannot see it, but a new deal arriving just before it queues it for
    re-audit (its J rules compare it with the new deal), and the job refuses."""
    root = store.parent
    old = "BCY-T01-000005"
    _edit(store,
          f"UPDATE raw_hands SET raw_text = replace(raw_text, 'calls 20', 'calls 2') "
          f"WHERE hand_id = '{old}'",
          f"UPDATE raw_hands SET sha256 = sha256(raw_text) WHERE hand_id = '{old}'",
          f"UPDATE stg_hands SET sha256 = (SELECT sha256 FROM raw_hands WHERE hand_id = "
          f"'{old}') WHERE hand_id = '{old}'")
    late = hand_text("T01", 900, when=START + timedelta(minutes=9))  # between hands 4 and 5
    (root / "inbox" / "late.log").write_text(late + "\n")
    refused = run_in_process(root)
    assert refused.exit_code is ExitCode.FAILED
    assert "hands to audit do not match their seals" in (refused.error or "")
    assert "seal 1 (runs 1-1)" in (refused.error or "")


def test_queued_hands_stored_before_the_run_are_hashed_again_its_own_are_not(store):
    """The mark taken before a run stores anything: an edited hand stored before it is
    refused; a hand above it (stored by the run itself, under its lock) is not hashed."""
    con = duckdb.connect(str(store))
    try:
        con.execute(f"UPDATE raw_hands SET raw_text = raw_text || ' ' WHERE hand_id = '{HAND}'")
        con.execute("INSERT INTO ops_pending_hands (hand_id, table_id, queued_by_run) "
                    f"VALUES ('{HAND}', 'T02', 3)")
        mark = stored_mark(con)
        assert mark == con.execute("SELECT count(*) - 1 FROM raw_hands").fetchall()[0][0]
        with pytest.raises(StoreTampered, match=HAND):
            check_queued(con, mark)
        with pytest.raises(StoreTampered, match=HAND):
            check_queued(con)  # no mark: every queued hand
        check_queued(con, -1)  # as if the run had stored every hand itself
        con.execute("DELETE FROM raw_hands WHERE hand_id = ?", [HAND])
        with pytest.raises(StoreTampered, match="seal"):  # a queued hand gone: its seal
            check_queued(con, -1)
    finally:
        con.close()


def test_the_real_review_file_is_sealed_with_each_run_and_checked(store):
    """The review file's chain (schemas.reviews) and its head recorded by the next run:
    an edit behind the dashboards' back and events cut from its end are both named."""
    root, reviews = store.parent, reviews_path_for(store)
    keys = [FindingKey(HAND, "B101", None, None), FindingKey("BCY-T01-000007", "B101", None,
                                                                None)]
    for key in keys:
        record(reviews, [key], Change(note="looked at it"), "ana")
    write_day(root / "inbox", TABLES, range(20, 22), append=True)
    assert run_in_process(root).exit_code is ExitCode.OK
    assert mismatches(store) == []
    assert rows(store, "SELECT review_events FROM ops_seals ORDER BY seal_id DESC LIMIT 1") == [
        (2,)]
    edit = sqlite3.connect(reviews)
    try:
        edit.executescript("DROP TRIGGER IF EXISTS case_events_no_delete;"
                           "DROP TRIGGER IF EXISTS case_events_no_update;")
        edit.execute("DELETE FROM case_events WHERE event_id = 2")
        edit.commit()
    finally:
        edit.close()
    found = mismatches(store)
    assert any("holds 1 events; seal 3 recorded 2 (events were removed from its end)" in m
               for m in found), found
    assert any(m.startswith(f"review file {reviews.name}: ") and "trigger" in m.lower()
               for m in found), found


def test_raw_rows_of_keeps_the_named_hands_once_each(store):
    con = duckdb.connect(str(store), read_only=True)
    try:
        stored = [str(r[0]) for r in con.execute(
            "SELECT hand_id FROM raw_hands ORDER BY hand_id").fetchall()]
        named = [stored[0], HAND, HAND, "BCY-T09-999999", stored[-1]]  # twice; not stored
        got = con.execute(
            "SELECT hand_id, first_line, raw_text FROM raw_hands WHERE "
            + raw_rows_of("(SELECT unnest(?::VARCHAR[]) AS hand_id)") + " ORDER BY hand_id",
            [named]).fetchall()
        wanted = con.execute(
            "SELECT hand_id, first_line, raw_text FROM raw_hands WHERE hand_id IN (?, ?, ?) "
            "ORDER BY hand_id", [stored[0], HAND, stored[-1]]).fetchall()
    finally:
        con.close()
    assert got == wanted and len(got) == 3


#: The digests of a seal as first written: one aggregate over every line (which holds them
#: all in memory); :func:`schemas.seals._pair` streams them and must give the same.
_AGGREGATE_HANDS = """
SELECT count(*), sha256(coalesce(string_agg(c.hand_id || ':' || coalesce(h.sha256, ''), chr(10)
                                             ORDER BY c.hand_id), ''))
FROM ops_run_hands c LEFT JOIN raw_hands h USING (hand_id)
WHERE c.run_id BETWEEN $first AND $last
"""
_AGGREGATE_QUARANTINE = f"""
WITH present AS (SELECT DISTINCT {seals_module.QUARANTINE_KEY_SQL} AS k FROM quarantine q)
SELECT count(*), sha256(coalesce(string_agg(
           c.quarantine_key || ':' || CAST(p.k IS NOT NULL AS VARCHAR), chr(10)
           ORDER BY c.quarantine_key), ''))
FROM ops_run_quarantine c LEFT JOIN present p ON p.k = c.quarantine_key
WHERE c.run_id BETWEEN $first AND $last
"""


def test_streamed_seal_digests_equal_the_aggregate_ones(store, monkeypatch):
    monkeypatch.setattr(seals_module, "_DIGEST_ROWS", 7)  # many batches, a line across none
    _edit(store, f"DELETE FROM raw_hands WHERE hand_id = '{HAND}'",  # a claimed hand gone
          "INSERT INTO ops_run_quarantine VALUES ('no-such-key', 1)",
          "INSERT INTO ops_run_quarantine VALUES ('another-key', 2)")
    con = duckdb.connect(str(store), read_only=True)
    try:
        for first, last in ((1, 1), (2, 2), (1, 2), (3, 9)):
            for streamed, aggregate in ((seals_module._HANDS_SQL, _AGGREGATE_HANDS),
                                        (seals_module._QUARANTINE_SQL, _AGGREGATE_QUARANTINE)):
                want = con.execute(aggregate, {"first": first, "last": last}).fetchall()[0]
                assert seals_module._pair(con, streamed, first, last) == tuple(want)
        hands = con.execute(_AGGREGATE_HANDS, {"first": 1, "last": 2}).fetchall()[0][0]
    finally:
        con.close()
    assert hands > 20  # the runs claimed hands: the digests above are not of nothing
