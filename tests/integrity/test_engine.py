"""End to end on generated rooms: the planted cheats are found, nobody else is."""

from __future__ import annotations

import re
from typing import Any

import duckdb
import pytest

from audit.evaluator import evaluate
from audit.integrity.engine import IntegrityResult, Options, run_integrity
from audit.integrity.laws import hand_law
from audit.integrity.model import Alert, Level
from audit.integrity.registry import codes
from audit.integrity.test import Settings
from openers.generator.cheats import CheatConfig, DealerMode
from tests.integrity.conftest import Room, build_room

LOCAL_TIME = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d")


def names_cheat(alert: Alert, cheat: dict[str, Any]) -> bool:
    """Whether an alert is about a planted cheat's people (or the crooked dealer's table)."""
    s = alert.subject
    if cheat["kind"] == "crooked-dealer":
        return s.partner_id is None and (
            s.dealer_id == cheat["dealer_id"] or s.table_id == cheat["table_id"]
            or (s.dealer_id is None and s.player_id == cheat["player_id"]))
    return {s.player_id, s.partner_id} == set(cheat["players"])


def test_every_planted_cheat_is_found(cheat_room: Room, cheat_result: IntegrityResult) -> None:
    assert len(cheat_room.cheats) == 2
    for cheat in cheat_room.cheats:
        assert any(names_cheat(a, cheat) for a in cheat_result.alerts), cheat["kind"]


def test_few_innocents_are_flagged(cheat_room: Room, cheat_result: IntegrityResult) -> None:
    """The false discovery rate is an average: with many true alerts, an innocent cell with a
    small p-value may pass too (here one F109 cell at q = 0.045); the cheats rank first."""
    innocent = [a for a in cheat_result.alerts
                if not any(names_cheat(a, c) for c in cheat_room.cheats)]
    assert len(innocent) <= 0.1 * len(cheat_result.alerts)
    assert all(a.q_value > 0.01 for a in innocent)
    ranks = [a.rank for a in cheat_result.alerts if a not in innocent]
    assert ranks == list(range(1, len(ranks) + 1))


def test_the_crooked_dealer_is_found_with_his_confederate(
        cheat_room: Room, cheat_result: IntegrityResult) -> None:
    dealer = next(c for c in cheat_room.cheats if c["kind"] == "crooked-dealer")
    pair_cells = [a for a in cheat_result.alerts if a.level is Level.DEALER_PLAYER]
    assert any(a.subject.dealer_id == dealer["dealer_id"]
               and a.subject.player_id == dealer["player_id"] and a.code == "F102"
               for a in pair_cells)


def test_the_pair_is_found_by_several_tests(cheat_room: Room,
                                            cheat_result: IntegrityResult) -> None:
    pair = next(c for c in cheat_room.cheats if c["kind"] == "colluding-pair")
    found = {a.code for a in cheat_result.alerts if names_cheat(a, pair)}
    assert {"C201", "C205", "C206"} <= found, found


def test_alerts_carry_their_evidence(cheat_room: Room, cheat_result: IntegrityResult) -> None:
    con = cheat_room.connect()
    try:
        stored = {h for (h,) in con.execute("SELECT hand_id FROM stg_hands").fetchall()}
    finally:
        con.close()
    for a in cheat_result.alerts:
        assert a.hands, a.alert_key
        assert set(a.hands) <= stored
        assert len(a.hand_notes) == len(a.hands) and all(a.hand_notes)
        assert a.hands_total >= len(a.hands)
        assert a.q_value <= 0.05 and a.p_value <= a.q_value
        assert a.ci_low <= a.effect <= a.ci_high or a.code in ("F101", "F106", "F107")
        assert a.alert_key.startswith(f"integrity:{a.code}:")
        # the room's clock with its offset, the project's one format for a time
        assert a.first_time and a.last_time and LOCAL_TIME.fullmatch(a.first_time), a.first_time
        assert a.first_time[-6:] == "-08:00" and a.first_time <= a.last_time
    assert [a.rank for a in cheat_result.alerts] == list(range(1, len(cheat_result.alerts) + 1))


