"""The Browse page's queries: every table, view and mart, faceted and filtered, like datasette.

A relation name and column names are identifiers and cannot be bound; they are
only ever taken from the store's own catalogue (:func:`relation_columns`) and
quoted, so text a user types is never spliced into SQL. Filter values are bound.
Registered in :data:`dashboards.queries.QUERIES` like every other page query.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from dashboards.queries import Context, query

NULL_TEXT = "(null)"
#: Rows on one page of the browser, and at most in one download.
PAGE_ROWS = 100
EXPORT_ROWS = 100_000
#: Relations with more rows get no facets until asked (a facet groups every row).
DEFAULT_FACETS_UP_TO = 1_000_000
#: Columns offered as facets first, when the relation has them.
FACET_HINTS: tuple[str, ...] = (
    "severity", "code", "family", "kind", "status", "table_id", "dealer_id", "game", "verb",
    "section", "unit", "profile", "room", "review_status",
)  # fmt: skip


def _layer(name: str) -> str:
    for prefix, layer in (("raw_", "raw"), ("stg_", "staging"), ("audit_", "audit"),
                          ("ops_", "ops"), ("mart_", "mart")):  # fmt: skip
        if name.startswith(prefix):
            return layer
    return "public"


@query()
def relations(ctx: Context) -> pd.DataFrame:
    """Every table and view of the store (name, kind, layer), public views first."""
    frame = ctx.frame(
        "SELECT table_name AS name, lower(table_type) AS kind FROM information_schema.tables"
        " WHERE table_schema = 'main' AND table_catalog = current_database()"
        " AND table_name NOT LIKE '\\_%' ESCAPE '\\' ORDER BY table_name"
    )
    frame["layer"] = [_layer(n) for n in frame["name"]]
    order = ["public", "mart", "audit", "staging", "raw", "ops"]
    return frame.sort_values(["layer", "name"], key=lambda s: s.map(
        lambda v: order.index(v) if v in order else 0) if s.name == "layer" else s,
    ).reset_index(drop=True)  # fmt: skip


@query()
def relation_columns(ctx: Context, relation: str) -> pd.DataFrame:
    """The columns of one relation (none for a name that is not in the catalogue)."""
    return ctx.frame(
        "SELECT column_name AS column, data_type AS type FROM information_schema.columns"
        " WHERE table_schema = 'main' AND table_catalog = current_database()"
        " AND table_name = $relation ORDER BY ordinal_position",
        {"relation": relation},
    )


def _quote(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def _where(
    columns: Sequence[str], facets: Mapping[str, Sequence[str]], text_column: str, text: str
) -> tuple[str, dict[str, Any]]:
    """The WHERE clause of the filters, over known columns only, with bound values."""
    parts: list[str] = ["TRUE"]
    params: dict[str, Any] = {}
    for i, (column, values) in enumerate(sorted(facets.items())):
        if column in columns and values:
            parts.append(f"list_contains($f{i}, coalesce(CAST({_quote(column)} AS VARCHAR),"
                         f" '{NULL_TEXT}'))")  # fmt: skip
            params[f"f{i}"] = list(values)
    if text.strip() and text_column in columns:
        parts.append(f"contains(lower(CAST({_quote(text_column)} AS VARCHAR)), lower($text))")
        params["text"] = text.strip()
    return " AND ".join(parts), params


def _source(ctx: Context, relation: str) -> tuple[str, list[str]]:
    columns = relation_columns(ctx, relation)["column"].tolist()
    if not columns:
        raise KeyError(f"no table or view {relation!r} in the store")
    return _quote(relation), columns


def _filtered(
    ctx: Context, relation: str, facets: Mapping[str, Sequence[str]] | None, text_column: str,
    text: str,
) -> tuple[str, dict[str, Any]]:  # fmt: skip
    """``FROM relation WHERE filters`` and its bound values."""
    source, columns = _source(ctx, relation)
    where, params = _where(columns, facets or {}, text_column, text)
    return f"FROM {source} WHERE {where}", params


@query()
def browse_page(
    ctx: Context, relation: str, facets: Mapping[str, Sequence[str]] | None = None,
    text_column: str = "", text: str = "", page: int = 0, rows: int = PAGE_ROWS,
) -> pd.DataFrame:  # fmt: skip
    """One page of a relation under the filters (:func:`browse_count` counts them all: a
    window count here would make DuckDB read every matching row of a big table)."""
    body, params = _filtered(ctx, relation, facets, text_column, text)
    params.update(limit=rows, offset=max(0, page) * rows)
    return ctx.frame(f"SELECT * {body} LIMIT $limit OFFSET $offset", params)


@query()
def browse_count(
    ctx: Context, relation: str, facets: Mapping[str, Sequence[str]] | None = None,
    text_column: str = "", text: str = "",
) -> pd.DataFrame:  # fmt: skip
    """How many rows of a relation match the filters (one row, ``rows``)."""
    body, params = _filtered(ctx, relation, facets, text_column, text)
    return ctx.frame(f"SELECT count(*) AS rows {body}", params)


@query()
def facet_values(
    ctx: Context, relation: str, column: str, facets: Mapping[str, Sequence[str]] | None = None,
    text_column: str = "", text: str = "", top: int = 30,
) -> pd.DataFrame:  # fmt: skip
    """The most common values of ``column`` under the other filters, with their counts."""
    source, columns = _source(ctx, relation)
    if column not in columns:
        return pd.DataFrame({"value": [], "rows": []})
    others = {c: v for c, v in (facets or {}).items() if c != column}
    where, params = _where(columns, others, text_column, text)
    params["top"] = top
    return ctx.frame(
        f"SELECT coalesce(CAST({_quote(column)} AS VARCHAR), '{NULL_TEXT}') AS value,"
        f" count(*) AS rows FROM {source} WHERE {where} GROUP BY ALL"
        " ORDER BY rows DESC, value LIMIT $top",
        params,
    )


@query()
def browse_export(
    ctx: Context, relation: str, facets: Mapping[str, Sequence[str]] | None = None,
    text_column: str = "", text: str = "",
) -> pd.DataFrame:  # fmt: skip
    """Every row matching the filters, up to :data:`EXPORT_ROWS` (the CSV and JSON download)."""
    body, params = _filtered(ctx, relation, facets, text_column, text)
    return ctx.frame(f"SELECT * {body} LIMIT $limit", {**params, "limit": EXPORT_ROWS})
