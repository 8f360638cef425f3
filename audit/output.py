"""What ``openers check`` prints: one item a line, in the format a tool reads.

An :class:`Item` is one line of a check's output: a rule's finding, or a hand or
file that could not be read (the ``Q6xx`` codes of :mod:`audit.unreadable`). Every
format carries each item's file, line, code and severity. The text form is the
linter's ``PATH:LINE:COL: CODE [severity] message (hand HAND_ID)``, sorted by file
and line, then a summary; ``concise`` is ``PATH:LINE:COL: CODE message`` (and the
summary); ``json``, ``jsonl`` and ``csv`` carry the keys of :func:`item_row`; the
CI formats (SARIF, GitHub annotations, JUnit XML) are in :mod:`audit.output_ci`, with
:func:`audit.output_ci.write_items`, which writes any of them.

This module imports nothing heavy: ``openers check --help`` loads it.
"""

from __future__ import annotations

import csv
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from schemas.findings import Finding

#: Severities, most severe first (as :class:`schemas.findings.Severity` ranks them).
SEVERITIES = ("critical", "major", "minor")
#: The columns of ``--output-format csv`` (evidence as a JSON object in one cell).
CSV_FIELDS = ("file", "line", "lines", "column", "code", "name", "severity", "hand_id", "table",
              "seat", "action_index", "message", "key", "kind", "source", "evidence")


class Format(StrEnum):
    """Output formats of ``openers check``."""

    TEXT = "text"
    CONCISE = "concise"
    JSON = "json"
    JSONL = "jsonl"
    CSV = "csv"
    SARIF = "sarif"
    GITHUB = "github"
    JUNIT = "junit"


@dataclass(frozen=True, slots=True)
class Item:
    """One finding, or one unreadable hand or file, with where it is in which file.

    ``key`` identifies it independently of line numbers (see
    :func:`schemas.findings.finding_key`; for an unreadable hand, its raw text's
    digest); ``details`` holds the finding's other public fields (evidence, source,
    and whatever the record adds later).
    """

    file: str
    line: int
    code: str
    name: str
    severity: str
    message: str
    hand_id: str | None
    table: str | None
    seat: int | None
    key: str
    kind: str = "finding"
    column: int = 1
    details: dict[str, Any] = field(default_factory=dict)


#: The record's own names for what :class:`Item` keeps in its own fields.
_SHOWN = {"code", "name", "severity", "hand_id", "table_id", "seat", "message", "line"}


def finding_item(finding: Finding, file: str, first_line: int) -> Item:
    """A rule's finding as an item, at its line of ``file``.

    A finding with no line is placed at its hand's first line. In a JSON Lines file a
    hand is one line, so the finding is placed there, and the line of the text log
    the record came from is kept as ``log_line``.
    """
    from ingest.reader import is_jsonl
    from schemas.findings import finding_key

    record = finding.model_dump(mode="json")
    line = finding.line or first_line
    if is_jsonl(file):
        record["log_line"], line = finding.line, first_line
    return Item(
        file=file, line=line, code=finding.code, name=finding.name,
        severity=finding.severity.value, message=finding.message, hand_id=finding.hand_id,
        table=finding.table_id, seat=finding.seat,
        key=finding_key(finding.hand_id, finding.code, finding.action_index, finding.seat),
        details={k: v for k, v in record.items() if k not in _SHOWN},
    )


def sort_items(items: list[Item]) -> list[Item]:
    """By file, line, column and code (then hand), as a linter lists them."""
    return sorted(items, key=lambda i: (i.file, i.line, i.column, i.code, i.hand_id or ""))


def text_line(item: Item) -> str:
    """``PATH:LINE:COL: CODE [severity] message (hand HAND_ID)``."""
    hand = f" (hand {item.hand_id})" if item.hand_id else ""
    return (f"{item.file}:{item.line}:{item.column}: {item.code} [{item.severity}] "
            f"{item.message}{hand}")