def test_the_planted_hands_are_behind_the_dealer_alert(cheat_room: Room,
                                                       cheat_result: IntegrityResult) -> None:
    dealer = next(c for c in cheat_room.cheats if c["kind"] == "crooked-dealer")
    alert = next(a for a in cheat_result.alerts if a.code == "F102"
                 and a.subject.player_id == dealer["player_id"]
                 and a.subject.dealer_id == dealer["dealer_id"])
    arranged = set(dealer["hands"])
    # most hands in the top tail are arranged ones
    assert len(arranged & set(alert.hands)) > len(alert.hands) / 2


def test_a_clean_room_has_no_alert(clean_room: Room) -> None:
    con = clean_room.connect()
    try:
        result = run_integrity(con, Options())
    finally:
        con.close()
    assert result.hands == 4000 and result.alerts == []
    assert set(result.cells_by_code()) <= set(codes())
    assert len(result.tested) > 500


def test_the_window_and_the_test_selection(cheat_room: Room) -> None:
    con = cheat_room.connect()
    try:
        first_day = con.execute("SELECT min(CAST(timezone('UTC', time) + to_minutes("
                                "utc_offset_minutes) AS DATE)) FROM stg_hands").fetchall()[0][0]
        one_day = run_integrity(con, Options(until=first_day, tests=("C201",)))
    finally:
        con.close()
    assert 0 < one_day.hands < 4000
    assert set(one_day.cells_by_code()) <= {"C201"}


def test_a_smaller_rate_gives_fewer_alerts(cheat_room: Room,
                                           cheat_result: IntegrityResult) -> None:
    con: duckdb.DuckDBPyConnection = cheat_room.connect()
    try:
        strict = run_integrity(con, Options(settings=Settings(fdr=1e-6, dependent=True)))
    finally:
        con.close()
    assert len(strict.alerts) < len(cheat_result.alerts)
    assert all(a.q_value <= 1e-6 for a in strict.alerts)


def test_arranged_deals_give_the_confederate_strong_hands(cheat_room: Room) -> None:
    """Best of 50 random hands: in the top 5% of the law with chance 1 - 0.95**50 = 92%."""
    dealer = next(c for c in cheat_room.cheats if c["kind"] == "crooked-dealer")
    con = cheat_room.connect()
    try:
        rows = con.execute(
            "SELECT a.cards, h.joker FROM stg_actions a JOIN stg_seats s USING (hand_id) "
            "JOIN stg_hands h USING (hand_id) WHERE a.verb = 'dealt' AND a.seat = s.seat "
            "AND s.player_id = ? AND list_contains(?, a.hand_id)",
            [dealer["player_id"], dealer["hands"]]).fetchall()
    finally:
        con.close()
    assert len(rows) == len(dealer["hands"])
    top = 0
    for cards, joker in rows:
        law = hand_law(joker)
        top += law.tail_probability(evaluate(cards)) <= 0.05
    assert top / len(rows) > 0.8


def test_a_dealer_who_arranges_draws_is_found_by_the_draw_tests(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    cheats = CheatConfig(crooked_dealers=1, crooked_share=1.0, crooked_strength=50,
                         crooked_mode=DealerMode.DRAW)
    room = build_room(tmp_path_factory.mktemp("draws"), cheats, seed=8)
    (dealer,) = room.cheats
    assert dealer["acted"]["arranged draw"] > 30
    con = room.connect()
    try:
        result = run_integrity(con, Options(tests=("F104", "F105")))
    finally:
        con.close()
    # he dealt his friend fewer than the 100 draws a dealer-and-player cell needs: the
    # friend's own cell and the dealer's find them
    assert {(a.code, a.level) for a in result.alerts} >= {
        ("F104", Level.PLAYER), ("F104", Level.DEALER), ("F105", Level.PLAYER)}
    assert all(names_cheat(a, dealer) for a in result.alerts)
