"""Overview: what went wrong last night, at a glance."""

from __future__ import annotations

import altair as alt
import streamlit as st

from dashboards.state import guard, load
from dashboards.text import md
from dashboards.ui import SEVERITY_COLOURS

st.title("Overview")
snap = guard()
if snap is None:
    st.stop()

totals = load("totals").iloc[0]
hands = int(totals["hands_audited"])
verified = hands - int(totals["hands_unverifiable"])
coverage = f"{verified / hands:.1%}" if hands else "—"

cols = st.columns(6)
cols[0].metric("Hands audited", f"{hands:,}")
cols[1].metric("Findings", f"{int(totals['findings']):,}")
cols[2].metric("Critical", f"{int(totals['critical']):,}")
cols[3].metric("Major", f"{int(totals['major']):,}")
cols[4].metric("Minor", f"{int(totals['minor']):,}")
cols[5].metric("Fully verified hands", coverage, help="Hands on which every rule could be checked")
st.caption(
    f"{int(totals['hands']):,} hands stored, {int(totals['tables'])} tables, "
    f"{int(totals['dealers'])} dealers, "
    f"{totals['first_day']} to {totals['last_day']}; "
    f"{int(totals['hands_with_findings']):,} hands with findings."
)

opened = load("open_cases").set_index("severity")


def _open(severity: str, column: str = "cases") -> int:
    return int(opened[column].get(severity, 0)) if not opened.empty else 0


undecided = _open("critical") + _open("major")
overdue = _open("critical", "overdue") + _open("major", "overdue")
if undecided:
    st.error(
        f"**Needs a decision: {_open('critical'):,} critical and {_open('major'):,} major "
        f"findings** are open or escalated ({overdue:,} overdue). "
        "[Open the queue](/findings?severity=critical&severity=major&status=open"
        "&status=escalated)"
    )
else:
    st.success("Nothing critical or major is waiting for a decision.")

missing = load("data_quality_findings", last_run_only=True)
for item in missing.itertuples():
    text = (f"**Missing data ({md(item.severity)})**: {md(item.message)}"
            + (f" · table {md(item.table_id)}" if isinstance(item.table_id, str) else ""))
    (st.error if item.severity in ("critical", "major") else st.warning)(text)

runs = load("runs", limit=1)
if runs.empty:
    st.info("No nightly run recorded in this store.")
else:
    run = runs.iloc[0]
    critical = int(run["findings_critical"])
    # The job's own word is "ok" when nothing reached --fail-on; beside critical
    # findings the screen never says "ok".
    word = str(run["status"])
    if word == "ok" and not missing.empty:
        word = "missing data"
    text = (
        f"Last run #{run['run_id']}: **{md(word)}**, started {md(run['started'])}, "
        f"{run['hands']:,} new hands, {run['findings']:,} new findings "
        f"({critical:,} critical), {run['quarantined']:,} quarantined."
    )
    if run["job_status"] in ("failed", "interrupted"):
        st.error(text + (f" Error: {md(run['error'])}" if run["error"] else ""))
    elif run["job_status"] == "findings" or critical or not missing.empty:
        st.warning(text)
    else:
        st.success(text)

st.subheader("Findings by day")
daily = load("daily")
if daily.empty:
    st.info("No hands in the store.")
else:
    long = daily.melt(
        id_vars=["day"],
        value_vars=["critical", "major", "minor"],
        var_name="severity",
        value_name="count",
    )
    chart = (
        alt.Chart(long)
        .mark_bar()
        .encode(
            x=alt.X("yearmonthdate(day):O", title="day", axis=alt.Axis(labelAngle=-45)),
            y=alt.Y("count:Q", title="findings"),
            color=alt.Color(
                "severity:N",
                scale=alt.Scale(
                    domain=list(SEVERITY_COLOURS), range=list(SEVERITY_COLOURS.values())
                ),
            ),
            tooltip=["day:T", "severity:N", "count:Q"],
        )
        .properties(height=260)
    )
    st.altair_chart(chart, width="stretch")

left, right = st.columns(2)
with left:
    st.subheader("Findings by code, worst first")
    st.dataframe(
        load("by_code"),
        hide_index=True,
        width="stretch",
        height=360,
        column_config={"severity": st.column_config.TextColumn("severity")},
    )
with right:
    st.subheader("Tables with most findings")
    st.dataframe(load("by_table"), hide_index=True, width="stretch")

st.subheader("Audit coverage")
st.write(
    f"{verified:,} of {hands:,} hands fully verified; "
    f"{int(totals['unverifiable_checks']):,} checks could not be made on "
    f"{int(totals['hands_unverifiable']):,} hands because the log lacks cards (`??`)."
)
unverifiable = load("unverifiable_by_code")
if not unverifiable.empty:
    st.dataframe(unverifiable, hide_index=True, width="stretch")
