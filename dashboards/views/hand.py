"""Hand: find a hand, replay it line by line, its table's deals around it, its cases."""

from __future__ import annotations

import json
from html import escape

import pandas as pd
import streamlit as st

from dashboards import reviews
from dashboards.cards import CARD_CSS, cards_html
from dashboards.cases import actor_picker, case_panel
from dashboards.hand_view import LineView, parse_stored, pots_text, raw_log_html, replay_lines
from dashboards.hand_view import start_state as seats_before_play
from dashboards.rulebook import passages_for
from dashboards.search import hand_search_form
from dashboards.state import guard, load, office, reviews_path
from dashboards.text import md
from dashboards.ui import money, severity_label
from schemas.display import evidence_items, evidence_lines, iso_instant_text

st.title("Hand")
snap = guard()
if snap is None:
    st.stop()
actor = actor_picker()
st.html(CARD_CSS)

requested = st.query_params.get("hand_id", "")
with st.expander("Search hands", expanded=not requested):
    hand_search_form()
typed = st.text_input("Hand id", value=requested, max_chars=120, key="h_id")
hand_id = typed.strip()
if not hand_id:
    st.info("Type a hand id, search above, or open a hand from the Findings page.")
    st.stop()
found = load("hand", hand_id=hand_id)
if found.empty:
    st.warning(f"No hand {md(hand_id)} in the store.")
    matches = load("hand_search", text=hand_id)
    if not matches.empty:
        st.write("Hands whose id contains it:")
        st.dataframe(matches, hide_index=True)
    st.stop()
if hand_id != requested:
    st.query_params["hand_id"] = hand_id

head = found.iloc[0]
neighbours = load("hand_neighbours", hand_id=hand_id).iloc[0]
n1, n2, n3 = st.columns([1, 4, 1])
for column, which, label in ((n1, "previous", "← previous deal"), (n3, "next", "next deal →")):
    if isinstance(neighbours[which], str):
        column.page_link(
            "views/hand.py", label=label, query_params={"hand_id": neighbours[which]},
            help=f"The {which} deal at table {head['table_id']}",
        )  # fmt: skip
    else:
        column.caption(f"no {which} deal at this table")
n2.caption(f"Deals of table {md(head['table_id'])} in time order")

record = parse_stored(str(head["raw_text"]), str(head["form"]), int(head["first_line"]))
findings = load("hand_findings", hand_id=hand_id)
# What each offending line is accused of, shown under the line in the replay.
accused: dict[int, list[str]] = {}
for _, f in findings.dropna(subset=["action_index"]).iterrows():
    accused.setdefault(int(f["action_index"]), []).append(f"{f['code']} {f['message']}")
bad_lines = {int(i) for i in findings["line"].dropna()}
for raw in findings["evidence"].dropna():  # and the anchor lines the evidence names
    named = json.loads(raw)
    bad_lines.update(evidence_lines(named) if isinstance(named, dict) else [])

st.markdown(
    f"**{md(head['table_id'])}** · {md(head['time_text'])} (room time) · room "
    f"{md(head['room'])} · dealer {md(head['dealer_id'])} · {md(head['game'])} "
    f"{money(head['limit_small'])}/{money(head['limit_big'])} · ante {money(head['ante'])} · "
    f"button {head['button']} · jackpot {head['jackpot']} · openers {md(head['openers'])} · "
    f"carried {money(head['carried'])} · joker {'yes' if head['joker'] else 'no'} · pot "
    f"{money(head['pot'])}"
)
if findings.empty:
    st.success("No findings on this hand.")
else:
    st.markdown(
        " · ".join(
            f"{severity_label(r.severity)} {md(r.code)} {md(r.name)} ({md(r.review_status)})"
            for r in findings.itertuples()
        )
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
        f"{escape(view.text)} — pot {escape(money(view.pot))}{why}</div>"
    )


lines = replay_lines(record)
STEP = "h_step"
PLAYING = "h_playing"
if st.session_state.get("h_hand") != hand_id:  # a new hand starts at its end, not playing
    st.session_state["h_hand"] = hand_id
    st.session_state[STEP] = len(lines)
    st.session_state[PLAYING] = False


def _move(to: int) -> None:
    st.session_state[STEP] = max(0, min(len(lines), to))


