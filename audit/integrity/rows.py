"""A judged cell as a compact row: what ``integrity_tests`` keeps of every cell.

A run judges hundreds of thousands of cells on a large store and only a few become
alerts, so every cell is kept as a row of figures and only those that may pass the
false discovery control (:func:`may_alert`) whole, with their message, details and
evidence.
"""

from __future__ import annotations

from collections.abc import Iterable

from audit.integrity.model import Cell, Level

#: A cell as ``integrity_tests`` keeps it, before its q-value: the fields of
#: :class:`audit.integrity.engine.Tested` up to ``p_value``.
Row = tuple[str, Level, str, str | None, str | None, str | None, str | None, int, float, float,
            float, float, float, float]

#: Margin over the rate for the cells kept whole (rounding in the q-values).
MARGIN = 2.0


def row_of(cell: Cell) -> Row:
    """The cell's row."""
    s = cell.subject
    return (cell.code, cell.level, s.key(), s.dealer_id, s.table_id, s.player_id, s.partner_id,
            cell.n, float(cell.observed), float(cell.expected), float(cell.effect),
            float(cell.ci_low), float(cell.ci_high), float(cell.p_value))


def may_alert(cell: Cell, fdr: float) -> bool:
    """Whether the cell may become an alert at the rate ``fdr``: a Benjamini-Hochberg (or
    Yekutieli) q-value is never below its p-value, so a cell whose p-value is above the
    rate cannot (:data:`MARGIN` allows for rounding)."""
    return cell.p_value <= fdr * MARGIN


#: A test's cells: the rows of all of them, and by their index the cells that may alert.
Compact = tuple[list[Row], dict[int, Cell]]


def compact(cells: Iterable[Cell], fdr: float) -> Compact:
    """Rows of ``cells``, and the cells that may become alerts at ``fdr`` kept whole."""
    rows: list[Row] = []
    whole: dict[int, Cell] = {}
    for cell in cells:
        if may_alert(cell, fdr):
            whole[len(rows)] = cell
        rows.append(row_of(cell))
    return rows, whole
