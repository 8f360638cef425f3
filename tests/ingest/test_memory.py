"""Memory bounded by design (issue 15, observation 10): the readers' peak memory does
not grow with a line's length, a run of blank lines, or a gzip's inflated size.

Measured with tracemalloc (Python and numpy allocations) on inputs of tens of
megabytes, against a bound of a few megabytes: the limit of a hand (``MAX_HAND_BYTES``,
1 MiB) and the reader's block (1 MiB) times small factors. The whole commands'
figures on 100 MB inputs are in ``benchmarks/bench_memory.py``.
"""

from __future__ import annotations

import gzip
import io
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from ingest.reader import HandReader, QuarantineItem
from ingest.scan.layout import H_STATUS
from ingest.scan.scanner import ST_TOO_LONG, scan
from schemas.limits import MAX_HAND_BYTES
from tests.ingest.conftest import example

MB = 1 << 20
SIZE = 32 * MB
#: What reading may hold at once: a hand, a few blocks, a decoded copy of each; well
#: under the input, which is 32 MB.
BOUND = 12 * MB


def _peak(run: Callable[[], object]) -> tuple[int, object]:
    tracemalloc.start()
    try:
        result = run()
        return tracemalloc.get_traced_memory()[1], result
    finally:
        tracemalloc.stop()


def _write(path: Path, middle: Callable[[io.BufferedWriter], None]) -> Path:
    with open(path, "wb") as f:
        f.write(example("A").encode() + b"\n\n")
        middle(f)
        f.write(b"\n\n" + example("B").encode() + b"\n")
    return path


def _kinds(path: Path) -> list[str]:
    return [i.kind.value if isinstance(i, QuarantineItem) else "hand"
            for i in HandReader(path)]


def _long_line(f: io.BufferedWriter) -> None:
    for _ in range(SIZE // MB):
        f.write(b"x" * MB)


def _blank_lines(f: io.BufferedWriter) -> None:
    for _ in range(SIZE // MB):
        f.write(b"\n" * (MB // 2) + b" \t\r\n" * (MB // 8))


def _no_blank_line(f: io.BufferedWriter) -> None:
    for _ in range(SIZE // MB):
        f.write(b"Seat 1: folds\n" * (MB // 14))


def _long_blank_line(f: io.BufferedWriter) -> None:
    for _ in range(SIZE // MB):
        f.write(b" " * MB)


@pytest.mark.parametrize(("middle", "kinds"), [
    (_long_line, ["hand", "hand_too_long", "hand"]),
    (_blank_lines, ["hand", "hand"]),
    (_no_blank_line, ["hand", "hand_too_long", "hand"]),
    (_long_blank_line, ["hand", "hand"]),
])
@pytest.mark.parametrize("packed", [False, True], ids=["plain", "gzip"])
def test_reading_holds_a_bounded_amount_whatever_the_input(tmp_path: Path, middle, kinds,
                                                           packed: bool) -> None:
    path = _write(tmp_path / "day.log", middle)
    if packed:
        with open(path, "rb") as src, gzip.open(tmp_path / "day.log.gz", "wb", 1) as out:
            out.write(src.read())
        path = tmp_path / "day.log.gz"
    peak, got = _peak(lambda: _kinds(path))
    assert got == kinds
    assert peak < BOUND, f"peak {peak / MB:.1f} MiB"


def test_an_oversize_hand_keeps_its_first_bytes_and_its_place(tmp_path: Path) -> None:
    path = _write(tmp_path / "day.log", _long_line)
    _, item, after = list(HandReader(path))
    assert isinstance(item, QuarantineItem)
    assert len(item.raw_text) == MAX_HAND_BYTES and item.raw_text == "x" * MAX_HAND_BYTES
    assert item.first_line == item.line == example("A").count("\n") + 3
    assert f"a hand of {SIZE + 1:,} bytes" in item.error  # the line and its line end
    assert not isinstance(after, QuarantineItem) and after.first_line == item.first_line + 2


def test_a_json_line_too_long_is_streamed_past(tmp_path: Path) -> None:
    path = tmp_path / "day.jsonl"
    with open(path, "wb") as f:
        f.write(b'{"hand_id": "' + b"x" * SIZE + b'"}\n{}\n')
    peak, got = _peak(lambda: [i.kind.value for i in HandReader(path)
                               if isinstance(i, QuarantineItem)])
    assert got == ["hand_too_long", "invalid_record"]
    assert peak < BOUND, f"peak {peak / MB:.1f} MiB"


@pytest.mark.parametrize(("middle", "status"), [(_blank_lines, None), (_long_line, ST_TOO_LONG)])
def test_the_scanner_sizes_its_arrays_by_the_hands_not_the_blank_lines(middle, status,
                                                                       tmp_path: Path) -> None:
    """``check`` of two hands around 100 MB of blank lines took 17 GB (arrays sized by
    the buffer's line count)."""
    data = np.frombuffer(_write(tmp_path / "day.log", middle).read_bytes(), dtype=np.uint8)
    scan(data[:0])  # load the compiled code outside the measure
    peak, result = _peak(lambda: scan(data))
    statuses = [int(s) for s in result.arrays.hands[:, H_STATUS]]  # type: ignore[attr-defined]
    assert statuses == ([0, 0] if status is None else [0, status, 0])
    assert peak < BOUND, f"peak {peak / MB:.1f} MiB"
