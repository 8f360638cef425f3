"""Containment: whatever is wrong with a hand or a file, the hand or file is quarantined
with a precise kind and its raw bytes, the rest is read, and nothing raises (issue 15,
observations 1, 3, 5, 6; issue 12: paths and line numbers).

Every case goes through the three readers a user meets: ``ingest`` (the store),
``validate`` and ``check`` (``audit.batch.check_paths``, fast and reference).
"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from audit.batch import check_paths
from audit.profiles import load_profile
from ingest.errors import ErrorKind
from ingest.load import ingest_paths
from ingest.parser import parse_hand
from ingest.validate import validate_paths
from openers.cli import app
from tests.ingest.conftest import example

PROFILE = load_profile("robert")


def _good(*ids: str) -> str:
    return "\n\n".join(example(i) for i in ids)


def _readers(path: Path, db: Path) -> dict[str, list[str]]:
    """The kinds of problems each reader reports on ``path`` (and the store's rows)."""
    summary = ingest_paths([path], db)
    con = duckdb.connect(str(db), read_only=True)
    stored = [r[0] for r in con.execute("SELECT kind FROM quarantine ORDER BY line").fetchall()]
    con.close()
    assert sorted(stored) == sorted(p.kind for p in summary.problems)
    kinds = {"ingest": sorted(p.kind.value for p in summary.problems),
             "validate": sorted(p.kind.value for p in validate_paths([path]).problems)}
    for fast in (True, False):
        report = check_paths([path], PROFILE, workers=1, fast=fast)
        kinds[f"check fast={fast}"] = sorted(p.kind.value for p in report.problems)
    return kinds


def _all(kinds: dict[str, list[str]], expected: list[str]) -> None:
    assert all(v == sorted(expected) for v in kinds.values()), kinds


@pytest.mark.parametrize(("old", "new"), [
    ("Button: 5", "Button: 5\nJackpot: 3000000000"),
    ("Seat 3: collects 140", "Seat 3: collects 140 from side pot 3000000000"),
    ("Ante: 1", "Ante: 99999999999999999999"),
])
def test_a_value_past_its_bound_quarantines_one_hand_and_the_batch_goes_on(
        tmp_path: Path, db: Path, old: str, new: str) -> None:
    """Observation 1: one such hand lost the whole batch and stopped every later night;
    ``validate`` and ``check`` called the file clean."""
    bad = example("BIG").replace(old, new, 1)
    path = tmp_path / "day.log"
    path.write_text(_good("A", "B") + "\n\n" + bad + "\n\n" + _good("C") + "\n")
    _all(_readers(path, db), ["out_of_range"])
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT hand_id FROM hands ORDER BY 1").fetchall() == [
        ("A",), ("B",), ("C",)]


def test_a_json_amount_past_int64_is_an_invalid_record(tmp_path: Path, db: Path) -> None:
    good = parse_hand(example("J1")).model_dump(mode="json")
    huge = {**parse_hand(example("J2")).model_dump(mode="json"), "pot": 10**19}
    path = tmp_path / "day.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(huge) + "\n")
    _all(_readers(path, db), ["invalid_record"])


def test_a_blank_line_inside_a_hand_quarantines_both_halves(tmp_path: Path, db: Path) -> None:
    """Observation 3: the half starting at ``*** BEFORE DRAW ***`` was neither stored
    nor quarantined by ingest and validate."""
    split = example("SPLIT").replace("*** BEFORE DRAW ***", "\n*** BEFORE DRAW ***")
    path = tmp_path / "day.log"
    path.write_text(_good("A") + "\n\n" + split + "\n\n" + _good("B") + "\n")
    _all(_readers(path, db), ["missing_header", "missing_result"])
    summary = ingest_paths([path], tmp_path / "again.duckdb")
    assert (summary.hands_read, summary.stored, summary.quarantined) == (4, 2, 2)


def _corrupt_gzip(tmp_path: Path, text: str) -> Path:
    packed = bytearray(gzip.compress(text.encode(), compresslevel=1))
    packed[int(len(packed) * 0.7)] ^= 0x55
    path = tmp_path / "day.log.gz"
    path.write_bytes(bytes(packed))
    return path


