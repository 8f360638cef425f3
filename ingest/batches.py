"""Read a file in batches: the columnar fast path first, the reference parser for the rest.

A batch is up to ``size`` hands of one file. Text hands go through
:func:`ingest.fastpath.parse_columns`; the hands it leaves (anything outside its
canonical subset, and every broken hand) are parsed by :func:`ingest.reader.parse_raw`,
which gives their record or their precise error. JSONL files are read by the
reference path only.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import polars as pl
import pyarrow as pa

from ingest.fastpath import FastBatch, parse_columns
from ingest.frames import STG_ACTIONS, STG_HANDS, STG_SEATS
from ingest.reader import HandReader, ParsedHand, QuarantineItem, RawHand, parse_raw


@dataclass(frozen=True, slots=True)
class Candidate:
    """A hand that was read and validated, on its way to the store."""

    hand_id: str
    sha256: str
    file: str
    first_line: int
    end_offset: int
    raw_text: str
    #: The record, when the reference parser read it (None: it is a row of ``fast``).
    parsed: ParsedHand | None = None
    fast: FastBatch | None = None
    idx: int = -1


@dataclass
class ReadBatch:
    """The hands (in file order) and the problems of one batch."""

    candidates: list[Candidate] = field(default_factory=list)
    problems: list[QuarantineItem] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.candidates) + len(self.problems)


def _from_parsed(item: ParsedHand) -> Candidate:
    return Candidate(item.record.hand_id, item.sha256, item.file, item.first_line,
                     item.end_offset, item.raw_text, parsed=item)


def _finish(raws: list[RawHand], done: list[ParsedHand | QuarantineItem]) -> ReadBatch:
    batch = ReadBatch()
    if raws:
        try:
            fast = parse_columns([r.text for r in raws], [r.first_line for r in raws])
        except pl.exceptions.PolarsError:
            # Never expected (the fuzz tests look for it); if it happens, the reference
            # parser reads the batch, so a fast-path bug cannot stop an ingest.
            return _finish([], [*done, *(parse_raw(r) for r in raws)])
        ids = fast.hands.select("idx", "hand_id").rows()
        for idx, hand_id in ids:
            raw = raws[idx]
            batch.candidates.append(Candidate(hand_id, raw.sha256, raw.file, raw.first_line,
                                              raw.chunk.end_offset, raw.text, fast=fast, idx=idx))
        done = done + [parse_raw(raws[i]) for i in fast.rejected]
    for item in done:
        if isinstance(item, ParsedHand):
            batch.candidates.append(_from_parsed(item))
        else:
            batch.problems.append(item)
    batch.candidates.sort(key=lambda c: c.first_line)
    batch.problems.sort(key=lambda p: p.first_line)
    return batch


def read_batches(reader: HandReader, size: int) -> Iterator[ReadBatch]:
    """The file of ``reader`` as batches of at most ``size`` hands."""
    raws: list[RawHand] = []
    done: list[ParsedHand | QuarantineItem] = []
    for item in reader.items(raw=True):
        if isinstance(item, RawHand):
            raws.append(item)
        else:
            done.append(item)
        if len(raws) + len(done) >= size:
            yield _finish(raws, done)
            raws, done = [], []
    if raws or done:
        yield _finish(raws, done)


def fast_tables(fast: FastBatch, chosen: list[Candidate]) -> dict[str, pa.Table]:
    """The staging rows of the ``chosen`` hands of ``fast``, in the store's schema."""
    meta = pl.DataFrame(
        {"idx": [c.idx for c in chosen], "source_file": [c.file for c in chosen],
         "sha256": [c.sha256 for c in chosen]},
        schema={"idx": pl.Int32, "source_file": pl.String, "sha256": pl.String},
    )
    hands = fast.hands.join(meta, on="idx")
    ids = hands.select("idx", "hand_id")
    seats = fast.seats.join(ids, on="idx")
    actions = fast.actions.join(ids, on="idx")
    return {
        "stg_hands": hands.select(STG_HANDS.names).to_arrow().cast(STG_HANDS),
        "stg_seats": seats.select(STG_SEATS.names).to_arrow().cast(STG_SEATS),
        "stg_actions": actions.select(STG_ACTIONS.names).to_arrow().cast(STG_ACTIONS),
    }
