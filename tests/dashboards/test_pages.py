"""Every page on a small generated store: what it shows matches DuckDB on the same store."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import duckdb
import pytest

from dashboards import queries, reviews
from dashboards.rulebook import passages_for
from dashboards.text import md
from dashboards.ui import queue_csv
from schemas.display import money_text as money
from schemas.office import os_user
from schemas.reviews import DISMISS_REASONS
from tests.dashboards.conftest import metrics, open_page, save_button, sql

pytestmark = pytest.mark.usefixtures("app_env")


def _texts(at: object) -> str:
    return "\n".join(m.value for m in at.markdown)  # type: ignore[attr-defined]


def test_overview_figures(store: Path) -> None:
    at = open_page("overview")
    shown = metrics(at)
    (audited,) = sql(store, "SELECT count(*) FROM audit_hands")[0]
    severities = dict(sql(store, "SELECT severity, count(*) FROM findings GROUP BY ALL"))
    (unverified,) = sql(store, "SELECT count(DISTINCT hand_id) FROM unverifiable")[0]
    assert audited > 0 and sum(severities.values()) > 0
    assert shown["Hands audited"] == f"{audited:,}"
    assert shown["Findings"] == f"{sum(severities.values()):,}"
    for severity in ("critical", "major", "minor"):
        assert shown[severity.title()] == f"{severities.get(severity, 0):,}"
    assert shown["Fully verified hands"] == f"{(audited - unverified) / audited:.1%}"
    runs = sql(store, "SELECT status FROM runs ORDER BY run_id DESC LIMIT 1")
    shown_runs = open_page("data_quality").dataframe[-1].value
    assert shown_runs["status"].iloc[0] == "critical findings"  # the job said "ok"
    assert shown_runs["job_status"].iloc[0] == "ok"
    last_run = [e.value for e in (*at.success, *at.warning, *at.error) if "Last run" in e.value]
    assert runs and last_run
    # The job said "ok" (nothing reached --fail-on never); beside criticals the screen does not.
    assert runs[0][0] == "ok" and severities["critical"] > 0
    assert "**ok**" not in last_run[0] and "**critical findings**" in last_run[0]
    assert any("Needs a decision" in e.value for e in at.error)


def test_overview_shows_every_critical_code(store: Path) -> None:
    """Issue 12: a top 10 by count dropped 4 of the 6 critical codes present."""
    at = open_page("overview")
    critical = [c for (c,) in sql(store, "SELECT DISTINCT code FROM findings"
                                         " WHERE severity = 'critical' ORDER BY code")]
    by_count = [c for (c,) in sql(store, "SELECT code FROM findings GROUP BY code"
                                         " ORDER BY count(*) DESC, code LIMIT 10")]
    assert set(critical) - set(by_count), "the store must have a critical code outside a top 10"
    codes = next(d.value for d in at.dataframe if "code" in d.value.columns)
    assert set(critical) <= set(codes["code"])
    assert codes["code"].tolist()[: len(critical)] == sorted(
        critical, key=lambda c: (-codes.set_index("code").loc[c, "findings"], c)
    )


def test_findings_queue_filters_and_counts(store: Path) -> None:
    at = open_page("findings")
    (total,) = sql(store, "SELECT count(*) FROM findings")[0]
    assert f"**{total:,} findings** match" in _texts(at)
    assert len(at.dataframe[0].value) == min(total, 2000)

    table, _count = sql(
        store, "SELECT table_id, count(*) FROM findings GROUP BY ALL ORDER BY 2 DESC LIMIT 1"
    )[0]
    at.multiselect(key="f_tables").set_value([table]).run()
    at.multiselect(key="f_severities").set_value(["critical", "major"]).run()
    (expected,) = sql(
        store,
        "SELECT count(*) FROM findings WHERE table_id = ? AND severity IN ('critical', 'major')",
        [table],
    )[0]
    assert f"**{expected:,} findings** match" in _texts(at)
    queue = at.dataframe[0].value
    assert set(queue["table_id"]) <= {table}
    assert set(queue["severity"]) <= {"critical", "major"}
    # Sorted by severity, descending, by default.
    ranks = [{"critical": 2, "major": 1, "minor": 0}[s] for s in queue["severity"]]
    assert ranks == sorted(ranks, reverse=True)
    # Every row links to its hand.
    assert all(link.endswith(h) for link, h in zip(queue["link"], queue["hand_id"], strict=True))


def test_review_from_the_queue(store: Path, reviews_file: Path) -> None:
    at = open_page("findings")
    key = at.selectbox(key="f_case").value
    at.text_area(key=f"queue-{key}-note").input("checked the video")
    at.radio(key=f"queue-{key}-decision").set_value("dismissed")
    at.selectbox(key=f"queue-{key}-reason").set_value(DISMISS_REASONS[0])
    save_button(at).click().run()
    assert not at.exception
    me = os_user()
    assert any(f"open → dismissed by {me}" in s.value for s in at.success)
    latest = reviews.latest(reviews_file)
    assert latest[["finding_key", "review_status", "reviewer", "reason"]].values.tolist() == [
        [key, "dismissed", me, DISMISS_REASONS[0]]
    ]
    at.multiselect(key="f_statuses").set_value(["dismissed"]).run()
    queue = at.dataframe[0].value
    assert queue["finding_key"].tolist() == [key]
    assert queue[["review_status", "reviewer", "decisions"]].values.tolist() == [
        ["dismissed", me, 1]
    ]


def test_hand_replayer(store: Path, reviews_file: Path) -> None:
    hand_id, pot, n_actions = sql(
        store,
        "SELECT h.hand_id, h.pot, h.n_actions FROM hands h JOIN findings f USING (hand_id)"
        " WHERE f.action_index IS NOT NULL AND f.source LIKE '%R-%'"
        " AND hand_id NOT IN (SELECT hand_id FROM findings WHERE code = 'P402')"
        " ORDER BY f.severity, h.hand_id LIMIT 1",
    )[0]
    codes = sql(
        store, "SELECT code, source FROM findings WHERE hand_id = ? ORDER BY code", [hand_id]
    )
    at = open_page("hand", {"hand_id": hand_id})
    slider = at.slider(key="h_step")
    assert slider.max == n_actions and slider.value == n_actions
    text = _texts(at)
    assert f"**Pot {md(money(pot))}**" in text
    for code, source in codes:
        assert code in text
        # Each cited rule is quoted from the rulebook seed (or named, if not found there).
        for passage in passages_for(source):
            assert f"**{md(passage.citation)}**" in text
            if passage.text:
                assert md(passage.text) in text
    # The offending line is highlighted in the replay and in the raw log.
    html = "\n".join(h.proto.body for h in at.get("html"))
    assert "op-bad" in html and "op-raw-bad" in html
    assert "★JKR" in html or "op-card" in html
    # Step back to the first line, then step and play with the controls.
    slider.set_value(1).run()
    assert not at.exception and at.slider(key="h_step").value == 1
    next(b for b in at.button if b.label == "step ▶").click().run()
    assert at.slider(key="h_step").value == 2
    next(b for b in at.button if b.label == "« start").click().run()
    assert at.slider(key="h_step").value == 0
    # The deals before and after it at its table are one click away.
    previous, following = sql(
        store,
        "SELECT lag(hand_id) OVER w, lead(hand_id) OVER w FROM hands"
        " WINDOW w AS (PARTITION BY table_id ORDER BY time, hand_id) QUALIFY hand_id = ?",
        [hand_id],
    )[0]
    links = {p.proto.label: p.proto.page for p in at.get("page_link")}
    assert set(links) <= {"← previous deal", "next deal →"}
    assert ("← previous deal" in links) == (previous is not None)
    assert ("next deal →" in links) == (following is not None)
    # A decision saved on the hand page shows in its history.
    first = at.radio[0]
    first.set_value("confirmed")
    save_button(at).click().run()
    assert reviews.latest(reviews_file)["reviewer"].tolist() == [os_user()]
    assert any(
        df.value.columns.tolist()[:3] == ["code", "action_index", "seat"] for df in at.dataframe
    )


def test_hand_unknown_id_is_reported() -> None:
    at = open_page("hand", {"hand_id": "NO-SUCH-HAND"})
    assert any("No hand NO\\-SUCH\\-HAND in the store" in w.value for w in at.warning)


def test_tables_page_sequence(store: Path) -> None:
    at = open_page("tables")
    table = at.selectbox(key="t_table").value
    day = at.selectbox(key="t_day").value
    (deals, passed) = sql(
        store,
        "SELECT count(*), count(carried_out) FROM hands WHERE table_id = ?"
        " AND CAST(timezone('UTC', time) + to_minutes(utc_offset_minutes) AS DATE) = ?",
        [table, day],
    )[0]
    shown = metrics(at)
    assert shown["Deals"] == f"{deals:,}" and shown["Passed out"] == f"{passed:,}"
    (sequence,) = sql(
        store,
        "SELECT count(*) FROM findings f JOIN hands h USING (hand_id) WHERE f.code LIKE 'J%'"
        " AND h.table_id = ?"
        " AND CAST(timezone('UTC', h.time) + to_minutes(h.utc_offset_minutes) AS DATE) = ?",
        [table, day],
    )[0]
    assert shown["Sequence findings"] == str(sequence)
    assert len(at.dataframe[-1].value) == deals


def test_dealers_rates(store: Path) -> None:
    at = open_page("dealers")
    rates = next(d.value for d in at.dataframe if "unit_id" in d.value.columns)
    rates = rates.set_index("unit_id")
    expected = sql(
        store,
        "SELECT coalesce(h.dealer_id, '(none)'), count(DISTINCT h.hand_id),"
        " count(DISTINCT f.hand_id), count(f.code) FILTER (WHERE f.severity = 'critical')"
        " FROM hands h LEFT JOIN findings f USING (hand_id) GROUP BY ALL",
    )
    assert len(rates) == len(expected)
    for dealer, hands, with_findings, critical in expected:
        assert rates.loc[dealer, "hands"] == hands
        assert rates.loc[dealer, "flagged"] == with_findings
        assert rates.loc[dealer, "critical"] == critical
        row = rates.loc[dealer]
        assert row["per_1000"] == pytest.approx(with_findings * 1000 / hands, abs=0.01)
        assert row["ci_low"] <= row["per_1000"] <= row["ci_high"]
        assert row["findings"].startswith("/findings?dealer=")
    assert any("exact binomial test" in c.value for c in at.caption)


def test_tables_against_the_room(store: Path) -> None:
    at = open_page("tables")
    rates = next(d.value for d in at.dataframe if "unit_id" in d.value.columns)
    (tables,) = sql(store, "SELECT count(DISTINCT table_id) FROM hands")[0]
    assert len(rates) == tables and rates["tested"].all()  # 250 hands a table: all tested
    assert rates["q_value"].between(0, 1).all()


def test_players_stats(store: Path) -> None:
    at = open_page("players")
    player = at.selectbox(key="p_player").value
    (hands,) = sql(store, "SELECT count(*) FROM stg_seats WHERE player_id = ?", [player])[0]
    (opens, splits, pots) = sql(
        store,
        "SELECT count(*) FILTER (WHERE verb = 'opens'),"
        " count(*) FILTER (WHERE verb = 'splits openers'),"
        " count(DISTINCT hand_id) FILTER (WHERE verb = 'collects')"
        " FROM actions WHERE player_id = ?",
        [player],
    )[0]
    (named,) = sql(
        store,
        "SELECT count(*) FROM findings f JOIN stg_seats s USING (hand_id)"
        " WHERE s.seat = f.seat AND s.player_id = ?",
        [player],
    )[0]
    shown = metrics(at)
    assert shown["Hands"] == f"{hands:,}" and hands > 0
    assert shown["Opens"] == f"{opens:,}"
    assert shown["Split openers"] == f"{splits:,}"
    assert shown["Pots won"] == f"{pots:,}"
    assert shown["Findings on seat"] == f"{named:,}"


def test_data_quality(store: Path) -> None:
    at = open_page("data_quality")
    (quarantined,) = sql(store, "SELECT count(*) FROM quarantine")[0]
    (runs,) = sql(store, "SELECT count(*) FROM runs")[0]
    assert metrics(at)["Quarantined items"] == f"{quarantined:,}"
    assert quarantined > 0 and runs > 0
    assert len(at.dataframe[-1].value) == runs
    if quarantined:
        kind = sql(store, "SELECT kind FROM quarantine ORDER BY kind LIMIT 1")[0][0]
        at.selectbox(key="q_kind").set_value(kind).run()
        (of_kind,) = sql(store, "SELECT count(*) FROM quarantine WHERE kind = ?", [kind])[0]
        assert len(at.dataframe[1].value) == min(of_kind, 1000)


def test_csv_export_is_the_whole_filtered_set(store: Path, tmp_path: Path) -> None:
    at = open_page("findings")
    buttons = at.get("download_button")
    assert [b.proto.label for b in buttons] == ["Export CSV"]
    con = duckdb.connect(str(store), read_only=True)
    try:
        queue = queries.QUERIES["findings_queue"](
            queries.Context(con, tmp_path / "none.sqlite"), severities=("major",), limit=None
        )
    finally:
        con.close()
    rows = list(csv.DictReader(io.StringIO(queue_csv(queue).decode())))
    (majors,) = sql(store, "SELECT count(*) FROM findings WHERE severity = 'major'")[0]
    assert len(rows) == majors > 0
    assert {r["severity"] for r in rows} == {"major"}
    assert {"hand_id", "code", "message", "review_status", "reviewer"} <= set(rows[0])
    assert "total" not in rows[0]


def test_hand_search_by_player_pot_and_code(store: Path, tmp_path: Path) -> None:
    (player,) = sql(store, "SELECT player_id FROM stg_seats GROUP BY ALL ORDER BY count(*) DESC"
                           " LIMIT 1")[0]  # fmt: skip
    (code,) = sql(store, "SELECT code FROM findings GROUP BY ALL ORDER BY count(*) DESC LIMIT 1")[0]
    expected = {h for (h,) in sql(
        store,
        "SELECT DISTINCT h.hand_id FROM hands h JOIN stg_seats s USING (hand_id)"
        " JOIN findings f USING (hand_id) WHERE s.player_id = ? AND h.pot >= 1000 AND f.code = ?",
        [player, code],
    )}  # fmt: skip
    con = duckdb.connect(str(store), read_only=True)
    try:
        found = queries.QUERIES["hand_find"](
            queries.Context(con, tmp_path / "none.sqlite"), player=player, code=code.lower(),
            min_pot=1000,
        )  # fmt: skip
    finally:
        con.close()
    assert set(found["hand_id"]) == expected
    assert found.empty or int(found["total"].iloc[0]) == len(expected)
    assert all(code in c.split() for c in found["codes"])
