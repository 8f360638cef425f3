"""The scanner's staging rows equal the reference parser's, exactly (issue 11: one reader
for speed, one for truth).

For every hand the compiled scanner reads, :func:`ingest.staged.scanned_rows` must give
the very rows :func:`ingest.staged.parsed_rows` gives from the reference parser's
record: same values, same types, same nulls, same order. Checked on generated rooms of
every profile (with unrecorded cards and planted violations), on every rule fixture and
the spec's samples, with CRLF line ends, and on mutated hands.
"""

from __future__ import annotations

import io
import random
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from ingest.chunks import iter_chunks
from ingest.reader import HandReader, ParsedHand, RawHand, parse_raw
from ingest.scan.layout import H_STATUS
from ingest.scan.scanner import scan
from ingest.staged import HandRows, parsed_rows, scanned_rows
from tests.audit.corpus import corpus
from tests.ingest.every_line import every_line_hands

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = sorted((ROOT / "tests" / "audit" / "fixtures").glob("*.log"))
SAMPLES = sorted((ROOT / "ingest" / "samples").glob("*.log"))
_READER = HandReader("<staged-test>")


def _both(data: bytes, file: str = "f.log") -> tuple[HandRows, HandRows, int]:
    """The scanner's rows and the reference's rows of the hands the scanner reads."""
    buf = np.frombuffer(data, dtype=np.uint8)
    result = scan(buf)
    chunks = list(iter_chunks(io.BytesIO(data)))
    assert len(chunks) == len(result)
    read = np.flatnonzero(result.arrays.hands[:, H_STATUS] == 0)
    parsed: list[ParsedHand] = []
    for row in read.tolist():
        raw = _READER._raw_hand(chunks[row])
        assert isinstance(raw, RawHand)
        got = parse_raw(RawHand(raw.text, raw.sha256, file, raw.chunk))
        assert isinstance(got, ParsedHand), got
        parsed.append(got)
    return scanned_rows(buf, result, read, file), parsed_rows(parsed), len(result)


def assert_equal_rows(fast: HandRows, truth: HandRows) -> None:
    assert fast.raw.schema == truth.raw.schema
    assert fast.raw.to_pylist() == truth.raw.to_pylist()
    for name, table in truth.staging.items():
        assert fast.staging[name].schema == table.schema, name
        got, want = fast.staging[name].to_pylist(), table.to_pylist()
        assert len(got) == len(want), name
        for a, b in zip(got, want, strict=True):
            assert a == b, (name, a, b)


@pytest.mark.parametrize("profile", ["robert", "house23", "foster", "laws"])
def test_generated_rooms(profile: str) -> None:
    room = corpus(profile, hands=400, seed=3, violations=0.1, unrecorded=0.1)
    for path in room.files:
        fast, truth, chunks = _both(path.read_bytes(), str(path))
        assert len(fast) > 0.6 * chunks  # most hands are the scanner's
        assert_equal_rows(fast, truth)


def test_fixtures_samples_and_crlf() -> None:
    for path in [*FIXTURES, *SAMPLES]:
        data = path.read_bytes()
        for variant in (data, data.replace(b"\n", b"\r\n")):
            fast, truth, _ = _both(variant)
            assert_equal_rows(fast, truth)


def test_every_line_kind() -> None:
    """All-in wagers, side pots, withdrawals, floor rulings and notes: the same rows."""
    hands = every_line_hands()
    data = "\n\n".join(hands).encode()
    for variant in (data, data.replace(b"\n", b"\r\n")):
        fast, truth, chunks = _both(variant)
        assert len(fast) == chunks - 1  # one variant has a line no reader takes
        assert_equal_rows(fast, truth)
        actions = fast.staging["stg_actions"]
        assert actions.column("note").drop_null().to_pylist() == [
            "late ante: (ok)", " paid   in full", "redeal as T07-124"]
        assert "full house, kings full" in actions.column("reading").to_pylist()


def test_mutated_hands() -> None:
    """Whatever the scanner still reads after a mutation, it reads as the parser does."""
    rng = random.Random(11)
    room = corpus("robert", hands=300, seed=4, violations=0.05, unrecorded=0.05)
    text = room.files[0].read_text()
    hands = text.split("\n\n")
    noise = ["0", "9", ".5", " ", "x", "[", "]", "(", ")", "Jk", "??", "-", ":", "Seat 1: "]
    out = []
    for hand in hands:
        lines = hand.split("\n")
        row = rng.randrange(len(lines))
        at = rng.randint(0, len(lines[row]))
        lines[row] = lines[row][:at] + rng.choice(noise) + lines[row][at + rng.randint(0, 2):]
        out.append("\n".join(lines))
    fast, truth, _ = _both("\n\n".join(out).encode())
    assert_equal_rows(fast, truth)


def test_take_and_concat_keep_each_hands_rows() -> None:
    room = corpus("robert", hands=200, seed=5)
    fast, truth, _ = _both(room.files[0].read_bytes())
    rows = np.array([0, 2, 3, len(fast) - 1])
    assert_equal_rows(fast.take(rows), truth.take(rows))
    joined = HandRows.concat([fast.take(rows[:2]), fast.take(rows[2:])])
    assert_equal_rows(joined, truth.take(rows))
    assert joined.staging["stg_actions"].column("_hand").to_pylist() == \
        truth.take(rows).staging["stg_actions"].column("_hand").to_pylist()
    assert HandRows.concat([]).raw.num_rows == 0
    assert isinstance(fast.tables()["stg_hands"], pa.Table)
