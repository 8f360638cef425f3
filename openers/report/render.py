"""Write a report folder: ``report.html``, ``findings.csv`` and ``summary.json``.

The page is one file with its styles and its SVG charts inline, so it opens
offline from a mail attachment or a share. Jinja2 autoescaping is on for
everything: hand ids, player ids, messages and quarantined raw text come from
log files and are never trusted as markup.
"""

from __future__ import annotations

import functools
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape

from openers.report.charts import SEVERITY_COLOURS, daily_findings_svg, horizontal_bars_svg
from openers.report.model import SEVERITIES, FindingRow, Report
from schemas.display import evidence_items, money_text, write_csv

#: Columns of findings.csv, in order (the `findings` contract, the hand's context, the case).
CSV_COLUMNS: tuple[str, ...] = (
    "severity", "code", "name", "hand_id", "table_id", "dealer_id", "time", "line",
    "action_index", "seat", "player_id", "message", "evidence", "source", "source_file",
    "link", "case_status", "reason", "assignee", "due_date", "reviewer", "decided_at", "note",
)  # fmt: skip
#: The report's sections, in page order: ``templates/sections/NAME.html.j2`` each. A new
#: section is one template and one entry here.
SECTIONS: tuple[str, ...] = (
    "decision", "totals", "per_day", "breakdowns", "findings", "integrity", "quarantine",
)  # fmt: skip


@dataclass(frozen=True)
class ReportFiles:
    """Where one report was written."""

    folder: Path
    html: Path
    csv: Path
    summary: Path


@functools.cache
def _environment() -> Environment:
    """The report's templates, compiled once a process (the nightly job and tests render often)."""
    env = Environment(
        loader=PackageLoader("openers.report", "templates"),
        autoescape=select_autoescape(["html", "j2"], default=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["evidence"] = evidence_items
    env.filters["money"] = money_text
    return env


def render_html(report: Report) -> str:
    """The report page as one self-contained HTML string."""
    template = _environment().get_template("report.html.j2")
    code_rows = [
        (f"{row.key} {row.label}".strip(), row.total, row.worst) for row in report.by_code[:15]
    ]
    return template.render(
        report=report,
        sections=SECTIONS,
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


def csv_row(report: Report, f: FindingRow) -> dict[str, Any]:
    """One finding as findings.csv writes it (times and amounts as the page shows them)."""
    return {
        "severity": f.severity,
        "code": f.code,
        "name": f.name,
        "hand_id": f.hand_id,
        "table_id": f.table_id,
        "dealer_id": f.dealer_id or "",
        "time": f.time_text,
        "line": "" if f.line is None else f.line,
        "action_index": "" if f.action_index is None else f.action_index,
        "seat": "" if f.seat is None else f.seat,
        "player_id": f.player_id or "",
        "message": f.message,
        "evidence": "; ".join(f"{k}: {v}" for k, v in evidence_items(f.evidence,
                                                                      report.currency)),
        "source": f.source,
        "source_file": f.source_file or "",
        "link": f.link,
        "case_status": f.case.status,
        "reason": f.case.reason or "",
        "assignee": f.case.assignee or "",
        "due_date": f.case.due_date or "",
        "reviewer": f.case.reviewer or "",
        "decided_at": f.case.decided_at or "",
        "note": f.case.note or "",
    }  # fmt: skip


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
        write_csv(handle, CSV_COLUMNS, (csv_row(report, f) for f in report.findings))
    os.replace(tmp_csv, files.csv)
    _write_atomic(files.summary, json.dumps(report.summary(), indent=2, sort_keys=True) + "\n")
    return files
