"""The compiled scanner against the reference chunker, reader and ``from_records``.

The safety rule under test: a chunk the scanner reads (status 0) is one the
reference reader reads, and ``from_records`` of that record gives exactly the
scanner's rows. Chunk boundaries must be exactly ``iter_chunks``'s, read or not.
"""

from __future__ import annotations

import io
import random
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ingest.chunks as chunks_module
from audit.facts.layout import (
    CARD,
    E_ALL_IN,
    E_CARDS_COUNT,
    E_CARDS_START,
    E_DRAWN_COUNT,
    E_DRAWN_START,
    E_SIDE_POT,
    E_VERB,
    H_BYTE_END,
    H_BYTE_START,
    H_EVENT_COUNT,
    H_EVENT_START,
    H_SEAT_COUNT,
    H_SEAT_START,
    H_STATUS,
    VERBS,
    HandArrays,
    fnv1a64,
    from_records,
)
from ingest.chunks import Chunk, iter_chunks
from ingest.reader import HandReader, ParsedHand, RawHand, parse_raw
from ingest.scan.scanner import ScanResult, scan
from ingest.scan.tokens import (
    card_code,
    first_flagged,
    newline_bytes,
    unprintable_bytes,
)
from ingest.scan.tokens import fnv1a64 as compiled_fnv1a64
from tests.audit.corpus import corpus
from tests.ingest.every_line import EVERY_VERB, every_line_hands, spec_example

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = sorted((ROOT / "tests" / "audit" / "fixtures").glob("*.log"))
PROFILES = ("robert", "house23", "foster", "laws")
_READER = HandReader("<scan-test>")


def _scan(data: bytes) -> tuple[np.ndarray, ScanResult]:
    buf = np.frombuffer(data, dtype=np.uint8)
    return buf, scan(buf)


def _chunks(data: bytes) -> list[Chunk]:
    buf, result = _scan(data)
    return [result.chunk(buf, i) for i in range(len(result))]


def _reference(chunk: Chunk) -> ParsedHand | None:
    raw = _READER._raw_hand(chunk)
    if not isinstance(raw, RawHand):
        return None
    got = parse_raw(raw)
    return got if isinstance(got, ParsedHand) else None


def _hand_rows(arrays: HandArrays, h: int) -> HandArrays:
    """Hand ``h``'s rows alone, offsets rebased as ``from_records`` of one record gives."""
    row = arrays.hands[h].copy()
    s0, sn = row[H_SEAT_START], row[H_SEAT_COUNT]
    e0, en = row[H_EVENT_START], row[H_EVENT_COUNT]
    events = arrays.events[e0:e0 + en].copy()
    c0 = int(events[0, E_CARDS_START]) if en else 0
    c1 = (int(events[-1, E_DRAWN_START] + max(events[-1, E_DRAWN_COUNT], 0)) if en else 0)
    events[:, E_CARDS_START] -= c0
    events[:, E_DRAWN_START] -= c0
    row[H_SEAT_START] = row[H_EVENT_START] = 0
    row[H_STATUS] = 0
    row[H_BYTE_START] = row[H_BYTE_END] = -1
    return HandArrays(row[None, :], arrays.seats[s0:s0 + sn].copy(), events,
                      arrays.cards[c0:c1].copy())


def _assert_same(mine: HandArrays, ref: HandArrays, where: str) -> None:
    assert mine.hands.tolist() == ref.hands.tolist(), where
    assert mine.seats.tolist() == ref.seats.tolist(), where
    assert mine.events.tolist() == ref.events.tolist(), where
    assert mine.cards.tolist() == ref.cards.tolist(), where
    counts = ref.events[:, E_CARDS_COUNT].clip(0) + ref.events[:, E_DRAWN_COUNT].clip(0)
    assert int(counts.sum()) == len(ref.cards), where


def check_buffer(data: bytes) -> tuple[int, int]:
    """Assert the safety rule on every chunk of ``data``: (chunks read, reference-readable)."""
    buf, result = _scan(data)
    chunks = [result.chunk(buf, i) for i in range(len(result))]
    assert chunks == list(iter_chunks(io.BytesIO(data)))
    read = readable = 0
    for h, chunk in enumerate(chunks):
        parsed = _reference(chunk)
        readable += parsed is not None
        if result.arrays.hands[h, H_STATUS] != 0:
            assert result.arrays.hands[h, H_EVENT_COUNT] == 0
            assert result.arrays.hands[h, H_SEAT_COUNT] == 0
            continue
        read += 1
        where = chunk.data.decode("utf-8", "replace")
        assert parsed is not None, f"read by the scanner, not by the reference:\n{where}"
        _assert_same(_hand_rows(result.arrays, h), from_records([parsed.record]), where)
    return read, readable


