"""A corpus of broken input: each ends in quarantine with the expected error, and the
good hands around it are all stored."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest

from ingest.load import MissingPathError, ingest_paths
from ingest.reader import HandReader, QuarantineItem
from tests.ingest.conftest import example


def _sub(old: str, new: str) -> Callable[[str], str]:
    def mutate(text: str) -> str:
        assert old in text, old
        return text.replace(old, new, 1)

    return mutate


def _swap_sections(text: str) -> str:
    return text.replace("*** ANTES ***", "@@").replace("*** DEAL ***", "*** ANTES ***").replace(
        "@@", "*** DEAL ***")


def _drop_result(text: str) -> str:
    return text.split("*** RESULT ***")[0].rstrip("\n")


# (case, mutation of the example, expected kind, expected error line (hand-relative), token)
CASES = [
    ("bad card", _sub("[Jh Js 4c 8d 2s]", "[Jh Js 4c 8d 1s]"), "bad_card", 22, "'1s'"),
    ("unknown verb", _sub("Seat 6: checks", "Seat 6: knocks"), "unknown_verb", 27, "'knocks'"),
    ("missing header", _sub("Table: T07\n", ""), "missing_header", 15, "Table"),
    ("amount 3 decimals", _sub("Seat 1: opens 10", "Seat 1: opens 10.005"), "bad_amount", 28,
     "'10.005'"),
    ("negative amount", _sub("Seat 5: calls 20", "Seat 5: calls -20"), "bad_amount", 30,
     "'-20'"),
    ("section order", _swap_sections, "section_order", 21, "*** ANTES ***"),
    ("malformed seat", _sub("Seat 3: P-30988 (96)", "Seat 3: P-30988 96"), "bad_seat", 13,
     "P-30988 96"),
    ("seat out of range", _sub("Seat 1: antes 1", "Seat 11: antes 1"), "bad_seat", 17, "'11'"),
    ("bad time", _sub("2026-11-28T21:04:12-08:00", "2026-11-28 21:04"), "bad_time", 2,
     "2026-11-28 21:04"),
    ("time without offset", _sub("21:04:12-08:00", "21:04:12"), "bad_time", 2, "21:04:12"),
    ("bad limit", _sub("Limit: 10/20", "Limit: 10-20"), "bad_limit", 7, "'10-20'"),
    ("unknown section", _sub("*** DRAW ***", "*** FLOP ***"), "unknown_section", 33, "FLOP"),
    ("unknown actor", _sub("Seat 5: mucks", "Player 5: mucks"), "unknown_actor", 46,
     "'Player 5'"),
    ("unknown header", _sub("Button: 5", "Button: 5\nStakes: high"), "unknown_header", 11,
     "'Stakes'"),
    ("duplicate header", _sub("Ante: 1", "Ante: 1\nAnte: 2"), "duplicate_header", 9, "Ante"),
    ("bad game", _sub("Jacks or Better", "Omaha"), "bad_header", 6, "'Omaha'"),
    ("one seat", _sub("Seat 3: P-30988 (96)\nSeat 5: P-41002 (1020)\nSeat 6: P-50231 (75)\n",
                      ""), "missing_header", 13, "Seat"),
    ("all-in after fold", _sub("Seat 6: folds", "Seat 6: folds and is all-in"), "syntax", 31,
     "all-in"),
    ("no RESULT", _drop_result, "missing_result", 47, "RESULT"),
    ("no Pot", _sub("Pot: 144\n", ""), "missing_result", 50, "Pot"),
    ("bad hand id", _sub("Hand: BROKEN", "Hand: BROKEN/1"), "bad_header", 1, "BROKEN/1"),
]


@pytest.mark.parametrize(("case", "mutate", "kind", "line", "token"), CASES,
                         ids=[c[0] for c in CASES])
def test_broken_hand_is_quarantined_and_neighbours_stored(
    tmp_path: Path, db: Path, case: str, mutate: Callable[[str], str], kind: str, line: int,
    token: str,
) -> None:
    broken = mutate(example("BROKEN"))
    # Two good hands before, one after; the broken one starts at line 1 + 2 * 52.
    text = "\n\n".join([example("GOOD-1"), example("GOOD-2"), broken, example("GOOD-3")])
    path = tmp_path / "day.log"
    path.write_text(text + "\n")
    summary = ingest_paths([path], db)
    assert sorted(summary.stored_ids) == ["GOOD-1", "GOOD-2", "GOOD-3"]
    assert summary.quarantined == 1
    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute("SELECT file, line, first_line, hand_id, kind, error, error_line, "
                       "raw_text FROM quarantine").fetchall()
    assert len(rows) == 1
    file, at, first, hand_id, got_kind, error, error_line, raw = rows[0]
    assert (file, first, got_kind) == (str(path), 105, kind)
    assert hand_id == ("BROKEN/1" if case == "bad hand id" else "BROKEN")
    # One meaning of "line": the row's line is the line its error text names.
    assert at == error_line == 104 + line, error
    assert error.startswith(f"line {at}: ")
    assert token in error
    assert raw == broken
    assert con.execute("SELECT count(*) FROM hands").fetchall() == [(3,)]


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(("cut", "message"), [
    (700, "ends inside this hand"),  # mid-line
    (-len("*** RESULT ***\nPot: 144\nRake: 4\nSeat 3: collects 140"), "before *** RESULT ***"),
])
def test_truncated_file_quarantines_the_cut_hand(
    tmp_path: Path, db: Path, cut: int, message: str
) -> None:
    part = example("CUT")[:cut]
    path = _write(tmp_path / "cut.log", f"{example('A')}\n\n{example('B')}\n\n{part}".encode())
    summary = ingest_paths([path], db)
    assert sorted(summary.stored_ids) == ["A", "B"]
    [problem] = summary.problems
    assert problem.kind == "truncated" and problem.hand_id == "CUT" and problem.first_line == 105
    assert message in problem.error


def test_error_on_last_line_of_complete_file_is_not_truncation(tmp_path: Path, db: Path) -> None:
    bad = example("LAST").replace("collects 140", "collects 14O")
    summary = ingest_paths([_write(tmp_path / "x.log", f"{bad}\n".encode())], db)
    assert [p.kind for p in summary.problems] == ["bad_amount"]


def test_non_utf8_hand_is_quarantined_with_its_line(tmp_path: Path, db: Path) -> None:
    bad = example("LATIN").replace("Bay City Card Club", "Caf\xe9").encode("latin-1")
    data = example("A").encode() + b"\n\n" + bad + b"\n\n" + example("B").encode()
    summary = ingest_paths([_write(tmp_path / "enc.log", data)], db)
    assert sorted(summary.stored_ids) == ["A", "B"]
    [problem] = summary.problems
    assert problem.kind == "encoding" and problem.line == 52 + 3
    assert "not UTF-8" in problem.error and problem.hand_id == "LATIN"


@pytest.mark.parametrize("content", [b"", b"\n\n  \n", b"# only a comment\n"])
def test_empty_file_is_reported(tmp_path: Path, db: Path, content: bytes) -> None:
    good = _write(tmp_path / "a.log", example("A").encode())
    empty = _write(tmp_path / "empty.log", content)
    summary = ingest_paths([good, empty], db)
    assert summary.stored_ids == ["A"] and summary.files == 2
    [problem] = summary.problems
    assert (problem.kind, problem.file) == ("empty_file", str(empty))


def test_unreadable_gzip_is_reported(tmp_path: Path, db: Path) -> None:
    broken = _write(tmp_path / "bad.log.gz", b"this is not gzip")
    good = _write(tmp_path / "good.log.gz", gzip.compress(example("A").encode()))
    summary = ingest_paths([broken, good], db)
    assert summary.stored_ids == ["A"]
    assert [p.kind for p in summary.problems] == ["bad_gzip"]


def test_mistyped_path_is_a_usage_error_and_stores_nothing(tmp_path: Path, db: Path) -> None:
    good = _write(tmp_path / "good.log", example("A").encode())
    with pytest.raises(MissingPathError, match=r"nope\.log"):
        ingest_paths([good, tmp_path / "nope.log"], db)
    with pytest.raises(MissingPathError, match=r"\*\.nope"):
        ingest_paths([str(tmp_path / "*.nope")], db)
    assert not db.exists()


def test_file_gone_while_read_is_reported(tmp_path: Path) -> None:
    """A path that existed when expanded but cannot be read: an item of the file."""
    [item] = list(HandReader(tmp_path / "vanished.log"))
    assert isinstance(item, QuarantineItem)
    assert (item.kind, item.is_file_item) == ("unreadable_file", True)


def test_jsonl_bad_lines_are_quarantined(tmp_path: Path, db: Path) -> None:
    from ingest.parser import parse_hand

    good = parse_hand(example("J1")).model_dump(mode="json")
    negative = {**parse_hand(example("J2")).model_dump(mode="json"), "pot": -1}
    lines = [json.dumps(good), "{not json", json.dumps(negative),
             json.dumps({**good, "hand_id": "J3"})]
    summary = ingest_paths([_write(tmp_path / "h.jsonl", "\n".join(lines).encode())], db)
    assert sorted(summary.stored_ids) == ["J1", "J3"]
    kinds = [(p.kind, p.first_line, p.hand_id) for p in summary.problems]
    assert kinds == [("bad_json", 2, None), ("invalid_record", 3, "J2")]
    assert "pot" in summary.problems[1].error
