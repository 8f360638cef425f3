"""Integrity: the alert queue, players linked by suspicion, each dealer's fairness plots.

Reads the latest integrity run the store keeps (``openers integrity --store`` or the
nightly job: ``schemas/ddl/40_integrity.sql``) through its marts. An alert is a case in
the case file like a finding (same states and decisions), filed under the alert's
stable key in place of a hand id.
"""

from __future__ import annotations

import json
import math

import altair as alt
import pandas as pd
import streamlit as st

from dashboards.cases import actor_picker, case_panel
from dashboards.queries import REVIEW_STATUSES, Context, query
from dashboards.state import guard, load
from dashboards.ui import hand_link_config, with_hand_links

#: Links drawn in the graph: every alert, and the strongest other links up to this many.
GRAPH_LINKS = 40
#: A link weaker than this q-value is not drawn unless it is an alert.
GRAPH_Q = 0.5


@query()
def integrity_run(ctx: Context) -> pd.DataFrame:
    """The latest integrity run (one row, or none), its time as the room's clock showed it
    (the offset of the newest hand, as the runs of the nightly job)."""
    return ctx.frame(
        """
        WITH o AS (SELECT coalesce((SELECT utc_offset_minutes FROM mart_hands
                                    ORDER BY time DESC LIMIT 1), 0) AS off)
        SELECT r.*, local_time_text(timezone('UTC', r.computed_at) + to_minutes(o.off), o.off)
                   AS computed_text
        FROM integrity_runs AS r, o ORDER BY r.integrity_run_id DESC LIMIT 1
        """
    )


@query(uses_reviews=True)
def integrity_queue(ctx: Context) -> pd.DataFrame:
    """The latest run's alerts with their review state, best ranked first."""
    return ctx.frame(
        """
        SELECT a.rank, a.code, a.name, a.family, a.level, a.dealer_id, a.table_id,
               a.player_id, a.partner_id, a.q_value, a.p_value, a.effect_label, a.effect,
               a.ci_low, a.ci_high, a.sample, a.hands_total, a.message, a.alert_key,
               CAST(a.evidence AS VARCHAR) AS evidence,
               coalesce(r.review_status, 'open') AS review_status, r.reason, r.assignee,
               r.due_date, r.reviewer, r.decided_at
        FROM integrity_alerts_latest AS a
        LEFT JOIN review_state AS r USING (finding_key)
        ORDER BY a.rank
        """
    )


@query()
def integrity_links(ctx: Context, limit: int, weakest: float) -> pd.DataFrame:
    """Pairs of players linked by the collusion tests: every alert, then the strongest."""
    return ctx.frame(
        "SELECT * FROM mart_integrity_links WHERE alerts > 0 OR q_value <= $weakest "
        "ORDER BY alerts DESC, q_value LIMIT $limit",
        {"limit": limit, "weakest": weakest},
    )


@query()
def integrity_fairness(ctx: Context, kind: str) -> pd.DataFrame:
    """Per dealer: the mean PIT of one kind with the band of fair dealing."""
    return ctx.frame(
        "SELECT * FROM mart_integrity_fairness WHERE kind = $kind ORDER BY dealer_id",
        {"kind": kind},
    )


@query()
def integrity_bins(ctx: Context, kind: str, dealer_id: str) -> pd.DataFrame:
    """One dealer's PIT histogram of one kind, with the band of each bin."""
    return ctx.frame(
        "SELECT * FROM mart_integrity_pit_bins WHERE kind = $kind AND dealer_id = $dealer_id "
        "ORDER BY bin",
        {"kind": kind, "dealer_id": dealer_id},
    )


def _subject(row: pd.Series) -> str:
    parts = [f"dealer {row.dealer_id}" if isinstance(row.dealer_id, str) else "",
             f"table {row.table_id}" if isinstance(row.table_id, str) else ""]
    if isinstance(row.partner_id, str):
        arrow = " → " if row.level == "player-to-player" else " & "
        parts.append(f"{row.player_id}{arrow}{row.partner_id}")
    elif isinstance(row.player_id, str):
        parts.append(f"player {row.player_id}")
    return ", ".join(p for p in parts if p)


def _small(p: float) -> str:
    """A probability as printed: ``3.1e-07``; below what a double holds, ``< 1e-300``."""
    return "< 1e-300" if p < 1e-300 else f"{p:.2g}"


