"""The streaming reader: line ends, comments, block boundaries, resuming a growing file."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

import ingest.chunks
from ingest.chunks import iter_chunks
from ingest.reader import HandReader, ParsedHand, read_path, read_text
from tests.ingest.conftest import example


def _ids(items) -> list[str]:
    return [i.record.hand_id for i in items if isinstance(i, ParsedHand)]


def test_comments_and_blank_lines_between_and_inside_hands() -> None:
    body = example("C2").replace("*** DEAL ***", "# dealer changed decks\n*** DEAL ***")
    text = f"# export of T07\n\n\n{example('C1')}\n# end of C1\n\n  \n{body}\n"
    items = read_text(text)
    assert _ids(items) == ["C1", "C2"]
    first, second = items
    assert isinstance(first, ParsedHand) and isinstance(second, ParsedHand)
    assert first.first_line == 4 and not first.raw_text.endswith("C1")
    assert "# end of C1" not in first.raw_text
    assert second.first_line == 4 + 51 + 3
    # The comment inside C2 is kept in its raw text and counts for line numbers.
    assert "# dealer changed decks" in second.raw_text
    deal = next(a for a in second.record.actions if a.verb == "dealt")
    assert deal.line == second.first_line + 22


@pytest.mark.parametrize("block", [7, 64, 1 << 20])
def test_block_boundaries_do_not_change_what_is_read(
    monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    data = ("\r\n\r\n".join(example(f"B{i}").replace("\n", "\r\n") for i in range(5))).encode()
    monkeypatch.setattr(ingest.chunks, "BLOCK_SIZE", block)
    chunks = list(iter_chunks(io.BytesIO(data)))
    assert [c.first_line for c in chunks] == [1, 53, 105, 157, 209]
    for c in chunks:
        assert data[c.start_offset:c.end_offset].rstrip(b"\r\n") == c.data


def test_resume_a_growing_file_from_the_last_complete_hand(tmp_path: Path) -> None:
    path = tmp_path / "live.log"
    path.write_text(f"{example('G1')}\n\n{example('G2')}\n\n{example('G3')[:400]}")
    reader = HandReader(path, complete_only=True)
    assert _ids(reader) == ["G1", "G2"]
    offset, line = reader.resume_offset, reader.resume_line
    assert path.read_bytes()[offset:].startswith(b"\nHand: G3")
    # The table system finishes G3 and appends G4.
    path.write_text(f"{example('G1')}\n\n{example('G2')}\n\n{example('G3')}\n\n{example('G4')}")
    later = HandReader(path, start_offset=offset, start_line=line, complete_only=True)
    items = list(later)
    assert _ids(items) == ["G3"]
    assert items[0].first_line == 105
    rest = list(read_path(path, start_offset=later.resume_offset, start_line=later.resume_line))
    assert _ids(rest) == ["G4"] and rest[0].first_line == 157


def test_resume_jsonl(tmp_path: Path) -> None:
    from ingest.parser import parse_hand

    lines = [parse_hand(example(f"J{i}")).model_dump_json() for i in range(3)]
    path = tmp_path / "live.jsonl"
    path.write_text(lines[0] + "\n" + lines[1] + "\n" + lines[2][:50])
    reader = HandReader(path, complete_only=True)
    assert _ids(reader) == ["J0", "J1"]
    path.write_text("\n".join(lines) + "\n")
    again = HandReader(path, start_offset=reader.resume_offset, start_line=reader.resume_line)
    items = list(again)
    assert _ids(items) == ["J2"] and items[0].first_line == 3


def test_sha256_is_of_the_normalised_raw_text() -> None:
    import hashlib

    [item] = read_text(example("S") + "\n")
    assert isinstance(item, ParsedHand)
    assert item.sha256 == hashlib.sha256(example("S").encode()).hexdigest()


def test_utf8_byte_order_mark_is_not_part_of_the_first_hand(tmp_path: Path) -> None:
    path = tmp_path / "bom.log"
    path.write_bytes(b"\xef\xbb\xbf" + f"{example('M1')}\r\n\r\n{example('M2')}".encode())
    items = list(read_path(path))
    assert _ids(items) == ["M1", "M2"]
    assert items[0].first_line == 1 and items[1].first_line == 53


def test_the_files_last_hand_is_read_by_the_scanner_unless_it_may_be_incomplete(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A last hand without a blank line after it is an ordinary hand (the scanner's rows,
    equal to the reference's); only ``complete_only`` reading leaves it for later."""
    from ingest.batches import read_batches
    from ingest.staged import parsed_rows

    path = tmp_path / "day.log"
    path.write_text(f"{example('L1')}\n\n{example('L2')}")
    judged: list[int] = []
    judge = HandReader.judge

    def counted(self: HandReader, chunk: Any, stream: Any) -> Any:
        judged.append(chunk.first_line)
        return judge(self, chunk, stream)

    monkeypatch.setattr(HandReader, "judge", counted)
    [batch] = list(read_batches(HandReader(path), 10))
    assert not judged and not batch.problems
    assert batch.hands.raw.column("hand_id").to_pylist() == ["L1", "L2"]
    truth = parsed_rows([i for i in HandReader(path) if isinstance(i, ParsedHand)])
    assert batch.hands.raw.to_pylist() == truth.raw.to_pylist()
    for name, table in truth.staging.items():
        assert batch.hands.staging[name].to_pylist() == table.to_pylist(), name
    reader = HandReader(path, complete_only=True)
    [batch] = list(read_batches(reader, 10))
    assert batch.hands.raw.column("hand_id").to_pylist() == ["L1"] and judged
    assert path.read_bytes()[reader.resume_offset:].startswith(b"\nHand: L2")