def test_corrupt_gzip_keeps_the_hands_before_the_fault(tmp_path: Path, db: Path) -> None:
    """Observation 5: a deflate error crashed every reader and lost the readable hands."""
    text = "\n\n".join(example(f"G{n}").replace("P-10023", f"P-{n:05d}") for n in range(60))
    path = _corrupt_gzip(tmp_path, text + "\n")
    kinds = _readers(path, db)
    assert all("bad_gzip" in v for v in kinds.values()), kinds
    con = duckdb.connect(str(db), read_only=True)
    stored = con.execute("SELECT count(*) FROM hands").fetchall()[0][0]
    assert stored > 0
    [(error,)] = con.execute("SELECT error FROM quarantine WHERE kind = 'bad_gzip'").fetchall()
    assert "corrupt compressed data at compressed byte" in error


@pytest.mark.parametrize("cut", [0.1, 0.5, 0.99])
def test_a_gzip_cut_short_keeps_the_hands_before_the_cut(tmp_path: Path, db: Path,
                                                         cut: float) -> None:
    text = "\n\n".join(example(f"G{n}").replace("P-10023", f"P-{n:05d}") for n in range(40))
    packed = gzip.compress(text.encode())
    path = tmp_path / "day.log.gz"
    path.write_bytes(packed[:int(len(packed) * cut)])
    summary = ingest_paths([path], db)
    [fault] = [p for p in summary.problems if p.kind == ErrorKind.BAD_GZIP]
    assert "stops before its end" in fault.error and fault.is_file_item
    summary.conservation.check("in the test")
    assert summary.stored + summary.quarantined == summary.hands_read


def test_not_gzip_and_empty_gzip(tmp_path: Path, db: Path) -> None:
    (tmp_path / "a.log.gz").write_bytes(_good("A").encode())
    (tmp_path / "b.log.gz").write_bytes(b"")
    summary = ingest_paths([tmp_path / "a.log.gz", tmp_path / "b.log.gz"], db)
    assert [(p.kind, Path(p.file).name) for p in summary.problems] == [
        ("bad_gzip", "a.log.gz"), ("empty_file", "b.log.gz")]
    assert "not gzip data" in summary.problems[0].error


def test_json_nested_deep_is_bad_json_not_a_recursion_error(tmp_path: Path, db: Path) -> None:
    """Observation 6: a JSON Lines line nested 100,000 deep raised RecursionError."""
    path = tmp_path / "deep.jsonl"
    good = json.dumps(parse_hand(example("J1")).model_dump(mode="json"))
    path.write_text("[" * 100_000 + "]" * 100_000 + "\n" + '{"a":' * 50_000 + "1"
                    + "}" * 50_000 + "\n" + good + "\n")
    _all(_readers(path, db), ["bad_json", "bad_json"])


def test_not_utf8_keeps_the_raw_bytes(tmp_path: Path, db: Path) -> None:
    raw = example("LATIN").encode().replace(b"Bay City", b"Bay \xe9ity")
    path = tmp_path / "day.log"
    path.write_bytes(raw + b"\n")
    summary = ingest_paths([path], db)
    assert [p.kind for p in summary.problems] == ["encoding"]
    con = duckdb.connect(str(db), read_only=True)
    [(raw_bytes, line, first)] = con.execute(
        "SELECT raw_bytes, line, first_line FROM quarantine").fetchall()
    assert raw_bytes == raw and (line, first) == (3, 1)


