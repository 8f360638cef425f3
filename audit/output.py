"""Print findings as ``openers check`` does: text, json, jsonl or csv.

Text is linter-like, one finding a line: ``HAND_ID:LINE CODE message`` (no
``:LINE`` when a finding has no line). The structured formats carry the keys of
:data:`FIELDS`; ``evidence`` is a JSON object and ``lines`` a JSON array (JSON strings
in CSV).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from enum import StrEnum
from typing import Any, TextIO

from schemas.findings import Finding

FIELDS = ("hand_id", "table", "code", "name", "severity", "seat", "line", "lines",
          "action_index", "message", "evidence", "source")


class Format(StrEnum):
    """Output formats of ``openers check``."""

    TEXT = "text"
    JSON = "json"
    JSONL = "jsonl"
    CSV = "csv"


def finding_row(f: Finding) -> dict[str, Any]:
    """A finding as a flat dict with the public keys (``table`` for the table id)."""
    return {
        "hand_id": f.hand_id, "table": f.table_id, "code": f.code, "name": f.name,
        "severity": f.severity.value, "seat": f.seat, "line": f.line,
        "lines": list(f.lines), "action_index": f.action_index, "message": f.message,
        "evidence": f.evidence, "source": f.source,
    }


def text_line(f: Finding) -> str:
    """``HAND_ID:LINE CODE message``."""
    where = f.hand_id if f.line is None else f"{f.hand_id}:{f.line}"
    return f"{where} {f.code} {f.message}"


def _csv_lines(findings: Iterable[Finding]) -> Iterator[str]:
    class _Line:
        value = ""

        def write(self, s: str) -> int:
            self.value = s
            return len(s)

    sink = _Line()
    writer = csv.DictWriter(sink, fieldnames=FIELDS, lineterminator="\n")
    writer.writeheader()
    yield sink.value
    for f in findings:
        row = finding_row(f)
        row["evidence"] = json.dumps(row["evidence"], sort_keys=True)
        row["lines"] = json.dumps(row["lines"])
        writer.writerow(row)
        yield sink.value


def write_findings(findings: Iterable[Finding], fmt: Format, out: TextIO) -> None:
    """Write ``findings`` to ``out`` in ``fmt`` (json is one array; the others stream)."""
    if fmt is Format.TEXT:
        for f in findings:
            out.write(text_line(f) + "\n")
    elif fmt is Format.JSONL:
        for f in findings:
            out.write(json.dumps(finding_row(f), sort_keys=False) + "\n")
    elif fmt is Format.JSON:
        json.dump([finding_row(f) for f in findings], out, indent=2)
        out.write("\n")
    else:
        for line in _csv_lines(findings):
            out.write(line)