def concise_line(item: Item) -> str:
    """``PATH:LINE:COL: CODE message``."""
    return f"{item.file}:{item.line}:{item.column}: {item.code} {item.message}"


def item_row(item: Item) -> dict[str, Any]:
    """An item as a flat dict with the public keys (``table`` for the table id)."""
    return {
        "file": item.file, "line": item.line, "column": item.column, "code": item.code,
        "name": item.name, "severity": item.severity, "hand_id": item.hand_id,
        "table": item.table, "seat": item.seat, "message": item.message, "key": item.key,
        "kind": item.kind, **item.details,
    }


_FORMULA = re.compile(r"^[=+\-@\t\r]")


def safe_cell(value: Any) -> Any:
    """A CSV cell a spreadsheet shows as text: a leading ``= + - @`` gets a ``'`` (OWASP)."""
    if isinstance(value, str) and _FORMULA.match(value):
        return "'" + value
    return value


def write_csv(items: list[Item], out: TextIO) -> None:
    """One header line, then one row an item; evidence as JSON text."""
    writer = csv.DictWriter(out, fieldnames=CSV_FIELDS, lineterminator="\n",
                            extrasaction="ignore")
    writer.writeheader()
    for item in items:
        row = item_row(item)
        row["evidence"] = json.dumps(row.get("evidence", {}), sort_keys=True)
        row["lines"] = json.dumps(row.get("lines") or [row["line"]])
        writer.writerow({k: safe_cell(v) for k, v in row.items()})


@dataclass(slots=True)
class Summary:
    """What the summary line says about a check beyond its items."""

    files: list[str]
    hands: int
    unverifiable: int = 0
    baselined: int = 0


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' * (n != 1)}"


def summary_line(items: list[Item], summary: Summary) -> str:
    """``Found N findings in H of T hands and U unreadable … in F files (…).``, or
    ``No findings in T hands in F files.``"""
    findings = [i for i in items if i.kind == "finding"]
    unreadable = len(items) - len(findings)
    files = _count(len(summary.files), "file")
    if not items:
        text = f"No findings in {_count(summary.hands, 'hand')} in {files}."
    else:
        hands = len({(i.file, i.hand_id) for i in findings})
        parts = [f"{_count(len(findings), 'finding')} in {hands} of "
                 f"{_count(summary.hands, 'hand')}"] if findings else []
        if unreadable:
            parts.append(f"{_count(unreadable, 'unreadable hand')} or file"
                         f"{'s' * (unreadable != 1)}")
        by = Counter(i.severity for i in items)
        severities = ", ".join(f"{by[s]} {s}" for s in SEVERITIES if by[s])
        read = "" if findings else f"; {_count(summary.hands, 'hand')} read"
        text = f"Found {' and '.join(parts)} in {files}{read} ({severities})."
    if summary.baselined:
        text += f" {summary.baselined} more already in the baseline, not shown."
    if summary.unverifiable:
        text += (f" {_count(summary.unverifiable, 'check')} could not be made: cards not "
                 "recorded (??).")
    return text


def statistics(items: list[Item]) -> list[dict[str, Any]]:
    """Counts per code, most frequent first: ``count``, ``code``, ``name``, ``severity``."""
    counts = Counter(i.code for i in items)
    first = {i.code: i for i in reversed(items)}
    return [{"count": n, "code": code, "name": first[code].name,
             "severity": first[code].severity}
            for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def write_statistics(items: list[Item], fmt: Format, out: TextIO) -> None:
    """``--statistics``: a table in text, a JSON array for the JSON formats."""
    rows = statistics(items)
    if fmt in (Format.JSON, Format.JSONL):
        json.dump(rows, out, indent=2)
        out.write("\n")
        return
    width = max((len(str(r["count"])) for r in rows), default=1)
    for r in rows:
        out.write(f"{r['count']:>{width}}  {r['code']}  {r['name']} [{r['severity']}]\n")

