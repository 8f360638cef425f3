"""A bounded fuzz of every reader: thousands of mutated hands, broken gzip, broken JSON
Lines (issue 15: "0 tracebacks, exact conservation").

A generated room's hands are mutated (characters from the full Unicode range, digits
of other scripts, numbers far past int64, lines dropped, repeated, swapped or cut,
stray blank lines, invalid UTF-8, CRLF, lines over the length limit, repeated and
conflicting ids) and written as plain text, gzip (sound, corrupt and cut) and JSON
Lines (records with mutated values, broken syntax, deep nesting). Then ``ingest``,
``validate`` and ``check`` (fast and reference) read everything: none may raise, and
the hands each met must be exactly the hands an independent count finds in the bytes,
every one stored, a duplicate, or quarantined.
"""

from __future__ import annotations

import gzip
import json
import random
import re
import zlib
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from audit.batch import check_paths
from audit.profiles import load_profile
from ingest.load import ingest_paths
from ingest.validate import validate_paths
from ingest.writer import write_hand
from openers.cli import app
from schemas.limits import MAX_HAND_BYTES
from tests.audit.corpus import corpus

SEED = 20261201
_SEPARATOR = re.compile(rb"\n(?:[ \t\f\v]*\r?\n)+")
_SCRIPT_DIGITS = "١٢٣۴۵६७৮௯๑໒༣၄០᠑１２３𝟘𝟙"
_NUMBER = re.compile(r"[0-9]+")


def _unicode(rng: random.Random) -> str:
    while True:
        code = rng.choice([rng.randrange(0x20, 0x7F), rng.randrange(0x80, 0x800),
                           rng.randrange(0x800, 0x10000), rng.randrange(0x10000, 0x110000),
                           rng.randrange(0, 0x20)])
        if not 0xD800 <= code <= 0xDFFF:
            return chr(code)


def mutate(text: str, rng: random.Random) -> bytes:
    """One hand's text, damaged in one to three ways (the bytes to write)."""
    lines = text.split("\n")
    raw_edits: list[str] = []
    for _ in range(rng.randint(1, 3)):
        how = rng.randrange(11)
        row = rng.randrange(len(lines))
        line = lines[row]
        if how == 0:
            at = rng.randint(0, len(line))
            lines[row] = line[:at] + _unicode(rng) + line[at:]
        elif how == 1 and any(c.isdigit() for c in line):
            at = rng.choice([i for i, c in enumerate(line) if c.isdigit()])
            lines[row] = line[:at] + rng.choice(_SCRIPT_DIGITS) + line[at + 1:]
        elif how == 2 and _NUMBER.search(line):
            big = str(rng.choice([2**31, 2**63, 10**19, 3 * 10**9, 10**rng.randint(10, 60)]))
            lines[row] = _NUMBER.sub(big, line, count=1)
        elif how == 3 and len(lines) > 2:
            del lines[row]
        elif how == 4:
            lines.insert(row, line)
        elif how == 5:
            other = rng.randrange(len(lines))
            lines[row], lines[other] = lines[other], lines[row]
        elif how == 6:
            lines.insert(row, rng.choice(["", "   ", "\t"]))  # a stray blank line
        elif how == 7:
            lines[row] = line[: rng.randint(0, len(line))]
        elif how == 8:
            raw_edits.append("bytes")
        elif how == 9:
            lines[row] = line + rng.choice(["\r", " ", "\t", "\x0b"])
        else:
            lines[row] = line + " " + "z" * rng.choice([100, 20_000])
    data = "\n".join(lines).encode("utf-8")
    if raw_edits:
        at = rng.randint(0, len(data))
        data = data[:at] + bytes(rng.randrange(128, 256) for _ in range(rng.randint(1, 3))) \
            + data[at:]
    return data


def mutate_json(record: dict, rng: random.Random) -> bytes:
    """One record as a JSON line, damaged in one way."""
    how = rng.randrange(8)
    if how == 0:
        record["pot"] = rng.choice([10**19, 2**64, -1, "12", 1.5, True, "١٢"])
    elif how == 1 and record["actions"]:
        rng.choice(record["actions"])["amount"] = rng.choice([10**30, 2**63, "5"])
    elif how == 2:
        record.pop(rng.choice(["hand_id", "time", "seats", "pot"]))
    elif how == 3:
        record["time"] = rng.choice(["0001-01-01T00:00:00+05:00", "2026-11-28T21:04:12",
                                     "tomorrow", "2026-11-28T21:04:12+23:59"])
    elif how == 4:
        record["jackpot"] = rng.choice([3_000_000_000, 0, 10**12])
    text = json.dumps(record, ensure_ascii=rng.random() < 0.5)
    if how == 5:
        text = text[: rng.randint(1, len(text))]
    elif how == 6:
        text = "[" * 5_000 + text + "]" * 5_000
    data = text.encode()
    if how == 7:
        data = data.replace(b'"', b'"\xff', 1)
    return data


