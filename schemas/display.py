"""How values from the store are shown to people: one format everywhere.

The report, the dashboards and every CSV they write call these, so a time or an
amount reads the same on each of them:

- a time is the room's local clock with its UTC offset, ``2026-11-28 21:04:12 -08:00``
  (``mart_hands.time_text`` in ``schemas/ddl/50_marts.sql`` builds the same in SQL);
- an amount is the house's currency and two decimals, ``$1,234.50``;
- a CSV cell that a spreadsheet would run as a formula is neutralised as OWASP
  recommends (a leading ``'``; every cell quoted by the writer).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

#: First characters that make a spreadsheet read a cell as a formula (OWASP, CSV injection).
FORMULA_STARTS: tuple[str, ...] = ("=", "+", "-", "@", "\t", "\r", "\n")


def offset_text(minutes: int) -> str:
    """``-08:00`` for -480."""
    sign = "-" if minutes < 0 else "+"
    hours, mins = divmod(abs(int(minutes)), 60)
    return f"{sign}{hours:02d}:{mins:02d}"


def local_time_text(when: datetime | None, offset_minutes: int | None) -> str:
    """An instant as the room's clock showed it, with the offset: ``2026-11-28 21:04:12 -08:00``.

    ``when`` is an aware instant (any zone) or a naive UTC one; an empty string for None.
    """
    if when is None:
        return ""
    offset = int(offset_minutes or 0)
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    try:
        local = when.astimezone(timezone(timedelta(minutes=offset)))
    except OverflowError:  # year 1 or 9999 at an offset: show the UTC clock with its offset
        return f"{_clock(when.astimezone(UTC))} +00:00"
    return f"{_clock(local)} {offset_text(offset)}"


def _clock(when: datetime) -> str:
    # isoformat pads the year to four digits (strftime's %Y does not on every platform).
    return when.replace(tzinfo=None).isoformat(sep=" ", timespec="seconds")


def money_text(cents: int | None, currency: str = "$") -> str:
    """Integer cents as money: ``$1,234.50``, ``-$3.00``; an empty string for None."""
    if cents is None:
        return ""
    value = int(cents)
    whole, frac = divmod(abs(value), 100)
    return f"{'-' if value < 0 else ''}{currency}{whole:,}.{frac:02d}"


def spreadsheet_cell(value: Any) -> Any:
    """A CSV cell a spreadsheet shows as text: a string starting like a formula gets a ``'``.

    Numbers stay numbers (a negative number is not a formula).
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def write_csv(handle: io.TextIOBase | Any, columns: Sequence[str],
              rows: Iterable[Mapping[str, Any]]) -> None:
    """Write rows as CSV with every cell neutralised and quoted (OWASP)."""
    writer = csv.DictWriter(handle, fieldnames=list(columns), quoting=csv.QUOTE_ALL)
    writer.writeheader()
    for row in rows:
        writer.writerow({k: spreadsheet_cell(v) for k, v in row.items()})


def csv_bytes(columns: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> bytes:
    """The CSV of :func:`write_csv` as UTF-8 bytes (a download)."""
    out = io.StringIO(newline="")
    write_csv(out, columns, rows)
    return out.getvalue().encode("utf-8")


#: Evidence keys whose whole-number values are amounts in cents (a dict of them: by seat),
#: as round 1's rules named them; a key ending in ``_cents`` is an amount whatever its name.
AMOUNT_KEYS: frozenset[str] = frozenset({
    "amount", "unit", "current_bet", "stake", "owed", "to", "called", "collected", "carried",
    "returned", "paid", "due", "withdrawn", "total", "rake", "put_in", "recorded_pot",
    "penalty", "penalty_paid", "penalty_due", "paid_out", "opening_bet", "first_bet",
    "not_returned", "expected",
})  # fmt: skip


#: ``json.dumps(value, sort_keys=True)``, its encoder made once: ``dumps`` with any option
#: builds a new encoder per call, a third of the time of a report's 7,000 evidence values.
_SORTED_JSON = json.JSONEncoder(sort_keys=True)


def evidence_items(evidence: Mapping[str, Any], currency: str = "$") -> list[tuple[str, str]]:
    """A finding's evidence as (key, text) pairs, amounts in the house's currency (a
    ``stake_cents`` key is shown as ``stake``)."""
    out = []
    for key in sorted(evidence):
        value, label = evidence[key], key
        if key.endswith("_cents"):
            label = key.removesuffix("_cents")
            value = _amounts(value, currency)
        elif key in AMOUNT_KEYS:
            value = _amounts(value, currency)
        out.append((label, value if isinstance(value, str) else _SORTED_JSON.encode(value)))
    return out


def _amounts(value: Any, currency: str) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        return money_text(value, currency)
    if isinstance(value, dict) and all(
        isinstance(v, int) and not isinstance(v, bool) for v in value.values()
    ):
        return ", ".join(f"seat {k}: {money_text(v, currency)}" for k, v in value.items())
    return value


def iso_instant_text(text: Any, offset_minutes: int | None) -> str:
    """An ISO instant (a decision's time, a run's start) on the room's clock, one format;
    an empty string for anything that is not a non-empty string (None, NaN)."""
    if not isinstance(text, str) or not text:
        return ""
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        return text
    return local_time_text(when, offset_minutes)


def evidence_lines(evidence: Mapping[str, Any]) -> list[int]:
    """Line numbers a finding's evidence names besides the offender's (``opened_line``,
    ``later_draw.line``): the anchor lines a reader is shown highlighted."""
    found: list[int] = []
    for key, value in evidence.items():
        if key == "line" or key.endswith("_line"):
            if isinstance(value, int) and not isinstance(value, bool):
                found.append(value)
        elif isinstance(value, dict):
            found += evidence_lines(value)
    return found