def _toggle_play() -> None:
    playing = not st.session_state[PLAYING]
    st.session_state[PLAYING] = playing
    if playing and st.session_state[STEP] >= len(lines):
        st.session_state[STEP] = 0


@st.fragment(run_every=0.8 if st.session_state[PLAYING] else None)
def replay() -> None:
    """The table after the chosen line; while playing, one more line every 0.8 s."""
    if st.session_state[PLAYING]:
        if st.session_state[STEP] >= len(lines):
            st.session_state[PLAYING] = False
            st.rerun()
        else:
            st.session_state[STEP] += 1
    step = st.session_state[STEP]
    b = st.columns(5)
    b[0].button("« start", on_click=_move, args=(0,), key="h_first")
    b[1].button("◀ step", on_click=_move, args=(step - 1,), key="h_back")
    b[2].button(
        "■ pause" if st.session_state[PLAYING] else "▶ play", on_click=_toggle_play,
        key="h_play",
    )  # fmt: skip
    b[3].button("step ▶", on_click=_move, args=(step + 1,), key="h_forward")
    b[4].button("end »", on_click=_move, args=(len(lines),), key="h_last")
    if lines:
        st.slider("After line", 0, len(lines), key=STEP)
    seats = lines[step - 1].seats if step else seats_before_play(record)
    pot = lines[step - 1].pot if step else record.carried
    pots = pots_text(lines[step - 1].pots, office().currency) if step else ""
    if step:
        st.html(_line_html(step - 1, lines[step - 1], step))
    st.markdown(f"**Pot {md(money(pot))}**" + (f" — {md(pots)}" if pots else ""))
    rows = "".join(
        f"<tr><td>{s.seat}</td><td>{escape(s.player_id)}</td>"
        f"<td>{cards_html(s.cards)}</td><td>{escape(money(s.stake))}</td>"
        f"<td>{escape(money(s.in_pot))}</td><td>{escape(money(s.behind))}</td>"
        f"<td>{escape(s.status)}</td></tr>"
        for s in seats
    )
    st.html(f"<table class='op-seats' style='width:100%'>{_SEAT_HEAD}{rows}</table>")
    st.caption("Every line with the pot after it; offending lines in red with the finding.")
    st.html("".join(_line_html(i, v, step) for i, v in enumerate(lines)))


replay_tab, findings_tab = st.tabs(["Replay", f"Findings and cases ({len(findings)})"])
with replay_tab:
    left, right = st.columns([3, 2])
    with left:
        replay()
    with right:
        st.caption(f"Raw log: {md(head['source_file'])} from line {head['first_line']}")
        st.html(raw_log_html(str(head["raw_text"]), int(head["first_line"]), bad_lines))

with findings_tab:
    for _, row in findings.iterrows():
        where = f"line {int(row['line'])}" if not pd.isna(row["line"]) else "the deal sequence"
        st.markdown(
            f"#### {md(row['code'])} {md(row['name'])} — "
            f"{severity_label(str(row['severity']))}, {where}"
        )
        st.markdown(f"**{md(row['message'])}**")
        evidence = json.loads(row["evidence"]) if isinstance(row["evidence"], str) else {}
        items = evidence_items(evidence if isinstance(evidence, dict) else {}, office().currency)
        st.caption("Evidence: " + md("; ".join(f"{k}: {v}" for k, v in items)))
        passages = passages_for(str(row["source"]))
        st.caption(
            f"Source: {md(row['source'])}"
            + ("" if passages else " (no rulebook passage: an accounting or deck rule)")
        )
        for passage in passages:
            if passage.text:
                st.markdown(f"> **{md(passage.citation)}** — {md(passage.text)}")
            else:
                st.markdown(f"> **{md(passage.citation)}** (passage not found in the seeds)")
        case_panel(row, "hand", actor)
        st.divider()
    unverifiable = load("hand_unverifiable", hand_id=hand_id)
    if not unverifiable.empty:
        st.caption("Rules that could not be checked on this hand")
        st.dataframe(unverifiable, hide_index=True)
    history = reviews.hand_history(reviews_path(), hand_id)
    history["at"] = [iso_instant_text(t, int(head["utc_offset_minutes"])) for t in history["at"]]
    if not history.empty:
        st.subheader("Case history of this hand")
        st.dataframe(history, hide_index=True, width="stretch")
