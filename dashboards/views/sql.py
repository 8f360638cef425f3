"""SQL: ask the store anything, read-only, with a row limit and a timeout."""

from __future__ import annotations

import streamlit as st

from dashboards.sandbox import (
    DEFAULT_ROWS,
    DEFAULT_SECONDS,
    MAX_ROWS,
    MAX_SECONDS,
    QueryRefused,
    run_query,
)
from dashboards.state import guard
from dashboards.text import md
from dashboards.ui import export_buttons

st.title("SQL")
snap = guard()
if snap is None:
    st.stop()
st.caption(
    "Read-only: the query runs on a copy of the store attached read-only, with every access "
    "to files and the network turned off; nothing it does can change the store or write a "
    "file. The Browse page lists the tables, views and marts."
)
example = "SELECT code, severity, count(*) AS findings FROM findings GROUP BY ALL ORDER BY 3 DESC"
sql = st.text_area("Query", value=st.query_params.get("sql", example), height=140,
                   max_chars=20_000, key="s_sql")  # fmt: skip
c1, c2, c3 = st.columns([1, 1, 4])
limit = c1.number_input("Row limit", 1, MAX_ROWS, DEFAULT_ROWS, key="s_rows")
timeout = c2.number_input("Timeout (s)", 1.0, MAX_SECONDS, DEFAULT_SECONDS, key="s_timeout")
if c3.button("Run", type="primary", key="s_run") or "sql" in st.query_params:
    st.query_params["sql"] = sql
    try:
        result = run_query(snap.path, sql, int(limit), float(timeout))
    except QueryRefused as exc:
        st.error(f"The query was refused or failed: {md(exc)}")
        st.stop()
    st.markdown(
        f"**{len(result.frame):,} rows** in {result.seconds:.2f} s"
        + (f" (stopped at the limit of {int(limit):,})" if result.truncated else "")
    )
    st.dataframe(result.frame, hide_index=True, width="stretch", height=460)
    export_buttons(lambda: result.frame, "query", disabled=result.frame.empty)
