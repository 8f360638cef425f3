"""Columnar (Arrow) batches of records, shaped like the store's raw and staging tables.

The loader inserts each of these tables with one ``INSERT ... SELECT`` inside the
batch's transaction, so rows are never written one at a time. Column names are
the store's (``schemas/ddl/10_raw.sql``, ``20_staging.sql``, ``60_ops.sql``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import pyarrow as pa

from ingest.reader import ParsedHand, QuarantineItem, is_jsonl, sha256_text

_CENTS = pa.int64()
_INT = pa.int32()
_STR = pa.string()
_CARDS = pa.list_(pa.string())

RAW_HANDS = pa.schema([
    ("hand_id", _STR), ("sha256", _STR), ("source_file", _STR), ("first_line", _INT),
    ("end_offset", pa.int64()), ("form", _STR), ("raw_text", _STR),
])
STG_HANDS = pa.schema([
    ("hand_id", _STR), ("table_id", _STR), ("time", pa.timestamp("us", tz="UTC")),
    ("utc_offset_minutes", _INT), ("room", _STR), ("dealer_id", _STR), ("game", _STR),
    ("limit_small", _CENTS), ("limit_big", _CENTS), ("ante", _CENTS), ("joker", pa.bool_()),
    ("button", _INT), ("jackpot", _INT), ("openers", _STR), ("carried", _CENTS),
    ("pot", _CENTS), ("rake", _CENTS), ("carried_out", _CENTS), ("n_seats", _INT),
    ("n_actions", _INT), ("first_line", _INT), ("result_line", _INT), ("source_file", _STR),
    ("sha256", _STR),
])
STG_SEATS = pa.schema([
    ("hand_id", _STR), ("seat", _INT), ("player_id", _STR), ("stack", _CENTS),
])
STG_ACTIONS = pa.schema([
    ("hand_id", _STR), ("action_index", _INT), ("line", _INT), ("section", _STR),
    ("actor", _STR), ("verb", _STR), ("seat", _INT), ("amount", _CENTS), ("to_amount", _CENTS),
    ("cards", _CARDS), ("drawn", _CARDS), ("all_in", pa.bool_()), ("side_pot", _INT),
    ("reading", _STR), ("note", _STR),
])
QUARANTINE = pa.schema([
    ("file", _STR), ("line", _INT), ("hand_id", _STR), ("kind", _STR), ("error", _STR),
    ("error_line", _INT), ("raw_text", _STR), ("sha256", _STR), ("other_sha256", _STR),
    ("other_file", _STR), ("other_line", _INT), ("other_raw_text", _STR),
    ("first_line", _INT), ("raw_bytes", pa.binary()),
])


@dataclass(frozen=True, slots=True)
class StoredVersion:
    """The version of a hand already kept, named by a conflict's quarantine row."""

    sha256: str
    file: str
    line: int
    raw_text: str


def _columns(schema: pa.Schema) -> dict[str, list[Any]]:
    return {name: [] for name in schema.names}


class RawRow(Protocol):
    """What a raw_hands row is made of (a loader candidate)."""

    @property
    def hand_id(self) -> str: ...
    @property
    def sha256(self) -> str: ...
    @property
    def file(self) -> str: ...
    @property
    def first_line(self) -> int: ...
    @property
    def end_offset(self) -> int: ...
    @property
    def raw_text(self) -> str: ...


def raw_table(rows: Sequence[RawRow]) -> pa.Table:
    """The raw_hands rows of ``rows``."""
    return pa.table({
        "hand_id": [r.hand_id for r in rows],
        "sha256": [r.sha256 for r in rows],
        "source_file": [r.file for r in rows],
        "first_line": [r.first_line for r in rows],
        "end_offset": [r.end_offset for r in rows],
        "form": ["jsonl" if is_jsonl(r.file) else "text" for r in rows],
        "raw_text": [r.raw_text for r in rows],
    }, schema=RAW_HANDS)


def hand_tables(hands: Sequence[ParsedHand]) -> dict[str, pa.Table]:
    """The stg_hands, stg_seats and stg_actions rows of ``hands`` (read by the reference
    parser or from JSONL)."""
    head, seats, acts = _columns(STG_HANDS), _columns(STG_SEATS), _columns(STG_ACTIONS)
    for item in hands:
        r = item.record
        hid = r.hand_id
        offset = r.time.utcoffset()
        values = r.__dict__
        for name in STG_HANDS.names:
            if name in values:
                head[name].append(values[name])
        head["game"][-1] = r.game.value
        head["openers"][-1] = r.openers.value if r.openers is not None else None
        head["utc_offset_minutes"].append(int(offset.total_seconds()) // 60 if offset else 0)
        head["n_seats"].append(len(r.seats))
        head["n_actions"].append(len(r.actions))
        head["source_file"].append(item.file)
        head["sha256"].append(item.sha256)
        for s in r.seats:
            seats["hand_id"].append(hid)
            seats["seat"].append(s.seat)
            seats["player_id"].append(s.player_id)
            seats["stack"].append(s.stack)
        _add_actions(acts, hid, r.actions)
    return {
        "stg_hands": pa.table(head, schema=STG_HANDS),
        "stg_seats": pa.table(seats, schema=STG_SEATS),
        "stg_actions": pa.table(acts, schema=STG_ACTIONS),
    }


def _add_actions(cols: dict[str, list[Any]], hand_id: str, actions: Sequence[Any]) -> None:
    # Column-at-a-time comprehensions keep the per-action cost in the interpreter's fast path.
    dicts = [a.__dict__ for a in actions]
    cols["hand_id"] += [hand_id] * len(dicts)
    cols["action_index"] += [d["index"] for d in dicts]
    for name in ("line", "seat", "amount", "to_amount", "cards", "drawn", "all_in",
                 "side_pot", "reading", "note"):
        cols[name] += [d[name] for d in dicts]
    for name in ("section", "actor", "verb"):
        cols[name] += [d[name].value for d in dicts]


def quarantine_table(
    items: Sequence[QuarantineItem], others: Sequence[StoredVersion | None] | None = None
) -> pa.Table:
    """Quarantine rows for ``items``; ``others[i]`` is the stored version of a conflict.

    ``line`` is the line the error is at, the line its message names (one meaning of
    "line" everywhere); ``first_line`` is where the hand starts.
    """
    cols = _columns(QUARANTINE)
    for i, item in enumerate(items):
        other = others[i] if others is not None else None
        for name, value in (
            ("file", item.file), ("line", item.line), ("hand_id", item.hand_id),
            ("kind", item.kind.value), ("error", item.error), ("error_line", item.line),
            ("raw_text", item.raw_text), ("sha256", item.sha256 or sha256_text(item.raw_text)),
            ("other_sha256", other.sha256 if other else None),
            ("other_file", other.file if other else None),
            ("other_line", other.line if other else None),
            ("other_raw_text", other.raw_text if other else None),
            ("first_line", item.first_line), ("raw_bytes", item.raw_bytes),
        ):
            cols[name].append(value)
    return pa.table(cols, schema=QUARANTINE)

