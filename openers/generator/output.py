"""Turn a table's deals into files (one per table per day) and label lines.

Unrecorded cards (``??``) and broken input are applied here, after the deal is
settled: they change what the log says, never what happened. Both touch only
hands that carry no planted code, and damage only hands whose loss does not
change how the table's other deals are audited (see ``DealOutput.standalone``).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from openers.generator.damage import KINDS, conflict_copy, damage
from openers.generator.draft import Draft
from openers.generator.table import DealOutput
from schemas.records import UNKNOWN_CARD, Section, Verb


@dataclass(slots=True)
class TableFiles:
    """What one table produced: label lines and counts."""

    labels: list[str] = field(default_factory=list)
    hands: int = 0
    planted: dict[str, int] = field(default_factory=dict)
    broken: dict[str, int] = field(default_factory=dict)
    files: int = 0
    #: Integrity ground truth of the table's cheats (``integrity_labels.json``).
    integrity: list[dict[str, object]] = field(default_factory=list)


def hide_unrecorded(draft: Draft) -> None:
    """Write ``??`` for the cards a live dealer does not record: folded hands, mucks."""
    folded = {r.seat for r in draft.rows if r.verb is Verb.FOLDS}
    for row in draft.rows:
        if row.seat in folded and row.verb in (Verb.DEALT, Verb.DISCARDS):
            row.cards = (UNKNOWN_CARD,) * len(row.cards or ())
            if row.drawn is not None:
                row.drawn = (UNKNOWN_CARD,) * len(row.drawn)
        elif row.verb is Verb.MUCKS and row.section is Section.SHOWDOWN:
            row.cards = None


def _label(draft: Draft, codes: Iterable[str], **extra: object) -> str:
    h = draft.header
    data: dict[str, object] = {"hand_id": h.hand_id, "table_id": h.table_id, "codes": list(codes)}
    data.update(extra)
    return json.dumps(data, separators=(",", ":"))


def write_day(logs: Path, name: str, deals: list[DealOutput], rng: random.Random,
              unrecorded_share: float, broken_share: float, crlf: bool,
              result: TableFiles) -> None:
    """Write one table's day to ``logs/name`` and add its label lines to ``result``."""
    chunks: list[bytes] = []
    for i, deal in enumerate(deals):
        extra: dict[str, object] = {}
        if not deal.codes and rng.random() < unrecorded_share:
            hide_unrecorded(deal.draft)
            extra["unrecorded"] = True
        text = deal.draft.text()
        data = text.encode()
        if deal.standalone and rng.random() < broken_share:
            kind = rng.choice(KINDS)
            data, reported = damage(text, kind, rng, last_in_file=i == len(deals) - 1)
            extra["broken"] = reported
            result.broken[reported] = result.broken.get(reported, 0) + 1
            if kind == "conflict":
                chunks.append(data)
                data = conflict_copy(text)
        for code in deal.codes:
            result.planted[code] = result.planted.get(code, 0) + 1
        chunks.append(data)
        result.labels.append(_label(deal.draft, deal.codes, **extra))
        result.hands += 1
    sep = b"\r\n" if crlf else b"\n"
    body = (sep + sep).join(c.replace(b"\n", sep) if crlf else c for c in chunks)
    if not (deals and extra.get("broken") == "truncated"):
        body += sep  # a cut export ends mid-line, without its newline
    (logs / name).write_bytes(body)
    result.files += 1
