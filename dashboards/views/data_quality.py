"""Data quality: the quarantine with file, line, error and raw text; the runs."""

from __future__ import annotations

import streamlit as st

from dashboards.state import guard, load
from dashboards.text import md

st.title("Data quality")
snap = guard()
if snap is None:
    st.stop()

st.subheader("Missing data found by the nightly runs")
missing = load("data_quality_findings")
if missing.empty:
    st.info("No run found data missing (or the store's runs did not look for it).")
else:
    st.dataframe(missing, hide_index=True, width="stretch")

st.subheader("Quarantine")
kinds = load("quarantine_kinds")
total = int(kinds["items"].sum()) if not kinds.empty else 0
st.metric("Quarantined items", f"{total:,}")
if not kinds.empty:
    st.dataframe(kinds, hide_index=True)

c1, c2 = st.columns(2)
kind = c1.selectbox(
    "Kind", ["", *kinds["kind"].tolist()], format_func=lambda k: k or "All kinds", key="q_kind"
)
text = c2.text_input("File or error contains", max_chars=120, key="q_text")
rows = load("quarantine_rows", kind=kind, text=text, limit=1000)
matched = int(rows["total"].iloc[0]) if not rows.empty else 0
st.caption(f"{matched:,} items match" + (" (showing 1,000)" if matched > 1000 else ""))
st.dataframe(
    rows.drop(columns=["total"]),
    hide_index=True,
    width="stretch",
    height=320,
    column_config={"raw_text": st.column_config.TextColumn("raw text", width="large")},
)
if not rows.empty:
    pick = st.selectbox(
        "Show raw text of",
        range(len(rows)),
        format_func=lambda i: (
            f"{rows.iloc[i]['file']}:{rows.iloc[i]['line']} ({rows.iloc[i]['kind']})"
        ),
        key="q_pick",
    )
    item = rows.iloc[pick]
    st.error(md(item["error"]))
    st.code(item["raw_text"], language=None)

st.subheader("Runs")
runs = load("runs", limit=100)
if runs.empty:
    st.info("No nightly run recorded in this store.")
else:
    st.dataframe(runs, hide_index=True, width="stretch")
