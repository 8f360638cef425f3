"""``openers check`` reports exactly what ``openers check --reference`` reports, on every input.

``check_paths(..., fast=True)`` reads hands with the compiled scanner (the reference
parser where it does not read a hand) and makes the facts with the compiled replay;
``fast=False`` reads every hand with the reference parser and replays it in Python.
The same rules run on both. Whatever the input (generated rooms with every code
planted, the rule fixtures, damaged hands, compressed, CRLF and BOM files, JSON Lines,
files cut into many units, tables spread over files, equal times, repeated hands), both
must give the same hands, findings, unverifiable checks, errors and problems, in the
same order.
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from audit.batch import CheckReport, check_paths
from audit.profiles import load_profile
from ingest.writer import write_hand
from tests.audit.corpus import corpus

FIXTURES = Path(__file__).parent / "fixtures"
SPEC_EXAMPLE = Path(__file__).parents[3] / "shared" / "spec" / "hand-log-format.md"


def summary(report: CheckReport) -> dict[str, Any]:
    """Everything a report says, comparable with ``==``."""
    return {
        "hands": report.hands,
        "results": [
            (r.hand_id, r.table_id,
             [f.model_dump(mode="json") for f in r.findings],
             sorted(json.dumps(u.model_dump(mode="json"), sort_keys=True)
                    for u in r.unverifiable),
             sorted(json.dumps(e.model_dump(mode="json"), sort_keys=True) for e in r.errors))
            for r in report.results
        ],
        "problems": [(q.file, q.first_line, q.kind, q.error) for q in report.problems],
    }


def assert_same(paths: list[Path], profile_name: str, workers: int = 1,
                unit_bytes: int | None = None) -> CheckReport:
    profile = load_profile(profile_name)
    extra: dict[str, Any] = {} if unit_bytes is None else {"unit_bytes": unit_bytes}
    reference = check_paths(paths, profile, workers=1, fast=False)
    fast = check_paths(paths, profile, workers=workers, **extra)
    assert summary(fast) == summary(reference)
    if unit_bytes is not None:
        assert summary(check_paths(paths, profile, workers=1, fast=False, **extra)) == \
            summary(reference)
    return fast


@pytest.mark.parametrize("profile_name", ["robert", "house23", "foster", "laws"])
def test_generated_room_with_every_code_planted(profile_name: str) -> None:
    room = corpus(profile_name, hands=1500, seed=3, violations=0.05, unrecorded=0.05,
                  broken=0.01)
    report = assert_same(list(room.files), profile_name)
    assert report.hands > 1400
    assert len({f.code for r in report.results for f in r.findings}) > 20


def test_every_rule_fixture_and_the_spec_example(tmp_path: Path) -> None:
    example = SPEC_EXAMPLE.read_text().split("## Example: a complete hand")[1]
    (tmp_path / "example.log").write_text(example.split("```")[1].strip() + "\n")
    report = assert_same([FIXTURES, tmp_path / "example.log"], "robert")
    assert report.results  # the fixtures break rules
    alone = check_paths([tmp_path / "example.log"], load_profile("robert"))
    assert alone.hands == 1 and not alone.results and not alone.problems


def test_files_cut_into_units_and_tables_spread_over_files(tmp_path: Path) -> None:
    room = corpus("robert", hands=600, seed=5, violations=0.05, unrecorded=0.0)
    records = list(room.records)
    # Deals of every table spread round-robin over three files: every pair crosses files.
    for k in range(3):
        path = tmp_path / f"part{k}.log"
        path.write_text("\n\n".join(write_hand(r) for r in records[k::3]) + "\n")
    assert_same(sorted(tmp_path.iterdir()), "robert", workers=2, unit_bytes=20_000)
    assert_same(sorted(tmp_path.iterdir()), "robert", workers=1, unit_bytes=3_000)


def test_compressed_crlf_bom_jsonl_empty_missing(tmp_path: Path) -> None:
    room = corpus("robert", hands=300, seed=6, violations=0.08, unrecorded=0.05)
    first, second = room.files[0], room.files[1]
    with gzip.open(tmp_path / "a.log.gz", "wb") as f:
        f.write(first.read_bytes())
    (tmp_path / "b.log").write_bytes(b"\xef\xbb\xbf" + second.read_bytes().replace(
        b"\n", b"\r\n"))
    (tmp_path / "c.jsonl").write_text("".join(
        r.model_dump_json() + "\n" for r in room.records[:40]))
    (tmp_path / "d.log").write_text("# nothing but a comment\n\n")
    shutil.copy(room.files[2], tmp_path / "e.log")
    paths = [*sorted(tmp_path.iterdir()), tmp_path / "missing.log"]
    assert_same(paths, "robert", workers=2)


def test_equal_times_and_duplicates_at_one_table(tmp_path: Path) -> None:
    room = corpus("laws", hands=300, seed=7, violations=0.05, unrecorded=0.0)
    records = [r for r in room.records if r.table_id == room.records[0].table_id][:40]
    tied = [r.model_copy(update={"time": records[0].time}) if k % 5 == 0 else r
            for k, r in enumerate(records)]
    text = "\n\n".join(write_hand(r) for r in tied)
    (tmp_path / "tied.log").write_text(text + "\n\n" + write_hand(tied[3]) + "\n")
    assert_same([tmp_path / "tied.log"], "laws", workers=1)


def test_a_large_gzip_is_cut_into_units_and_a_corrupt_one_read_to_its_fault(
        tmp_path: Path) -> None:
    """A .gz is decompressed once into a plain copy and cut like a plain file (a worker
    never holds a whole decompressed file); a corrupt .gz is read by the reference path
    up to its fault, which it reports."""
    from audit.units import plan_units

    room = corpus("robert", hands=300, seed=6, violations=0.08, unrecorded=0.05)
    data = room.files[0].read_bytes()
    with gzip.open(tmp_path / "a.log.gz", "wb") as f:
        f.write(data)
    plan = plan_units([tmp_path / "a.log.gz"], 10_000, tmp_path)
    assert len(plan.units) > 3 and plan.others == []
    report = assert_same([tmp_path / "a.log.gz"], "robert", workers=1, unit_bytes=10_000)
    assert report.hands > 0
    packed = bytearray(gzip.compress(data))
    packed[len(packed) // 2] ^= 0xFF
    (tmp_path / "b.log.gz").write_bytes(bytes(packed))
    report = assert_same([tmp_path / "b.log.gz"], "robert", workers=1)
    assert "bad_gzip" in [p.kind for p in report.problems]
    assert report.hands > 0
