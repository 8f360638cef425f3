"""Hand: the replayer, the findings on it with the rulebook, the raw log beside it."""

from __future__ import annotations

from html import escape

import pandas as pd
import streamlit as st

from dashboards import reviews
from dashboards.cards import CARD_CSS, cards_html
from dashboards.hand_view import (
    LineView,
    money,
    parse_stored,
    pots_text,
    raw_log_html,
    replay_lines,
    start_state,
)
from dashboards.rulebook import passages_for
from dashboards.state import guard, load, reviews_path
from dashboards.ui import review_form, severity_label

st.title("Hand")
snap = guard()
if snap is None:
    st.stop()
st.html(CARD_CSS)

requested = st.query_params.get("hand_id", "")
typed = st.text_input("Hand id", value=requested, max_chars=120, key="h_id")
hand_id = typed.strip()
if not hand_id:
    st.info("Type a hand id, or open a hand from the Findings page.")
    st.stop()
found = load("hand", hand_id=hand_id)
if found.empty:
    st.warning(f"No hand `{hand_id}` in the store.")
    matches = load("hand_search", text=hand_id)
    if not matches.empty:
        st.write("Hands whose id contains it:")
        st.dataframe(matches, hide_index=True)
    st.stop()
if hand_id != requested:
    st.query_params["hand_id"] = hand_id

head = found.iloc[0]
record = parse_stored(str(head["raw_text"]), str(head["form"]), int(head["first_line"]))
findings = load("hand_findings", hand_id=hand_id)
# What each offending line is accused of, shown under the line in the replay.
accused: dict[int, list[str]] = {}
for _, f in findings.dropna(subset=["action_index"]).iterrows():
    accused.setdefault(int(f["action_index"]), []).append(f"{f['code']} {f['message']}")
bad_lines = {int(i) for i in findings["line"].dropna()}

st.markdown(
    f"**{head['table_id']}** · {head['local_time']:%Y-%m-%d %H:%M:%S} (room time) · dealer "
    f"{head['dealer_id'] or '—'} · {head['game']} {money(head['limit_small'])}/"
    f"{money(head['limit_big'])} · ante {money(head['ante'])} · button {head['button']} · "
    f"jackpot {head['jackpot']} · openers {head['openers'] or '—'} · carried "
    f"{money(head['carried'])} · joker {'yes' if head['joker'] else 'no'} · pot "
    f"{money(head['pot'])}"
)
if findings.empty:
    st.success("No findings on this hand.")
else:
    st.markdown(
        " · ".join(f"{severity_label(r.severity)} {r.code} {r.name}" for r in findings.itertuples())
    )


_SEAT_HEAD = "".join(
    f"<th>{h}</th>" for h in ("seat", "player", "cards", "stake", "in pot", "behind", "status")
)


def _line_html(i: int, view: LineView, step: int) -> str:
    bad = view.index in accused
    why = "".join(f"<div><small>⚠ {escape(t)}</small></div>" for t in accused.get(view.index, []))
    marker = "▶ " if i + 1 == step else ""
    return (
        f'<div class="op-step{" op-bad" if bad else ""}">{marker}{view.line}: '
        f"{escape(view.text)} — pot {money(view.pot)}{why}</div>"
    )


lines = replay_lines(record)
replay_tab, findings_tab = st.tabs(["Replay", f"Findings and reviews ({len(findings)})"])
with replay_tab:
    left, right = st.columns([3, 2])
    with left:
        step = st.slider("After line", 0, len(lines), len(lines), key="h_step") if lines else 0
        seats = lines[step - 1].seats if step else start_state(record)
        pot = lines[step - 1].pot if step else record.carried
        pots = pots_text(lines[step - 1].pots) if step else ""
        if step:
            st.html(_line_html(step - 1, lines[step - 1], step))
        st.markdown(f"**Pot {money(pot)}**" + (f" — {pots}" if pots else ""))
        rows = "".join(
            f"<tr><td>{s.seat}</td><td>{escape(s.player_id)}</td>"
            f"<td>{cards_html(s.cards)}</td>"
            f"<td>{money(s.stake)}</td><td>{money(s.in_pot)}</td><td>{money(s.behind)}</td>"
            f"<td>{escape(s.status)}</td></tr>"
            for s in seats
        )
        st.html(f"<table class='op-seats' style='width:100%'>{_SEAT_HEAD}{rows}</table>")
        st.caption("Every line with the pot after it; offending lines in red with the finding.")
        st.html("".join(_line_html(i, v, step) for i, v in enumerate(lines)))
    with right:
        st.caption(f"Raw log: {head['source_file']} from line {head['first_line']}")
        st.html(raw_log_html(str(head["raw_text"]), int(head["first_line"]), bad_lines))

with findings_tab:
    for i, row in findings.iterrows():
        where = f"line {int(row['line'])}" if not pd.isna(row["line"]) else "the deal sequence"
        st.markdown(
            f"#### {row['code']} {row['name']} — {severity_label(str(row['severity']))}, {where}"
        )
        st.markdown(f"**{row['message']}**")
        st.caption(f"Evidence: `{row['evidence']}`")
        passages = passages_for(str(row["source"]))
        st.caption(
            f"Source: {row['source']}"
            + ("" if passages else " (no rulebook passage: an accounting or deck rule)")
        )
        for passage in passages:
            if passage.text:
                st.markdown(f"> **{passage.citation}** — {passage.text}")
            else:
                st.markdown(f"> **{passage.citation}** (passage not found in the rulebook seeds)")
        review_form(row, f"hand-review-{i}")
        st.divider()
    unverifiable = load("hand_unverifiable", hand_id=hand_id)
    if not unverifiable.empty:
        st.caption("Rules that could not be checked on this hand")
        st.dataframe(unverifiable, hide_index=True)
    history = reviews.hand_history(reviews_path(), hand_id)
    if not history.empty:
        st.subheader("Review history of this hand")
        st.dataframe(history, hide_index=True, width="stretch")
