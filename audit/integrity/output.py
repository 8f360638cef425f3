"""Print an analysis run: ranked alerts as text, or every alert as JSON or CSV.

Text is for the analyst at a terminal: a header with what was read and the false
discovery rate, then one block per alert (rank, code, subject, q-value, the effect
with its 95% interval, the sentence, the first hands behind it). JSON carries the run
and every alert with its full evidence; CSV one alert a row (hands ``;``-separated,
evidence as a JSON string).
"""

from __future__ import annotations

import csv
import json
from enum import StrEnum
from typing import Any, TextIO

from audit.integrity.engine import IntegrityResult
from audit.integrity.model import Alert
from audit.integrity.store import METHODS, json_default

#: Hands printed under an alert in text (all of them are in JSON and CSV).
TEXT_HANDS = 5
CSV_FIELDS = ("rank", "alert_key", "code", "name", "family", "level", "dealer_id", "table_id",
              "player_id", "partner_id", "sample", "statistic", "observed", "expected",
              "effect_label", "effect", "ci_low", "ci_high", "p_value", "q_value", "message",
              "hands_total", "hands", "first_time", "last_time", "evidence")


class Format(StrEnum):
    """Output formats of ``openers integrity``."""

    TEXT = "text"
    JSON = "json"
    CSV = "csv"


def summary_line(result: IntegrityResult) -> str:
    """What was read and found, in one line."""
    s = result.options.settings
    method = METHODS[s.dependent].title()
    return (f"{result.hands:,} hands ({result.draws:,} draws, {result.decisions:,} betting "
            f"decisions, {result.irregular:,} with unreadable cards left out) in "
            f"{result.seconds:.1f} s; {len(result.tested):,} cells judged by "
            f"{len(result.cells_by_code())} tests; {len(result.alerts)} alerts at a false "
            f"discovery rate of {s.fdr:g} ({method})")


def alert_row(a: Alert) -> dict[str, Any]:
    """One alert as a flat dict (:data:`CSV_FIELDS`), evidence as an object."""
    return {
        "rank": a.rank, "alert_key": a.alert_key, "code": a.code, "name": a.name,
        "family": a.family.value, "level": a.level.value, "dealer_id": a.subject.dealer_id,
        "table_id": a.subject.table_id, "player_id": a.subject.player_id,
        "partner_id": a.subject.partner_id, "sample": a.n, "statistic": a.statistic,
        "observed": a.observed, "expected": a.expected, "effect_label": a.effect_label,
        "effect": a.effect, "ci_low": a.ci_low, "ci_high": a.ci_high, "p_value": a.p_value,
        "q_value": a.q_value, "message": a.message, "hands_total": a.hands_total,
        "hands": list(a.hands), "first_time": a.first_time, "last_time": a.last_time,
        "evidence": a.evidence(),
    }


def write_result(result: IntegrityResult, fmt: Format, out: TextIO) -> None:
    """Print ``result`` in ``fmt``."""
    if fmt is Format.JSON:
        o = result.options
        json.dump({
            "summary": summary_line(result),
            "window": {"since": o.since.isoformat() if o.since else None,
                       "until": o.until.isoformat() if o.until else None},
            "fdr": o.settings.fdr, "method": METHODS[o.settings.dependent],
            "hands": result.hands, "draws": result.draws, "decisions": result.decisions,
            "irregular": result.irregular, "cells": len(result.tested),
            "cells_by_code": result.cells_by_code(),
            "alerts": [alert_row(a) for a in result.alerts],
        }, out, indent=1, default=json_default)
        out.write("\n")
    elif fmt is Format.CSV:
        writer = csv.DictWriter(out, fieldnames=CSV_FIELDS, lineterminator="\n")
        writer.writeheader()
        for a in result.alerts:
            row = alert_row(a)
            row["hands"] = ";".join(a.hands)
            row["evidence"] = json.dumps(row["evidence"], default=json_default)
            writer.writerow(row)
    else:
        out.write(summary_line(result) + "\n")
        for a in result.alerts:
            out.write(_text(a))


def _text(a: Alert) -> str:
    lines = [
        "",
        f"{a.rank:>3}. {a.code} {a.name} [{a.level.value}] {a.subject.text()}  "
        f"q = {a.q_value:.2g} (p = {a.p_value:.2g})",
        f"     {a.effect_label}: {a.effect:.3g} (95% CI {a.ci_low:.3g} to {a.ci_high:.3g})",
        f"     {a.message}",
    ]
    if a.hands:
        lines.append(f"     hands ({a.hands_total}):")
        lines += [f"       {hand}  {note}".rstrip()
                  for hand, note in zip(a.hands[:TEXT_HANDS], a.hand_notes[:TEXT_HANDS],
                                        strict=True)]
        if a.hands_total > TEXT_HANDS:
            lines.append(f"       ... and {a.hands_total - TEXT_HANDS} more (--format json)")
    return "\n".join(lines) + "\n"