def _graph(links: pd.DataFrame) -> str:
    """Graphviz source: players as nodes, a link per pair, alerts in red."""
    lines = ["graph suspicion {", "  layout=neato; overlap=false; splines=true;",
             '  size="9,6";',
             '  node [shape=box, style="rounded,filled", fillcolor="#eceff1", fontsize=10];']
    for row in links.itertuples():
        alert = row.alerts > 0
        weight = min(8.0, 1.0 + -math.log10(max(float(row.q_value), 1e-300)) / 4)
        label = row.codes if alert else f"q={row.q_value:.2f}"
        colour = "#c62828" if alert else "#90a4ae"
        style = "solid" if alert else "dashed"
        lines.append(f'  "{row.player_a}" -- "{row.player_b}" [label="{label}", '
                     f'color="{colour}", fontcolor="{colour}", penwidth={weight:.1f}, '
                     f"style={style}];")
    lines.append("}")
    return "\n".join(lines)


st.title("Integrity")
snap = guard()
if snap is None:
    st.stop()
actor = actor_picker()
run = load("integrity_run")
if run.empty:
    st.info("No integrity analysis in the store yet: the nightly job runs one after its audit, "
            "or run `openers integrity --store`.")
    st.stop()
latest = run.iloc[0]
cols = st.columns(4)
cols[0].metric("Alerts", f"{int(latest['alerts']):,}")
cols[1].metric("Hands analysed", f"{int(latest['hands']):,}")
cols[2].metric("Cells judged", f"{int(latest['cells']):,}")
cols[3].metric("False discovery rate", f"{latest['fdr']:g}")
st.caption(f"Latest analysis {latest['computed_text']} ({latest['method']}); what each test "
           "assumes: docs/integrity.md.")

queue_tab, graph_tab, fairness_tab = st.tabs(
    ["Alert queue", "Players linked by suspicion", "Dealer fairness"])

with queue_tab:
    queue = load("integrity_queue")
    c1, c2, c3 = st.columns(3)
    families = c1.multiselect("Family", ["dealing", "collusion"], key="i_family")
    statuses = c2.multiselect("Review status", list(REVIEW_STATUSES), key="i_status")
    codes = c3.multiselect("Test", sorted(queue["code"].unique()), key="i_code")
    keep = pd.Series(True, index=queue.index)
    for column, wanted in (("family", families), ("review_status", statuses), ("code", codes)):
        if wanted:
            keep &= queue[column].isin(wanted)
    shown = queue[keep].copy()
    shown["subject"] = [_subject(r) for r in shown.itertuples()]
    st.markdown(f"**{len(shown):,} alerts** match")
    st.dataframe(
        shown,
        column_order=["rank", "code", "name", "subject", "q_value", "effect_label", "effect",
                      "ci_low", "ci_high", "sample", "hands_total", "review_status", "message"],
        column_config={
            "q_value": st.column_config.NumberColumn("q", format="%.2g"),
            "effect_label": st.column_config.TextColumn("effect size"),
            "effect": st.column_config.NumberColumn("value", format="%.3g"),
            "ci_low": st.column_config.NumberColumn("95% CI low", format="%.3g"),
            "ci_high": st.column_config.NumberColumn("95% CI high", format="%.3g"),
            "hands_total": st.column_config.NumberColumn("hands"),
            "review_status": st.column_config.TextColumn("review"),
            "message": st.column_config.TextColumn("message", width="large"),
        },
        hide_index=True, width="stretch", height=320,
    )
    if shown.empty:
        st.info("No alert matches the filters.")
    else:
        labels = {r.alert_key: f"{r.rank}. {r.code} {r.name} · {r.subject} · {r.review_status}"
                  for r in shown.itertuples()}
        chosen = st.selectbox("Alert", list(labels), format_func=lambda k: labels[k],
                              key="i_pick")
        row = shown.loc[shown["alert_key"] == chosen].iloc[0]
        st.subheader(f"{row['code']} {row['name']}")
        st.write(row["message"])
        m = st.columns(4)
        m[0].metric("q-value", _small(row["q_value"]))
        m[1].metric("p-value", _small(row["p_value"]))
        m[2].metric(str(row["effect_label"]), f"{row['effect']:.3g}",
                    help=f"95% CI {row['ci_low']:.3g} to {row['ci_high']:.3g}")
        m[3].metric("Sample", f"{int(row['sample']):,}")
        evidence = json.loads(row["evidence"])
        hands = pd.DataFrame(evidence["hands"], columns=["hand_id", "note"])
        st.markdown(f"**Hands behind it** ({int(row['hands_total']):,} in all, "
                    f"{len(hands):,} listed): open one in the replayer.")
        st.dataframe(with_hand_links(hands), column_config=hand_link_config(),
                     hide_index=True, width="stretch", height=240)
        st.markdown("**Case**")
        case_panel(pd.Series({"hand_id": row["alert_key"], "code": row["code"],
                              "action_index": None, "seat": None,
                              "review_status": row["review_status"],
                              "assignee": row["assignee"], "due_date": row["due_date"]}),
                   "integrity", actor)

