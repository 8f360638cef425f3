"""Each kind of damage makes the ingest report the kind the label names."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from ingest.reader import HandReader, QuarantineItem
from openers.generator.damage import KINDS, damage

HAND = Path(__file__).parents[2] / "ingest" / "samples" / "spec_example.log"


def _read(tmp_path: Path, data: bytes) -> list[object]:
    path = tmp_path / "t.log"
    path.write_bytes(data)
    return list(HandReader(path))


@pytest.mark.parametrize("kind", [k for k in KINDS if k != "conflict"])
@pytest.mark.parametrize("last", [True, False])
def test_damage_is_quarantined_as_labelled(tmp_path: Path, kind: str, last: bool) -> None:
    text = HAND.read_text().strip()
    for seed in range(5):
        data, reported = damage(text, kind, random.Random(seed), last_in_file=last)
        if not last:
            data += b"\n\n" + text.encode() + b"\n"  # a good hand follows
        items = _read(tmp_path, data)
        bad = items[0]
        assert isinstance(bad, QuarantineItem), (kind, data)
        assert bad.kind.value == reported
        assert all(not isinstance(item, QuarantineItem) for item in items[1:])
