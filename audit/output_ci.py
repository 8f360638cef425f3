"""The CI formats of ``openers check``: SARIF 2.1.0, GitHub annotations, JUnit XML.

- **SARIF 2.1.0** for code-scanning tools: one run, the rules that fired as the
  driver's rules (name, summary, rulebook source, default level), each result with
  its file and line, the finding's stable key as a partial fingerprint (so a
  code-scanning service tracks a finding across exports), and the hand, table, seat
  and evidence as properties.
- **GitHub** workflow commands (``::error file=…,line=…,col=…,title=…::message``),
  escaped as GitHub's runner toolkit escapes them.
- **JUnit XML** for CI dashboards: one test suite per file checked, one failing test
  case per item, and one passing case for a file with nothing to report.

Levels: critical is ``error``, major ``warning``, minor ``note`` (SARIF) or
``notice`` (GitHub).

:func:`write_items` writes any format of ``openers check``: the line formats of
:mod:`audit.output` (which sits below this module) and the CI formats here.
"""

from __future__ import annotations

import hashlib
import json
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import PurePath
from typing import Any, TextIO
from urllib.parse import quote

from audit.output import (
    Format,
    Item,
    Summary,
    concise_line,
    item_row,
    text_line,
    write_csv,
)
from audit.unreadable import SEVERITY, all_codes

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_LEVEL = {"critical": "error", "major": "warning", "minor": "note"}
GITHUB_LEVEL = {"critical": "error", "major": "warning", "minor": "notice"}
#: The partial fingerprint's name (versioned: a new key definition gets a new name).
FINGERPRINT = "openersFindingKey/v1"


def write_items(items: list[Item], fmt: Format, out: TextIO, summary: Summary) -> None:
    """Write ``items`` (already sorted) to ``out`` in ``fmt``."""
    if fmt is Format.TEXT:
        out.writelines(text_line(i) + "\n" for i in items)
    elif fmt is Format.CONCISE:
        out.writelines(concise_line(i) + "\n" for i in items)
    elif fmt is Format.JSONL:
        out.writelines(json.dumps(item_row(i)) + "\n" for i in items)
    elif fmt is Format.JSON:
        json.dump([item_row(i) for i in items], out, indent=2)
        out.write("\n")
    elif fmt is Format.CSV:
        write_csv(items, out)
    else:
        write_ci(items, fmt, out, summary)


def write_ci(items: list[Item], fmt: Format, out: TextIO, summary: Summary) -> None:
    """Write ``items`` in one of the CI formats."""
    if fmt is Format.SARIF:
        json.dump(sarif(items, summary), out, indent=2)
        out.write("\n")
    elif fmt is Format.GITHUB:
        out.writelines(github_line(i) + "\n" for i in items)
    elif fmt is Format.JUNIT:
        out.write(junit(items, summary))
    else:
        raise ValueError(f"not a CI format: {fmt}")


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("openers")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def rule_descriptions(codes: set[str]) -> dict[str, dict[str, str]]:
    """name, summary, source and default severity of each code (rules and Q codes)."""
    from audit.registry import RULES  # not at the top: it loads every rule

    unreadable = all_codes()
    out: dict[str, dict[str, str]] = {}
    for code in sorted(codes):
        if code in RULES:
            rule = RULES[code]
            out[code] = {"name": rule.name, "summary": rule.summary, "source": rule.source,
                         "severity": rule.severity.value}
        else:
            name = unreadable.get(code, "unreadable")
            out[code] = {"name": name, "summary": f"A hand or file that cannot be read "
                         f"({name}): its hands were not audited.",
                         "source": "hand-log-format.md", "severity": SEVERITY}
    return out


def _uri(path: str) -> str:
    """A file path as a SARIF URI reference (relative stays relative)."""
    pure = PurePath(path)
    if pure.is_absolute():
        return "file://" + quote(pure.as_posix())
    return quote(pure.as_posix())


def _fingerprint(item: Item) -> str:
    return hashlib.sha256(item.key.encode("utf-8")).hexdigest()


def sarif(items: list[Item], summary: Summary) -> dict[str, Any]:
    """A SARIF 2.1.0 log of one run."""
    described = rule_descriptions({i.code for i in items})
    index = {code: n for n, code in enumerate(described)}
    rules = [{
        "id": code, "name": d["name"],
        "shortDescription": {"text": d["summary"]},
        "help": {"text": f"{d['summary']} Source: {d['source']}. "
                         f"See `openers rules {code}`."},
        "defaultConfiguration": {"level": SARIF_LEVEL[d["severity"]]},
        "properties": {"severity": d["severity"], "source": d["source"]},
    } for code, d in described.items()]
    results = []
    for item in items:
        row = item_row(item)
        properties = {k: row[k] for k in ("hand_id", "table", "seat", "severity", "kind", "key")
                      if row.get(k) is not None}
        if "evidence" in row:
            properties["evidence"] = row["evidence"]
        results.append({
            "ruleId": item.code, "ruleIndex": index[item.code],
            "level": SARIF_LEVEL[item.severity],
            "message": {"text": item.message},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": _uri(item.file)},
                "region": {"startLine": item.line, "startColumn": item.column},
            }}],
            "partialFingerprints": {FINGERPRINT: _fingerprint(item)},
            "properties": properties,
        })
    artifacts = [{"location": {"uri": _uri(f)}} for f in summary.files]
    return {
        "$schema": SARIF_SCHEMA, "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "openers", "version": _version(),
                                "rules": rules}},
            "artifacts": artifacts,
            "results": results,
            "invocations": [{"executionSuccessful": True,
                             "properties": {"hands": summary.hands,
                                            "unverifiable": summary.unverifiable,
                                            "baselined": summary.baselined}}],
        }],
    }


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_line(item: Item) -> str:
    """``::error file=F,line=L,col=C,title=CODE name [severity]::message (hand H)``."""
    title = f"{item.code} {item.name} [{item.severity}]"
    hand = f" (hand {item.hand_id})" if item.hand_id else ""
    props = ",".join(f"{k}={_escape_property(v)}" for k, v in (
        ("file", item.file), ("line", str(item.line)), ("col", str(item.column)),
        ("title", title)))
    return f"::{GITHUB_LEVEL[item.severity]} {props}::{_escape_data(item.message + hand)}"


def junit(items: list[Item], summary: Summary) -> str:
    """JUnit XML: a suite per file, a failing case per item, a passing case per clean file."""
    by_file: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        by_file[item.file].append(item)
    files = list(summary.files) + [f for f in by_file if f not in summary.files]
    root = ET.Element("testsuites", name="openers check", tests=str(0),
                      failures=str(len(items)), errors="0")
    total = 0
    for file in files:
        mine = by_file.get(file, [])
        suite = ET.SubElement(root, "testsuite", name=file, tests=str(max(len(mine), 1)),
                              failures=str(len(mine)), errors="0", skipped="0")
        if not mine:
            ET.SubElement(suite, "testcase", name="no findings", classname=file)
        for item in mine:
            hand = f" hand {item.hand_id}" if item.hand_id else ""
            case = ET.SubElement(suite, "testcase", classname=file,
                                 name=f"{item.code} line {item.line}{hand}")
            failure = ET.SubElement(case, "failure", type=item.code,
                                    message=f"{item.code} [{item.severity}] {item.message}")
            failure.text = text_line(item)
        total += max(len(mine), 1)
    root.set("tests", str(total))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