# ---- chunking -------------------------------------------------------------------------
_LINES = [b"", b" ", b"\t", b" \t\x0b\x0c", b"\r", b" \r", b"#", b"# note", b"  # c", b"\t#x",
          b"Hand: a", b"Seat 1: folds", b"x", b"x ", b" x", b"\x1c", b"\xc3\xa9", b"*** RESULT ***",
          b"\r\r", b"a\rb", b"#\r"]


@settings(max_examples=400, deadline=None)
@given(
    lines=st.lists(st.tuples(st.sampled_from(_LINES), st.sampled_from([b"\n", b"\r\n"])),
                   max_size=25),
    bom=st.booleans(),
    cut=st.booleans(),
    start_line=st.integers(1, 50),
)
def test_chunks_equal_iter_chunks(lines: list[tuple[bytes, bytes]], bom: bool, cut: bool,
                                  start_line: int) -> None:
    data = (b"\xef\xbb\xbf" if bom else b"") + b"".join(a + b for a, b in lines)
    if cut and data.endswith(b"\n"):
        data = data[:-1]
    buf = np.frombuffer(data, dtype=np.uint8)
    result = scan(buf, start_line)
    got = [result.chunk(buf, i) for i in range(len(result))]
    assert got == list(iter_chunks(io.BytesIO(data), start_line=start_line))


