"""Browse: every table, view and mart of the store, faceted, filtered, paged, downloadable."""

from __future__ import annotations

import streamlit as st

from dashboards.browser import DEFAULT_FACETS_UP_TO, FACET_HINTS, PAGE_ROWS
from dashboards.state import guard, load
from dashboards.text import md
from dashboards.ui import export_buttons

st.title("Browse")
snap = guard()
if snap is None:
    st.stop()

catalogue = load("relations")
names = catalogue["name"].tolist()
wanted = st.query_params.get("table", "findings")
name = st.selectbox(
    "Table or view", names, index=names.index(wanted) if wanted in names else 0,
    format_func=lambda n: f"{n} ({catalogue.set_index('name').loc[n, 'layer']})", key="b_table",
)  # fmt: skip
columns = load("relation_columns", relation=name)
column_names = columns["column"].tolist()
size = int(load("browse_count", relation=name)["rows"].iloc[0])
hinted = [c for c in FACET_HINTS if c in column_names][:3] if size <= DEFAULT_FACETS_UP_TO else []
asked = [c for c in st.query_params.get_all("facet") if c in column_names]
facet_columns = st.multiselect(
    "Facets", column_names, default=asked or hinted, key=f"b_facets_{name}",
    help="Columns to filter by value; each lists its most common values under the other"
    " filters (none by default on a relation over a million rows: a facet reads every row)",
)  # fmt: skip

c1, c2 = st.columns([1, 2])
text_column = c1.selectbox("Search in", column_names, key=f"b_text_col_{name}")
text = c2.text_input("contains", max_chars=120, key=f"b_text_{name}",
                     value=st.query_params.get("q", ""))  # fmt: skip

facets: dict[str, list[str]] = {}
if facet_columns:
    cells = st.columns(len(facet_columns))
    for cell, column in zip(cells, facet_columns, strict=True):
        counts = load("facet_values", relation=name, column=column, facets=facets,
                      text_column=text_column, text=text)  # fmt: skip
        labels = dict(zip(counts["value"], counts["rows"], strict=True))
        from_url = [v for v in st.query_params.get_all(f"f.{column}") if v in labels]
        def label(value: str, counts: dict[str, int] = labels) -> str:
            return f"{value} ({counts[value]:,})"

        chosen = cell.multiselect(
            column, list(labels), default=from_url, key=f"b_f_{name}_{column}",
            format_func=label,
        )  # fmt: skip
        if chosen:
            facets[column] = chosen

st.query_params.from_dict({
    "table": name, "facet": facet_columns, "q": text,
    **{f"f.{c}": v for c, v in facets.items()},
})  # fmt: skip
total = int(load("browse_count", relation=name, facets=facets, text_column=text_column,
                 text=text)["rows"].iloc[0])  # fmt: skip
pages = max(1, -(-total // PAGE_ROWS))
p1, p2 = st.columns([1, 5])
page = p1.number_input("Page", min_value=1, max_value=pages, value=1, key=f"b_page_{name}")
p2.markdown(f"**{total:,} rows** of {md(name)} match · page {page} of {pages:,}")
rows = load("browse_page", relation=name, facets=facets, text_column=text_column, text=text,
            page=int(page) - 1)  # fmt: skip
st.dataframe(rows, hide_index=True, width="stretch", height=460)
export_buttons(
    lambda: load("browse_export", relation=name, facets=facets, text_column=text_column, text=text),
    name, disabled=total == 0,
)  # fmt: skip
st.caption("Downloads hold every matching row up to 100,000; CSV cells that a spreadsheet "
           "would run as formulas are neutralised.")  # fmt: skip