def test_the_parser_failing_on_a_hand_quarantines_it(tmp_path: Path, db: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug of the reader (any exception) costs one hand, never the run."""
    import ingest.reader

    real = ingest.reader.parse_hand

    def buggy(text: str, *, first_line: int = 1):
        if "Hand: BOOM" in text:
            raise ZeroDivisionError("a bug")
        return real(text, first_line=first_line)

    monkeypatch.setattr(ingest.reader, "parse_hand", buggy)
    path = tmp_path / "day.log"
    path.write_text(_good("A") + "\n\n" + example("BOOM").replace("Ante: 1", "Ante: 1 ") + "\n")
    summary = ingest_paths([path], db)
    assert [p.kind for p in summary.problems] == ["reader_error"]
    assert "ZeroDivisionError" in summary.problems[0].error
    assert summary.stored_ids == ["A"]


def test_a_value_the_store_refuses_is_quarantined_as_unstorable(
        tmp_path: Path, db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The writer's own containment: if a reader ever lets through a value that fits no
    column (here the count bound is lifted), that hand is quarantined, not the batch."""
    import ingest.tokens

    monkeypatch.setattr(ingest.tokens, "COUNT_DIGITS", 30)
    bad = example("BIG").replace("Button: 5", "Button: 5\nJackpot: 3000000000", 1)
    path = tmp_path / "day.log"
    path.write_text(_good("A", "B") + "\n\n" + bad + "\n\n" + _good("C") + "\n")
    summary = ingest_paths([path], db)
    assert summary.stored_ids == ["A", "B", "C"]
    [problem] = summary.problems
    assert problem.kind == "unstorable" and problem.hand_id == "BIG"
    summary.conservation.check("in the test")


def _jackpot_only_duckdb_refuses(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A day of 10 hands whose fifth, ``BIG``, has a jackpot that passes the reader and
    Arrow (the count bound lifted, the column widened) and only DuckDB's INTEGER refuses."""
    import pyarrow as pa

    import ingest.frames
    import ingest.staged
    import ingest.tokens

    monkeypatch.setattr(ingest.tokens, "COUNT_DIGITS", 30)
    wide = pa.schema([f.with_type(pa.int64()) if f.name == "jackpot" else f
                      for f in ingest.frames.STG_HANDS])
    monkeypatch.setattr(ingest.frames, "STG_HANDS", wide)
    monkeypatch.setitem(ingest.staged._STAGING, "stg_hands", wide)
    bad = example("BIG").replace("Button: 5", "Button: 5\nJackpot: 3000000000", 1)
    path = tmp_path / "day.log"
    hands = [example(f"H{n}") for n in range(9)]
    path.write_text("\n\n".join([*hands[:4], bad, *hands[4:]]) + "\n")
    return path


def test_a_value_the_database_refuses_is_found_by_bisection(
        tmp_path: Path, db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As above, but the value passes Arrow and only DuckDB's INTEGER column refuses it."""
    path = _jackpot_only_duckdb_refuses(tmp_path, monkeypatch)
    summary = ingest_paths([path], db)
    assert sorted(summary.stored_ids) == sorted(f"H{n}" for n in range(9))
    assert [(p.kind, p.hand_id) for p in summary.problems] == [("unstorable", "BIG")]
    assert "Conversion" in summary.problems[0].error or "range" in summary.problems[0].error



def _preflight_misses_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pre-flight (ingest/preflight.py) passes every flush, as if it missed a refusal."""
    import ingest.commit

    monkeypatch.setattr(ingest.commit, "fits", lambda hands, columns: True)


def test_a_refusal_the_preflight_missed_in_a_flush_of_its_own_is_still_bisected(
        tmp_path: Path, db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A flush that opens its transaction loses nothing if the store refuses it: it is
    written again alone and the refused hand quarantined, as without the pre-flight."""
    path = _jackpot_only_duckdb_refuses(tmp_path, monkeypatch)
    _preflight_misses_it(monkeypatch)
    summary = ingest_paths([path], db)
    assert sorted(summary.stored_ids) == sorted(f"H{n}" for n in range(9))
    assert [(p.kind, p.hand_id) for p in summary.problems] == [("unstorable", "BIG")]
    summary.conservation.check("in the test")


def test_a_refusal_the_preflight_missed_after_other_flushes_stops_with_the_store_whole(
        tmp_path: Path, db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In a transaction already holding flushes, the refusal rolls back the transaction
    whole and stops the ingest with an error saying how to have the hand quarantined;
    done so (transactions of one flush), the same day is stored but the hand."""
    import ingest.load
    from ingest.commit import TransactionRefused

    path = _jackpot_only_duckdb_refuses(tmp_path, monkeypatch)
    _preflight_misses_it(monkeypatch)
    monkeypatch.setattr(ingest.load, "WRITE_SIZE", 2)
    monkeypatch.setattr(ingest.load, "READ_SIZE", 2)
    with pytest.raises(TransactionRefused, match="--batch-size") as refused:
        ingest_paths([path], db, batch_size=100)
    assert "Conversion" in str(refused.value) or "range" in str(refused.value)
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM raw_hands").fetchall() == [(0,)]
    assert con.execute("SELECT count(*) FROM stg_hands").fetchall() == [(0,)]
    con.close()
    summary = ingest_paths([path], db, batch_size=2)  # a transaction per flush
    assert sorted(summary.stored_ids) == sorted(f"H{n}" for n in range(9))
    assert [(p.kind, p.hand_id) for p in summary.problems] == [("unstorable", "BIG")]

# ---- issue 12: paths and lines ------------------------------------------------------------
def test_missing_paths_are_usage_errors_and_store_nothing(tmp_path: Path) -> None:
    runner = CliRunner()
    db = tmp_path / "store.duckdb"
    good = tmp_path / "good.log"
    good.write_text(_good("A") + "\n")
    for command in (["ingest", str(good), str(tmp_path / "nope"), "--db", str(db)],
                    ["validate", str(tmp_path / "nope.log")],
                    ["nightly", str(tmp_path / "no-inbox"), "--db", str(db)]):
        result = runner.invoke(app, command)
        assert result.exit_code == 2, (command, result.output)
        assert "nope" in result.output or "no-inbox" in result.output
    assert not db.exists()


def test_one_file_by_absolute_and_relative_path_is_one_file(
        tmp_path: Path, db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = example("BAD").replace("Ante: 1", "Ante: x")
    path = tmp_path / "logs" / "day.log"
    path.parent.mkdir()
    path.write_text(_good("A") + "\n\n" + broken + "\n")
    monkeypatch.chdir(tmp_path)
    first = ingest_paths([Path("logs") / "day.log"], db)
    second = ingest_paths([path.resolve()], db)
    third = ingest_paths([Path("logs/../logs/./day.log")], db)
    assert (first.quarantine_added, second.quarantine_added, third.quarantine_added) == (1, 0, 0)
    assert (second.duplicates, third.duplicates) == (1, 1)
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT DISTINCT file FROM quarantine").fetchall() == [(str(path),)]
    assert con.execute("SELECT source_file FROM raw_files").fetchall() == [(str(path),)]
    [(sha, size)] = con.execute("SELECT sha256, content_bytes FROM raw_files").fetchall()
    assert size == path.stat().st_size and len(sha) == 64


def test_one_meaning_of_line_in_the_row_the_message_and_the_cli(tmp_path: Path, db: Path) -> None:
    """The quarantine row's line is the line its error text names, and the one the
    command prints (the hand's first line is ``first_line``)."""
    broken = example("BAD").replace("Seat 5: calls 20", "Seat 5: calls twenty")
    path = tmp_path / "day.log"
    path.write_text(_good("A") + "\n\n" + broken + "\n")
    result = CliRunner().invoke(app, ["ingest", str(path), "--db", str(db)])
    con = duckdb.connect(str(db), read_only=True)
    [(line, first, error)] = con.execute(
        "SELECT line, first_line, error FROM quarantine").fetchall()
    assert error.startswith(f"line {line}: ") and first < line
    assert f"day.log:{line}" in result.output.replace("\n", "")


def test_conservation_is_recorded_in_the_runs_row(tmp_path: Path) -> None:
    from tests.nightly.jobtools import run_in_process

    inbox = tmp_path / "inbox"
    inbox.mkdir()
    split = example("SPLIT").replace("*** DRAW ***", "\n*** DRAW ***")
    (inbox / "a.log").write_text(_good("A", "B") + "\n\n" + split + "\n\n" + _good("A") + "\n")
    (inbox / "b.log.gz").write_bytes(b"not gzip")
    run_in_process(tmp_path)
    con = duckdb.connect(str(tmp_path / "store.duckdb"), read_only=True)
    row = con.execute("SELECT ingest_hands, ingest_stored, ingest_duplicates, "
                      "ingest_quarantined, ingest_file_problems, ingest_balanced "
                      "FROM runs").fetchall()
    assert row == [(5, 2, 1, 2, 1, True)]


def test_a_conservation_failure_stops_the_ingest_loudly(
        tmp_path: Path, db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug that drops a hand between the reader and the store is caught, not reported
    as a good day."""
    import ingest.batches
    from ingest.conservation import ConservationError

    real = ingest.batches.scanned_rows

    def dropping(buf, result, rows, file, offset=0):
        return real(buf, result, rows[1:], file, offset)

    monkeypatch.setattr(ingest.batches, "scanned_rows", dropping)
    path = tmp_path / "day.log"
    path.write_text(_good("A", "B") + "\n")
    with pytest.raises(ConservationError, match="met 2 hand"):
        ingest_paths([path], db)
    result = CliRunner().invoke(app, ["ingest", str(path), "--db", str(tmp_path / "x.db")])
    assert result.exit_code == 2 and "ingest stopped" in result.output
    assert "Traceback" not in result.output


def test_unreadable_file_permissions(tmp_path: Path, db: Path) -> None:
    path = tmp_path / "secret.log"
    path.write_text(_good("A") + "\n")
    path.chmod(0)
    if os.access(path, os.R_OK):  # running as root: permissions do not apply
        pytest.skip("the test user can read any file")
    summary = ingest_paths([path], db)
    assert [p.kind for p in summary.problems] == ["unreadable_file"]
