"""The same arguments give byte-identical output, whatever the number of worker processes."""

from __future__ import annotations

from pathlib import Path

from tests.generator.conftest import Generate, log_files


def _snapshot(out: Path) -> dict[str, bytes]:
    files = {p.name: p.read_bytes() for p in log_files(out)}
    files["labels.jsonl"] = (out / "labels.jsonl").read_bytes()
    return files


def test_same_arguments_same_bytes(make_room: Generate) -> None:
    args = dict(hands=600, tables=3, seed=42, violations=0.2, unrecorded_share=0.2,
                broken_share=0.05)
    first = _snapshot(make_room("a", **args, workers=1))
    second = _snapshot(make_room("b", **args, workers=2))
    assert first == second
    assert len(first) > 3


def test_another_seed_other_bytes(make_room: Generate) -> None:
    a = _snapshot(make_room("a", hands=200, tables=2, seed=1))
    b = _snapshot(make_room("b", hands=200, tables=2, seed=2))
    assert any(a[name] != b.get(name) for name in a if name != "labels.jsonl")
