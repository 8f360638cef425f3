"""The replay's derived facts: turns, stakes, pots, hands before and after the draw."""

from __future__ import annotations

from pathlib import Path

from audit.replay import Replay, Street
from ingest.parser import parse_hand
from schemas.records import HandRecord, Verb
from tests.audit.harness import FIXTURES, read_fixture

EXAMPLE = Path(__file__).resolve().parents[2] / "ingest" / "samples" / "spec_example.log"


def _hand(file: str, hand_id: str) -> HandRecord:
    for h in read_fixture(FIXTURES / file):
        record = parse_hand(h.text, first_line=h.first_line)
        if record.hand_id == hand_id:
            return record
    raise KeyError(hand_id)


def test_spec_example_replays_as_the_spec_explains() -> None:
    replay = Replay(parse_hand(EXAMPLE.read_text()))
    assert replay.order == (6, 1, 3, 5)
    assert replay.pot_total == 14400 and replay.opener == 1 and replay.opens_index == 9
    assert [s.in_turn for s in replay.steps if s.street is not None] == [True] * 11
    after = [s for s in replay.steps if s.street is Street.AFTER_DRAW]
    assert after[0].turn == 1 and after[0].unit == 2000  # the opener acts first
    raise_step = replay.steps[10]
    assert (raise_step.current_bet, raise_step.level, raise_step.level_after) == (1000, 1, 2)
    assert replay.seats[1].folded and replay.seats[5].mucked and not replay.seats[5].live
    assert replay.live_seats() == [3] and replay.in_hand_seats() == [3, 5]
    assert (replay.unit(Street.BEFORE_DRAW), replay.unit(Street.AFTER_DRAW)) == (1000, 2000)
    assert replay.final_hand(3) == ("Kd", "Kc", "Kh", "7s", "7h")  # as shown
    assert replay.seats[3].hand_after_draw() == ("Kd", "Kc", "7s", "7h", "Kh")
    assert replay.seats[1].openers_shown == [("Jh", "Js")]
    assert replay.draw_index == 14 and replay.burns == [(14, ("2h",))]


def test_side_pots_follow_all_in_contributions() -> None:
    replay = Replay(_hand("clean.log", "CLEAN-side-pots"))
    assert [(p.number, p.amount, p.eligible, p.cap) for p in replay.pots] == [
        (0, 4900, (1, 2, 3), 1600), (1, 5000, (2, 3), None)]
    assert replay.steps[-1].action.verb is Verb.COLLECTS
    assert replay.collections[-1][1:] == (3, 5000, 1)
    first_after = next(s for s in replay.steps if s.street is Street.AFTER_DRAW)
    assert first_after.turn == 2  # the opener is all-in: the next seat that can bet


def test_out_of_turn_action_keeps_the_turn_and_is_passed_over() -> None:
    replay = Replay(_hand("B103.log", "B103-check-before-first"))
    turns = [(s.action.seat, s.turn, s.in_turn) for s in replay.steps if s.street is not None]
    assert turns[:3] == [(2, 1, False), (1, 1, True), (3, 3, True)]


def test_five_card_draw_final_hand_and_rebuilt_deal() -> None:
    record = _hand("clean.log", "CLEAN-five-card-draw")
    replay = Replay(record)
    assert replay.seats[2].fifth == ["9h"] and replay.final_hand(2) == (
        "Ah", "Kh", "Jh", "Th", "9h")
    # An unrecorded deal line is rebuilt from the shown hand less the draw, plus discards.
    text = "\n".join(
        line.split("[")[0] + "[?? ?? ?? ?? ??]" if line.startswith(("Seat 1: [", "Seat 3: ["))
        else line
        for line in _text("clean.log", "CLEAN-five-card-draw").splitlines()
    )
    hidden = Replay(parse_hand(text))
    assert hidden.seats[1].dealt == ["??"] * 5
    assert sorted(hidden.dealt_hand(1) or ()) == sorted(["Qh", "Qd", "5c", "6s", "8d"])
    assert hidden.dealt_hand(3) is None  # folded unseen: nothing to rebuild from


def test_short_all_in_raise_does_not_reopen() -> None:
    replay = Replay(_hand("B102.log", "B102-not-reopened"))
    raise_after = next(s for s in replay.steps if s.action.line == 106)
    assert not raise_after.may_raise and raise_after.current_bet == 1400
    assert raise_after.level == 1  # the all-in raise of 4 did not count


def _text(file: str, hand_id: str) -> str:
    return next(h.text for h in read_fixture(FIXTURES / file) if f"Hand: {hand_id}\n" in h.text)


def test_step_snapshots_of_totals_and_stakes() -> None:
    replay = Replay(_hand("clean.log", "CLEAN-side-pots"))
    last = replay.steps[-1]
    assert last.totals == {n: s.total for n, s in replay.seats.items()} == {
        1: 1600, 2: 4100, 3: 4100, 4: 100}
    call = next(s for s in replay.steps if s.action.line and s.action.verb is Verb.CALLS
                and s.action.all_in)
    assert call.stakes == {1: 1000, 2: 2000, 3: 2000, 4: 0} and call.stake == 1000
    first_after = next(s for s in replay.steps if s.street is Street.AFTER_DRAW)
    assert first_after.stakes == {1: 0, 2: 0, 3: 0, 4: 0}


def test_a_retrieved_hand_stays_mucked() -> None:
    text = EXAMPLE.read_text().replace("Seat 5: mucks\n", "Seat 5: mucks\nSeat 5: retrieves hand\n")
    replay = Replay(parse_hand(text))
    assert replay.seats[5].retrieved and replay.seats[5].mucked
    assert replay.live_seats() == [3]