def _regions(data: bytes) -> int:
    """Hands in text bytes, counted from the format's definition (not the reader's code):
    blocks between blank lines that hold a line which is neither blank nor a comment, or
    that are longer than the hand limit."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    count = 0
    for region in _SEPARATOR.split(data):
        lines = region.split(b"\n")
        kept = any(line.strip() and not line.strip().startswith(b"#") for line in lines)
        count += kept or len(region.lstrip(b" \t\x0b\x0c\r\n")) > MAX_HAND_BYTES
    return count


def _inflate_until_fault(packed: bytes) -> bytes:
    """What a gzip holds before its first fault, inflated a byte at a time."""
    out, inflate = [], zlib.decompressobj(31)
    for at in range(len(packed)):
        try:
            out.append(inflate.decompress(packed[at:at + 1]))
        except zlib.error:
            break
        if inflate.eof:
            break
    return b"".join(out)


def _jsonl_hands(data: bytes) -> int:
    return sum(1 for line in data.split(b"\n") if line.strip())


@pytest.fixture(scope="module")
def day(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, int]]:
    """The fuzzed day: its folder and the hands each file holds (counted independently)."""
    rng = random.Random(SEED)
    room = corpus("robert", hands=700, seed=SEED % 97, violations=0.05, unrecorded=0.05)
    texts = [write_hand(r) for r in room.records]
    folder = tmp_path_factory.mktemp("fuzz")
    expected: dict[str, int] = {}
    hands: list[bytes] = []
    for text in texts:
        hands.append(text.encode())  # the clean hand too: duplicates and conflicts
        hands += [mutate(text, rng) for _ in range(3)]
    rng.shuffle(hands)
    parts = [hands[k::6] for k in range(6)]
    for k, part in enumerate(parts[:3]):
        data = b"\n\n".join(part) + b"\n"
        (folder / f"plain{k}.log").write_bytes(data.replace(b"\n", b"\r\n") if k == 2 else data)
        expected[f"plain{k}.log"] = _regions(data)
    whole = b"\n\n".join(parts[3]) + b"\n"
    (folder / "sound.log.gz").write_bytes(gzip.compress(whole))
    expected["sound.log.gz"] = _regions(whole)
    for name, part, damage in (("corrupt.log.gz", parts[4], "flip"),
                               ("cut.log.gz", parts[5], "cut")):
        packed = bytearray(gzip.compress(b"\n\n".join(part) + b"\n", compresslevel=1))
        if damage == "flip":
            packed[len(packed) // 2] ^= 0x41
        else:
            del packed[int(len(packed) * 0.8):]
        (folder / name).write_bytes(bytes(packed))
        expected[name] = _regions(_inflate_until_fault(bytes(packed)))
    records = [r.model_dump(mode="json") for r in room.records]
    lines = [json.dumps(r).encode() for r in records[:200]]
    lines += [mutate_json(json.loads(json.dumps(r)), rng) for r in records for _ in range(2)]
    rng.shuffle(lines)
    for k, name in enumerate(("a.jsonl", "b.jsonl.gz")):
        data = b"\n".join(lines[k::2]) + b"\n"
        (folder / name).write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
        expected[name] = _jsonl_hands(data)
    return folder, expected


def test_ingest_meets_every_hand_and_accounts_for_each(day, tmp_path: Path) -> None:
    folder, expected = day
    assert sum(expected.values()) > 3000
    db = tmp_path / "store.duckdb"
    summary = ingest_paths([folder], db)
    summary.conservation.check("in the fuzz test")
    con = duckdb.connect(str(db), read_only=True)
    met = dict(con.execute("SELECT source_file, hands_read FROM raw_files").fetchall())
    assert {Path(f).name: n for f, n in met.items()} == expected
    assert summary.hands_read == sum(expected.values())
    stored = con.execute("SELECT count(*) FROM raw_hands").fetchall()[0][0]
    assert stored == summary.stored == con.execute("SELECT count(*) FROM hands").fetchall()[0][0]
    kinds = dict(con.execute("SELECT kind, count(*) FROM quarantine GROUP BY kind").fetchall())
    assert kinds.get("reader_error", 0) == 0 and kinds.get("unstorable", 0) == 0, kinds
    assert {"bad_gzip", "out_of_range", "bad_amount", "encoding", "line_too_long",
            "invalid_record", "bad_json", "conflict"} <= set(kinds)
    con.close()
    # Reading again adds nothing and meets the same hands.
    again = ingest_paths([folder], db)
    assert (again.stored, again.quarantine_added) == (0, 0)
    assert again.hands_read == summary.hands_read


def test_validate_and_check_meet_the_same_hands(day) -> None:
    folder, expected = day
    total = sum(expected.values())
    report = validate_paths(sorted(folder.iterdir()))
    assert report.hands == total
    profile = load_profile("robert")
    for fast in (True, False):
        checked = check_paths([folder], profile, workers=2, fast=fast)
        hand_problems = [p for p in checked.problems if not p.is_file_item]
        assert checked.hands + len(hand_problems) == total, fast
        assert not [e for r in checked.results for e in r.errors]


def test_no_command_prints_a_traceback(day, tmp_path: Path) -> None:
    folder, _ = day
    runner = CliRunner()
    for command in (["ingest", str(folder), "--db", str(tmp_path / "s.duckdb")],
                    ["validate", str(folder)], ["check", str(folder), "--workers", "1"]):
        result = runner.invoke(app, command)
        assert result.exception is None or isinstance(result.exception, SystemExit), command
        assert "Traceback" not in result.output
        assert result.exit_code in (0, 1, 2)