with graph_tab:
    links = load("integrity_links", limit=GRAPH_LINKS, weakest=GRAPH_Q)
    if links.empty:
        st.info("No pair of players was tested by the collusion tests.")
    else:
        st.caption("Each line is a pair the collusion tests judged: red with the tests that "
                   "flagged it, grey dashed with its smallest q-value; thicker is stronger.")
        # a few links drawn at the width of the page would be giant: the graph keeps its size
        st.graphviz_chart(_graph(links), width="content")
        st.dataframe(links, hide_index=True, width="stretch", column_config={
            "q_value": st.column_config.NumberColumn("q", format="%.2g"),
            "p_value": st.column_config.NumberColumn("p", format="%.2g"),
        })

with fairness_tab:
    kind = st.radio("PITs of", ["draw", "dealt"], horizontal=True, key="i_kind",
                    format_func=lambda k: {"draw": "draws", "dealt": "dealt hands"}[k])
    fairness = load("integrity_fairness", kind=kind)
    if fairness.empty:
        st.info("No dealer has PITs of this kind.")
        st.stop()
    fairness["outside"] = (fairness["mean"] < fairness["band_low"]) | (
        fairness["mean"] > fairness["band_high"])
    low_n, high_n = int(fairness["n"].min()) / 1.5, int(fairness["n"].max()) * 1.5
    grid = pd.DataFrame({"n": [low_n * (high_n / low_n) ** (i / 60) for i in range(61)]})
    grid["low"] = 0.5 - 1.959964 * (1 / (12 * grid["n"])) ** 0.5
    grid["high"] = 0.5 + 1.959964 * (1 / (12 * grid["n"])) ** 0.5
    x_scale = alt.Scale(type="log", domain=[low_n, high_n])
    band = alt.Chart(grid).mark_area(opacity=0.2, color="#1565c0").encode(
        x=alt.X("n:Q", title=f"{kind} PITs of the dealer", scale=x_scale),
        y=alt.Y("low:Q", title="mean PIT", scale=alt.Scale(zero=False)), y2="high:Q")
    points = alt.Chart(fairness).mark_circle(size=80).encode(
        x=alt.X("n:Q", scale=x_scale), y="mean:Q",
        color=alt.condition("datum.outside", alt.value("#c62828"), alt.value("#455a64")),
        tooltip=["dealer_id", "n", alt.Tooltip("mean:Q", format=".4f"),
                 alt.Tooltip("band_low:Q", format=".4f"),
                 alt.Tooltip("band_high:Q", format=".4f")])
    names = points.mark_text(align="left", dx=7, fontSize=11).encode(
        text="dealer_id:N", color=alt.value("#c62828")).transform_filter("datum.outside")
    st.caption("Each dealer's mean PIT against the 95% band fair dealing gives for his "
               "number of PITs (0.5 ± 1.96 / √(12 n)); a dealer outside it is in red.")
    st.altair_chart((band + points + names).properties(height=300), width="stretch")
    dealer = st.selectbox("Dealer", fairness["dealer_id"].tolist(), key="i_dealer")
    bins = load("integrity_bins", kind=kind, dealer_id=dealer)
    bins["start"] = bins["bin"] / bins["bins"]
    bins["end"] = (bins["bin"] + 1) / bins["bins"]
    expected = alt.Chart(bins).mark_rect(opacity=0.25, color="#1565c0").encode(
        x=alt.X("start:Q", title="PIT", scale=alt.Scale(domain=[0, 1])), x2="end:Q",
        y=alt.Y("band_low:Q", title="count"), y2="band_high:Q")
    bins["zero"] = 0
    bars = alt.Chart(bins).mark_rect(color="#607d8b", opacity=0.8, stroke="white").encode(
        x="start:Q", x2="end:Q", y="count:Q", y2="zero:Q",
        tooltip=["bin", "count", alt.Tooltip("expected:Q", format=".1f"),
                 alt.Tooltip("band_low:Q", format=".1f"), alt.Tooltip("band_high:Q", format=".1f")])
    st.caption(f"{dealer}: how his {kind} PITs fall, against the band of a fair deal in each "
               "bin (a flat histogram is fair dealing; a pile at the right, favours).")
    st.altair_chart((expected + bars).properties(height=260), width="stretch")
