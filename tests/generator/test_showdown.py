"""Pots, side pots, rake and the odd chip, on hand-made deal states."""

from __future__ import annotations

from datetime import UTC, datetime

from audit.profiles import load_profile
from openers.generator.draft import Draft, Header
from openers.generator.players import STYLES, Player
from openers.generator.showdown import award, build_pots
from openers.generator.state import DealSetup, DealState, Forces, SeatState, TableSettings
from schemas.records import Game, Openers, Verb


def _state(hands: dict[int, str], totals: dict[int, int], button: int, *, all_in=(),
           rake: int = 0, carried: int = 0) -> DealState:
    table = TableSettings("T01", "Room", Game.JACKS_OR_BETTER, 1000, 2000, 100, False,
                          rake, 400, False, 9)
    players = {n: Player(f"P-{n}", STYLES[0], 10_000, 10_000) for n in hands}
    setup = DealSetup("H-1", datetime(2026, 11, 28, tzinfo=UTC), "D-1", button, 1,
                      Openers.JJ, carried, 100, players)
    header = Header("H-1", setup.time, "Room", "T01", "D-1", Game.JACKS_OR_BETTER, 1000, 2000,
                    100, False, button, 1, Openers.JJ, carried)
    seats = [SeatState(n, players[n], 5000, hand=hands[n].split(), total=totals[n],
                       all_in=n in all_in) for n in sorted(hands)]
    return DealState(table, load_profile("robert"), setup, Forces(), Draft(header), seats, [])


def _collects(st: DealState) -> list[tuple[int | None, int | None, int | None]]:
    return [(r.seat, r.amount, r.side_pot) for r in st.draft.find(Verb.COLLECTS)]


def test_odd_chip_to_first_winner_clockwise_from_button() -> None:
    # seats 2 and 7 tie with the same straight; 1001 cents split: the odd cent to seat 7,
    # the first winner clockwise from the button at seat 5.
    st = _state({2: "9c Tc Jd Qh Ks", 5: "2c 2d 7h 8s 4c", 7: "9d Th Jc Qs Kd"},
                {2: 400, 5: 201, 7: 400}, button=5)
    award(st)
    assert st.draft.pot == 1001
    assert _collects(st) == [(7, 501, None), (2, 500, None)]


def test_side_pot_for_the_covering_seats() -> None:
    # seat 1 is all-in for 300 with the best hand; seats 3 and 4 contest 2 x 500 more.
    st = _state({1: "Ac Ad Ah 2c 3d", 3: "Kc Kd 9h 8s 2h", 4: "Qc Qd 9c 8d 2s"},
                {1: 300, 3: 800, 4: 800}, button=4, all_in=(1,))
    pots = build_pots(st)
    assert [(p.number, p.amount, sorted(s.seat for s in p.eligible)) for p in pots] == [
        (0, 900, [1, 3, 4]), (1, 1000, [3, 4])]
    award(st)
    assert _collects(st) == [(1, 900, None), (3, 1000, 1)]


def test_rake_comes_out_of_the_main_pot_and_carried_chips_go_in() -> None:
    st = _state({1: "Ac Ad 5h 2c 3d", 2: "Kc Kd 9h 8s 2h"}, {1: 3000, 2: 3000}, button=2,
                rake=5, carried=500)
    st.opener = 1
    award(st)
    assert st.draft.pot == 6500
    assert st.draft.rake == 300  # 5% of 65.00 is 3.25: whole units, under the 4.00 cap
    assert _collects(st) == [(1, 6200, None)]
