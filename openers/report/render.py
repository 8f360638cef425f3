"""Write a report folder: ``report.html``, ``findings.csv`` and ``summary.json``.

The page is one file with its styles and its SVG charts inline, so it opens
offline from a mail attachment or a share. Jinja2 autoescaping is on for
everything: hand ids, player ids, messages and quarantined raw text come from
log files and are never trusted as markup.
"""

from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape

from openers.report.charts import SEVERITY_COLOURS, daily_findings_svg, horizontal_bars_svg
from openers.report.model import SEVERITIES, Report

#: Columns of findings.csv, in order (the `findings` contract plus the hand's context).
CSV_COLUMNS: tuple[str, ...] = (
    "severity", "code", "name", "hand_id", "table_id", "dealer_id", "time", "line",
    "action_index", "seat", "message", "evidence", "source", "source_file",
)  # fmt: skip


@dataclass(frozen=True)
class ReportFiles:
    """Where one report was written."""

    folder: Path
    html: Path
    csv: Path
    summary: Path


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("openers.report", "templates"),
        autoescape=select_autoescape(["html", "j2"], default=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["compact_json"] = lambda value: (
        value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    )
    return env


def render_html(report: Report) -> str:
    """The report page as one self-contained HTML string."""
    template = _environment().get_template("report.html.j2")
    code_rows = [
        (f"{row.key} {row.label}".strip(), row.total, row.worst) for row in report.by_code[:15]
    ]
    return template.render(
        report=report,
        severities=SEVERITIES,
        colours=SEVERITY_COLOURS,
        daily_chart=daily_findings_svg(
            report.daily, f"Findings per day, last {len(report.daily)} days"
        ),
        code_chart=horizontal_bars_svg(code_rows, "Findings by rule"),
        breakdowns=[
            ("rule", report.by_code),
            ("table", report.by_table),
            ("dealer", report.by_dealer),
        ],
    )


def _csv_row(report: Report, index: int) -> dict[str, Any]:
    f = report.findings[index]
    return {
        "severity": f.severity,
        "code": f.code,
        "name": f.name,
        "hand_id": f.hand_id,
        "table_id": f.table_id,
        "dealer_id": f.dealer_id or "",
        "time": f.time.isoformat() if f.time else "",
        "line": "" if f.line is None else f.line,
        "action_index": "" if f.action_index is None else f.action_index,
        "seat": "" if f.seat is None else f.seat,
        "message": f.message,
        "evidence": json.dumps(f.evidence, sort_keys=True),
        "source": f.source,
        "source_file": f.source_file or "",
    }


def _write_atomic(path: Path, text: str) -> None:
    """Write via a temporary file and rename, so a reader never sees half a report."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def write_report(report: Report, folder: Path) -> ReportFiles:
    """Write the three report files into ``folder`` (created if needed)."""
    folder.mkdir(parents=True, exist_ok=True)
    files = ReportFiles(
        folder=folder,
        html=folder / "report.html",
        csv=folder / "findings.csv",
        summary=folder / "summary.json",
    )
    _write_atomic(files.html, render_html(report))
    tmp_csv = files.csv.with_name(".findings.csv.tmp")
    with tmp_csv.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        for i in range(len(report.findings)):
            writer.writerow(_csv_row(report, i))
    os.replace(tmp_csv, files.csv)
    _write_atomic(files.summary, json.dumps(report.summary(), indent=2, sort_keys=True) + "\n")
    return files
