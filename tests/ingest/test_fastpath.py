"""The columnar fast path accepts only what the reference parser accepts, with the same rows."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ingest.batches import Candidate, fast_tables
from ingest.errors import HandParseError
from ingest.fastpath import parse_columns
from ingest.frames import hand_tables
from ingest.parser import parse_hand
from ingest.reader import ParsedHand, sha256_text
from ingest.writer import write_hand
from tests.ingest.conftest import SAMPLES, example
from tests.ingest.strategies import hand_records
from tests.ingest.test_quarantine import CASES

_NOISE = st.sampled_from([*"0123456789.-+:/[]() ?#*TJQKAcdhsXxé\t\x1c\xa0", "", "  ", "-1",
                          " and is all-in", "Seat 1: ", "*** DRAW ***", "Pot: 1"])


def _rows(tables: dict) -> dict[str, list[dict]]:
    order = {"stg_hands": ("hand_id",), "stg_seats": ("hand_id", "seat"),
             "stg_actions": ("hand_id", "action_index")}
    out: dict[str, list[dict]] = {}
    for name, table in tables.items():
        keys = order[name]
        out[name] = sorted(table.to_pylist(), key=lambda row: tuple(row[c] for c in keys))
    return out


def _reference(texts: list[str], firsts: list[int]) -> dict[str, list[dict]]:
    parsed = [ParsedHand(parse_hand(t, first_line=f), t, sha256_text(t), "f.log", f, 0)
              for t, f in zip(texts, firsts, strict=True)]
    return _rows(hand_tables(parsed))


def _fast(texts: list[str], firsts: list[int]) -> tuple[dict[str, list[dict]], list[int]]:
    batch = parse_columns(texts, firsts)
    chosen = [Candidate(hid, sha256_text(texts[idx]), "f.log", firsts[idx], 0, texts[idx],
                        fast=batch, idx=idx)
              for idx, hid in batch.hands.select("idx", "hand_id").rows()]
    return _rows(fast_tables(batch, chosen)), batch.rejected


def test_samples_take_the_fast_path_with_the_reference_rows() -> None:
    pieces = (SAMPLES / "every_line.log").read_text().rstrip("\n").split("\n\n")[1:]
    texts = [example("F1"), *pieces]
    firsts = [1, 100, 300, 500]
    rows, rejected = _fast(texts, firsts)
    assert rejected == []
    assert rows == _reference(texts, firsts)


@settings(max_examples=80, deadline=None)
@given(st.lists(hand_records(max_actions=12), min_size=1, max_size=4,
                unique_by=lambda r: r.hand_id))
def test_generated_hands_fast_rows_equal_reference_rows(records) -> None:
    texts = [write_hand(r) for r in records]
    firsts = [1 + 100 * i for i in range(len(texts))]
    rows, rejected = _fast(texts, firsts)
    # Canonical text is entirely inside the fast path's subset, except fractional seconds
    # and the Z/+00:00 spelling variants the fast path leaves to the reference parser, and
    # years before 2000 (the fast path reads 2000..8999, well inside the bounds of Time).
    expected_rejects = [i for i, r in enumerate(records)
                        if r.time.microsecond or r.time.year < 2000]
    assert rejected == expected_rejects
    kept = [i for i in range(len(texts)) if i not in rejected]
    assert rows == _reference([texts[i] for i in kept], [firsts[i] for i in kept])


@settings(max_examples=300, deadline=None)
@given(hand_records(max_actions=10), st.data())
def test_fast_path_accepts_only_what_the_reference_accepts(record, data) -> None:
    whole = write_hand(record.model_copy(update={"time": record.time.replace(microsecond=0)}))
    lines = whole.split("\n")
    for _ in range(data.draw(st.integers(1, 3))):
        row = data.draw(st.integers(0, len(lines) - 1))
        line = lines[row]
        digits = [i for i, ch in enumerate(line) if ch.isdigit()]
        how = data.draw(st.sampled_from(["noise", "digit", "zero"]))
        if how == "noise" or not digits:
            col = data.draw(st.integers(0, len(line)))
            cut = data.draw(st.integers(0, 3))
            lines[row] = line[:col] + data.draw(_NOISE) + line[col + cut:]
        else:  # near misses: one digit more (3 decimals, seat 11), or a digit made 0
            col = data.draw(st.sampled_from(digits))
            new = line[col] + data.draw(st.sampled_from("09")) if how == "digit" else "0"
            lines[row] = line[:col] + new + line[col + 1:]
    text = "\n".join(lines)
    rows, rejected = _fast([text], [7])
    if rejected:
        return
    try:
        reference = _reference([text], [7])
    except HandParseError as exc:  # pragma: no cover - this is the failure being looked for
        raise AssertionError(f"fast path accepted what the parser rejects: {exc}") from exc
    assert rows == reference


@pytest.mark.parametrize(("case", "mutate"), [(c[0], c[1]) for c in CASES],
                         ids=[c[0] for c in CASES])
def test_fast_path_rejects_every_broken_hand_of_the_corpus(case, mutate) -> None:
    assert parse_columns([mutate(example("BROKEN"))], [1]).rejected == [0]


def test_a_fast_path_failure_falls_back_to_the_reference_parser(monkeypatch) -> None:
    import polars as pl

    import ingest.batches
    from ingest.batches import read_batches
    from ingest.reader import HandReader

    def broken(texts, firsts):
        raise pl.exceptions.ComputeError("simulated")

    monkeypatch.setattr(ingest.batches, "parse_columns", broken)
    path = SAMPLES / "every_line.log"
    [batch] = list(read_batches(HandReader(path), 100))
    assert [c.hand_id for c in batch.candidates] == [
        "SAMPLE-ALL-1", "SAMPLE-ALL-2", "SAMPLE-ALL-3"]
    assert all(c.parsed is not None for c in batch.candidates)
