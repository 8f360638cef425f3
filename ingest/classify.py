"""Sort the hands of a flush against the store and against each other: new, duplicate,
conflict (see :mod:`ingest.load`).

- same hand id, same SHA-256 as a kept version: a duplicate, skipped and counted;
- same hand id, other text: a conflict, quarantined with both versions (the first
  version seen stays stored);
- otherwise new: the first version of its id, to be written.

The store's ``raw_hands`` has no index on the hand id (``schemas/ddl/10_raw.sql``):
uniqueness is this sorting's, and the writer's insert checks it again in the
transaction that writes the hands (:func:`ingest.commit._insert_hands`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ingest.errors import ErrorKind
from ingest.frames import StoredVersion
from ingest.reader import QuarantineItem
from ingest.staged import HandRows

__all__ = ["Classified", "Hand", "classify", "hand_at", "unstorable"]


class _Kept(NamedTuple):
    """The version of a hand id that is kept: stored before (``row`` -1) or new in this
    flush (its row)."""

    sha256: str
    file: str
    line: int
    row: int


class Hand(NamedTuple):
    """One hand of a flush, for the rare messages about it (a conflict, unstorable)."""

    hand_id: str
    sha256: str
    file: str
    first_line: int
    end_offset: int
    raw_text: str


def hand_at(hands: HandRows, row: int) -> Hand:
    """The hand at ``row`` of ``hands`` as Python values."""
    values = hands.raw.slice(row, 1).to_pylist()[0]
    return Hand(values["hand_id"], values["sha256"], values["source_file"],
                values["first_line"], values["end_offset"], values["raw_text"])


def unstorable(hand: Hand, reason: BaseException) -> QuarantineItem:
    """The quarantine item of a hand whose values the store refuses."""
    error = (f"line {hand.first_line}: hand {hand.hand_id} was read but the store cannot hold "
             f"its values ({type(reason).__name__}: {str(reason).splitlines()[0][:300]})")
    return QuarantineItem(hand.file, hand.first_line, hand.hand_id, ErrorKind.UNSTORABLE, error,
                          hand.raw_text, hand.first_line, hand.sha256, hand.end_offset)


def _conflict(hand: Hand, kept: StoredVersion) -> QuarantineItem:
    error = (
        f"line {hand.first_line}: hand {hand.hand_id} conflicts with the version "
        f"stored from {kept.file} line {kept.line} (same id, different text; "
        f"sha256 {hand.sha256[:12]} vs {kept.sha256[:12]})"
    )
    return QuarantineItem(hand.file, hand.first_line, hand.hand_id, ErrorKind.CONFLICT,
                          error, hand.raw_text, hand.first_line, hand.sha256, hand.end_offset)


def _stored_versions(con: duckdb.DuckDBPyConnection, ids: list[str]) -> dict[str, _Kept]:
    """The kept version (without its text yet) of each id of ``ids`` already in the store."""
    if not ids:
        return {}
    rows = con.execute(
        "SELECT hand_id, sha256, source_file, first_line FROM raw_hands "
        "WHERE hand_id IN (SELECT unnest(?::VARCHAR[]))", [ids]
    ).fetchall()
    return {hid: _Kept(sha, file, line, -1) for hid, sha, file, line in rows}


def _stored_text(con: duckdb.DuckDBPyConnection, hand_id: str) -> str:
    rows = con.execute("SELECT raw_text FROM raw_hands WHERE hand_id = ?", [hand_id]).fetchall()
    return str(rows[0][0]) if rows else ""


def _all_new(con: duckdb.DuckDBPyConnection, ids: pa.ChunkedArray) -> bool:
    """Whether every id of a flush is there once and not in the store: each hand is new
    (the common case, told without a Python object per hand)."""
    if pc.count_distinct(ids).as_py() != len(ids):
        return False
    con.register("_ingest_ids", pa.table({"hand_id": ids}))
    try:
        stored = con.execute("SELECT count(*) FROM raw_hands WHERE hand_id IN "
                             "(SELECT hand_id FROM _ingest_ids)").fetchall()[0][0]
    finally:
        con.unregister("_ingest_ids")
    return not stored


@dataclass
class Classified:
    """The rows of a flush by kind; ``others`` is each conflict's kept version."""

    new: list[int] = field(default_factory=list)
    duplicates: list[int] = field(default_factory=list)
    conflicts: list[QuarantineItem] = field(default_factory=list)
    others: list[StoredVersion | None] = field(default_factory=list)


def classify(con: duckdb.DuckDBPyConnection, hands: HandRows, batch_sizes: Sequence[int]
             ) -> Classified:
    """Sort the hands of a flush (``batch_sizes``: its read batches' hands, in order)."""
    raw = hands.raw
    if _all_new(con, raw.column("hand_id")):
        return Classified(new=list(range(len(hands))))
    ids = raw.column("hand_id").to_pylist()
    shas = raw.column("sha256").to_pylist()
    # Reading order: batch by batch, and by first line inside a batch (a batch holds the
    # scanner's hands before the ones the reference parser read).
    batch_of = np.repeat(np.arange(len(batch_sizes)), batch_sizes)
    order = np.lexsort((raw.column("first_line").to_numpy(), batch_of)).tolist()
    kept = _stored_versions(con, list(set(ids)))
    out = Classified()
    for row in order:
        version = kept.get(ids[row])
        if version is None:
            kept[ids[row]] = _Kept(shas[row], "", 0, row)
            out.new.append(row)
        elif version.sha256 == shas[row]:
            out.duplicates.append(row)
        else:
            hand = hand_at(hands, row)
            if version.row >= 0:
                first = hand_at(hands, version.row)
                other = StoredVersion(first.sha256, first.file, first.first_line, first.raw_text)
            else:
                other = StoredVersion(version.sha256, version.file, version.line,
                                      _stored_text(con, hand.hand_id))
            out.conflicts.append(_conflict(hand, other))
            out.others.append(other)
    out.new.sort()
    return out
