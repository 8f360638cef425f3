"""One format for times and amounts everywhere, and spreadsheet-safe CSV cells."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta

import duckdb
import pytest

from schemas.display import (
    csv_bytes,
    evidence_items,
    iso_instant_text,
    local_time_text,
    money_text,
    spreadsheet_cell,
)
from schemas.store import DDL_DIR


@pytest.mark.parametrize("offset", [-480, -210, 0, 60, 330, 840])
def test_python_and_sql_write_the_same_time(offset: int) -> None:
    instant = datetime(2026, 11, 29, 5, 4, 12, tzinfo=UTC)
    con = duckdb.connect()
    con.execute((DDL_DIR / "50_marts.sql").read_text().split("CREATE OR REPLACE VIEW")[0])
    local = (instant + timedelta(minutes=offset)).replace(tzinfo=None)
    (sql_text,) = con.execute("SELECT local_time_text(?, ?)", [local, offset]).fetchone() or ("",)
    assert local_time_text(instant, offset) == sql_text
    assert sql_text.endswith(("-08:00", "-03:30", "+00:00", "+01:00", "+05:30", "+14:00"))


def test_times_at_the_edges_of_the_calendar() -> None:
    year_one = datetime(1, 1, 1, 8, 10, tzinfo=UTC)
    assert local_time_text(year_one, -480) == "0001-01-01 00:10:00 -08:00"
    # Before year 1 on the room's clock: the UTC clock, said as such.
    too_early = datetime(1, 1, 1, 0, 10, tzinfo=UTC)
    assert local_time_text(too_early, -480) == "0001-01-01 00:10:00 +00:00"
    assert local_time_text(None, 0) == ""
    assert iso_instant_text("2026-11-29T06:00:00+00:00", -480) == "2026-11-28 22:00:00 -08:00"
    assert iso_instant_text(float("nan"), -480) == ""


def test_money() -> None:
    assert money_text(123450) == "$1,234.50"
    assert money_text(-300, "€") == "-€3.00"
    assert money_text(5) == "$0.05" and money_text(None) == ""


@pytest.mark.parametrize("cell", ["=1+1", "+1", "-1+2", "@SUM(A1)", "\t=1", "\r=1"])
def test_formula_cells_are_neutralised(cell: str) -> None:
    assert spreadsheet_cell(cell) == "'" + cell
    rows = list(csv.reader(io.StringIO(csv_bytes(["a", "n"], [{"a": cell, "n": -5}]).decode())))
    assert rows[1] == ["'" + cell, "-5"]  # numbers stay numbers


def test_evidence_amounts_in_currency() -> None:
    items = dict(evidence_items({"stake_cents": 1250, "paid": {"3": 50}, "cards": ["Ah"],
                                 "expected": "QQ", "bets": 6}, "$"))  # fmt: skip
    assert items == {"stake": "$12.50", "paid": "seat 3: $0.50", "cards": '["Ah"]',
                     "expected": "QQ", "bets": "6"}  # fmt: skip
    nested = dict(evidence_items({"hands": {"b": [2, None], "a": {"z": 1, "y": "\u00e9"}}}))
    # JSON with its keys sorted at every depth, non-ASCII escaped
    assert nested == {"hands": '{"a": {"y": "\\u00e9", "z": 1}, "b": [2, null]}'}


def test_dashboard_exports_neutralise_formulas() -> None:
    """Issue 15 obs 9: the dashboard's CSV export wrote formula cells as they are."""
    import pandas as pd

    from dashboards.ui import QUEUE_CSV_COLUMNS, queue_csv

    row: dict[str, object] = {c: "" for c in QUEUE_CSV_COLUMNS}
    row.update(dealer_id="=HYPERLINK(\"http://evil.example\")", note="+cmd|' /C calc'!A0",
               seat=-1)  # fmt: skip
    queue = pd.DataFrame([row])
    rows = list(csv.DictReader(io.StringIO(queue_csv(queue).decode())))
    assert rows[0]["dealer_id"] == "'=HYPERLINK(\"http://evil.example\")"
    assert rows[0]["note"] == "'+cmd|' /C calc'!A0"
    assert rows[0]["seat"] == "-1"