def test_chunks_equal_iter_chunks_read_in_small_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reference reads 1 MB blocks; its chunks must not depend on where blocks end."""
    rng = random.Random(7)
    for _ in range(300):
        data = b"".join(rng.choice(_LINES) + rng.choice([b"\n", b"\r\n"])
                        for _ in range(rng.randrange(30)))
        mine = _chunks(data)
        for size in (1, 2, 3, 5, 8):
            monkeypatch.setattr(chunks_module, "BLOCK_SIZE", size)
            assert mine == list(iter_chunks(io.BytesIO(data)))


def test_chunks_of_generated_logs_with_crlf_bom_and_comments() -> None:
    for path in corpus("robert", hands=300, seed=5).files[:2]:
        text = path.read_bytes().replace(b"\r\n", b"\n")
        variants = [text, text.replace(b"\n", b"\r\n"), b"\xef\xbb\xbf" + text,
                    text.replace(b"\n\n", b"\n# between\n  \t\n\n#x\n"),
                    text.replace(b"\n*** DEAL", b"\n# inside\n*** DEAL").rstrip(b"\n")]
        for data in variants:
            assert _chunks(data) == list(iter_chunks(io.BytesIO(data)))


# ---- tokens -----------------------------------------------------------------------------
def test_fnv1a64_matches_layout() -> None:
    for text in (b"", b"T07", b"BCY-T07-000123", bytes(range(32, 127))):
        buf = np.frombuffer(text, dtype=np.uint8)
        assert compiled_fnv1a64(buf, 0, len(text)) == fnv1a64(text)


def test_card_code_table_matches_layout() -> None:
    for first in range(256):
        for second in range(256):
            expected = CARD.get(bytes((first, second)).decode("latin-1"), -1)
            assert card_code(first, second) == expected, (first, second)


def test_word_tests_match_bytes() -> None:
    """The eight-bytes-at-once tests never miss a line end or an unprintable byte."""
    rng = np.random.default_rng(5)
    edges = np.array([0, 1, 9, 10, 13, 31, 32, 33, 126, 127, 128, 254, 255, 65], np.uint8)
    words = np.concatenate([rng.integers(0, 256, (3000, 8)), rng.choice(edges, (3000, 8)),
                            rng.integers(32, 127, (3000, 8))]).astype(np.uint8)
    for row in words:
        word = row.view(np.uint64)[0]
        for flags, special in ((unprintable_bytes(word), (row < 32) | (row > 126)),
                               (newline_bytes(word), row == 10)):
            assert bool(flags) == bool(special.any()), row
            if flags:  # the scanner jumps to the first flagged byte: it must be the first
                assert first_flagged(np.uint64(flags)) == int(np.flatnonzero(special)[0]), row


# ---- hands ------------------------------------------------------------------------------
def _spec_example() -> bytes:
    return spec_example().encode()


def test_every_line_kind_is_read_as_the_reference_reads_it() -> None:
    """Every verb of the format, all-in wagers and side pots: read, and read exactly."""
    hands = every_line_hands()
    text = "\n\n".join(hands).encode()
    for data in (text, text.replace(b"\n", b"\r\n")):
        read, readable = check_buffer(data)
        assert read == readable == len(hands) - 1  # one variant has a line no reader takes
        events = _scan(data)[1].arrays.events
        assert {VERBS[v] for v in events[:, E_VERB].tolist()} == EVERY_VERB
        assert set(events[:, E_ALL_IN].tolist()) == {0, 1}
        assert set(events[:, E_SIDE_POT].tolist()) == {0, 1, 999_999_999}


def test_fixtures_follow_the_safety_rule() -> None:
    total_read = total_readable = 0
    for path in FIXTURES:
        read, readable = check_buffer(path.read_bytes())
        total_read += read
        total_readable += readable
    assert total_read > 0.5 * total_readable


@pytest.mark.parametrize("profile", PROFILES)
def test_generated_corpora_follow_the_safety_rule(profile: str) -> None:
    room = corpus(profile, hands=1200, seed=11, violations=0.05, unrecorded=0.05, broken=0.01)
    read = readable = 0
    for path in room.files:
        r, ok = check_buffer(path.read_bytes())
        read += r
        readable += ok
    print(f"{profile}: scanner read {read}/{readable} reference-readable chunks")
    assert read == readable  # only malformed hands are left to the reference


# ---- mutations --------------------------------------------------------------------------
_STRAY = ["Floor: note x", "Dealer: misdeal", "Seat 1: folds", "Seat 2: checks", "Pot: 5",
          "Rake: 1", "Passed out: carried 3", "Hand: X-1", "Jackpot: 2", "Seat 9: P-9 (10)",
          "*** DRAW ***", "*** RESULT ***", "# comment", "", "  ", "Seat 3: calls 5 and is all-in",
          "Seat 1: collects 5 from side pot 1", "Openers: KK", "Carried: 0", "Joker: yes",
          "Room: X", "Seat 4: withdraws 5", "Dealer: burns", "Seat 2: mucks",
          "Seat 1: shows [Ah Ad Ac Kh Kd] (full house, aces)", "Seat 5: [?? ?? ?? ?? ??]",
          "Dealer: exposes [4h] to Seat 1", "Dealer: returns 5 to Seat 2", "Seat 2: splits openers",
          "Dealer: deals [Ah Kd] to Seat 3", "Seat 1: draws fifth [Ah]", "Dealer: misdeal"]
_BYTES = b" \t\r\n#:0123456789.-/[]()?JkXx\xc3\xa9\x00\x7fTZ+"


def _mutate(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    kind = rng.randrange(12)
    i = rng.randrange(len(text))
    if kind == 0:
        return text[:i] + text[i + 1:]
    if kind == 1:
        return text[:i] + text[i] + text[i:]
    if kind == 2:
        digits = [m.start() for m in re.finditer(r"\d", text)]
        j = rng.choice(digits)
        return text[:j] + rng.choice("0123456789") + text[j + 1:]
    if kind == 3:
        spaces = [m.start() for m in re.finditer(" ", text)]
        j = rng.choice(spaces)
        return text[:j] + rng.choice(["  ", "\t", "", " \t"]) + text[j + 1:]
    if kind == 4:
        cards = [m.start() for m in re.finditer(r"[2-9TJQKA][cdhs]", text)]
        j = rng.choice(cards)
        new = rng.choice(["Jk", "??", "1c", "Ax", "ah", "TT", "A", "Ahh", rng.choice(
            ["2c", "Kd", "Qs", "Th", "9c"])])
        return text[:j] + new + text[j + 2:]
    if kind == 5:
        del lines[rng.randrange(len(lines))]
    elif kind == 6:
        lines.insert(rng.randrange(len(lines) + 1), rng.choice(_STRAY))
    elif kind == 7:
        j = rng.randrange(len(lines))
        lines.insert(j, lines[j])
    elif kind == 8:
        j, k = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[j], lines[k] = lines[k], lines[j]
    elif kind == 9:
        j = rng.randrange(len(lines))
        lines[j] = lines[j] + rng.choice([" ", "\r", "x", ")", "]", ".5", "0", " and is all-in"])
    elif kind == 10:
        numbers = [m.start() for m in re.finditer(r"(?<![\d.])\d", text)]
        j = rng.choice(numbers)
        return text[:j] + rng.choice(["0", "00", ".", "-", "+", "1"]) + text[j:]
    else:
        return text[:i] + chr(rng.choice(_BYTES)) + text[i + 1:]
    return "\n".join(lines)


def test_mutated_hands_are_never_misread() -> None:
    rng = random.Random(2026)
    room = corpus("robert", hands=400, seed=3, violations=0.05, unrecorded=0.05)
    texts = [p.read_text().replace("\r\n", "\n") for p in room.files]
    hands = [h for t in texts for h in t.split("\n\n") if h.strip()]
    spec = _spec_example().decode()
    pieces: list[str] = []
    for hand in [spec, *rng.sample(hands, min(300, len(hands)))]:
        for _ in range(25):
            mutated = hand
            for _ in range(rng.choice((1, 1, 1, 2, 3))):
                mutated = _mutate(mutated, rng)
            pieces.append(mutated)
    data = "\n\n".join(pieces).encode("utf-8", "surrogateescape")
    read, readable = check_buffer(data)
    print(f"mutations: {len(pieces)} mutated hands, {readable} reference-readable chunks, "
          f"{read} read by the scanner")
    assert read > 0.15 * len(pieces)  # the test must exercise acceptance, not only refusal
