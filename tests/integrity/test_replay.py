"""The compiled pass over the spec's example hand: cards, stub, draws, decisions."""

from __future__ import annotations

from pathlib import Path

import duckdb
import numpy as np
import pytest

from audit.evaluator import evaluate
from audit.integrity.frames import Names, read_batches
from audit.integrity.replay import AFTER, BEFORE, replay
from audit.profiles import load_profile
from ingest.load import ingest_paths
from schemas.records import CARD_CODES, Verb

#: The complete hand of the format spec (``../shared/spec/hand-log-format.md``).
EXAMPLE = (Path(__file__).resolve().parents[2] / "ingest" / "samples"
           / "spec_example.log").read_text(encoding="utf-8")

VERB = {v: i for i, v in enumerate(Verb)}


def _store(tmp_path: Path, text: str) -> duckdb.DuckDBPyConnection:
    log = tmp_path / "hand.log"
    log.write_text(text, encoding="utf-8")
    store = tmp_path / "s.duckdb"
    ingest_paths([log], store)
    return duckdb.connect(str(store), read_only=True)


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory):
    con = _store(tmp_path_factory.mktemp("example"), EXAMPLE)
    batch = next(read_batches(con, load_profile("robert"), Names()))
    con.close()
    return batch, replay(batch)


def test_seats_cards_and_places(example) -> None:
    batch, r = example
    assert not r.irregular[0]
    assert list(batch.s_seat) == [1, 3, 5, 6]
    # the button is seat 5: seat 6 is dealt first, then 1, 3 and the button
    assert list(r.seats.position) == [1, 2, 3, 0]
    assert [CARD_CODES[c] for c in r.seats.dealt[1]] == ["Kd", "Kc", "7s", "7h", "2d"]
    assert r.seats.final[1] == evaluate(["Kd", "Kc", "7s", "7h", "Kh"])
    assert r.seats.final[2] == evaluate(["Ac", "Jk", "Ad", "8h", "7c"])
    assert list(r.seats.collected) == [0, 14000, 0, 0]


def test_each_draw_gets_a_pit(example) -> None:
    _, r = example
    d = r.draws
    assert list(d.seat_row) == [0, 1, 2]
    assert list(d.k) == [3, 1, 3]
    # seat 3 draws one card from 53 - 20 dealt - the burn - seat 1's three = 29: enumerated
    assert list(d.exact) == [False, True, False]
    assert np.all((d.u > 0) & (d.u < 1))
    seen = ("Jh Js 4c 8d 2s Kd Kc 7s 7h 2d Ac Jk 9s 5d 3c Qs Td 6h 4s 3h"  # dealt
            " 2h Qh 9h 9c")  # the burn and seat 1's draw
    stub = set(CARD_CODES[:53]) - set(seen.split(" "))
    finals = [evaluate(["Kd", "Kc", "7s", "7h", c]) for c in stub]
    actual = evaluate(["Kd", "Kc", "7s", "7h", "Kh"])
    worse = sum(f < actual for f in finals)
    equal = sum(f == actual for f in finals)
    assert len(stub) == 29
    assert worse / 29 <= d.u[1] <= (worse + equal) / 29


def test_decisions(example) -> None:
    _, r = example
    d = r.decisions
    verbs = [Verb(list(Verb)[v]).value for v in d.verb]
    assert verbs == ["checks", "opens", "raises", "calls", "folds", "calls",
                     "checks", "bets", "raises", "folds", "calls"]
    # seat 6 (local 3) passes before the open without openers, seats 1, 3, 5 behind
    assert d.preopen[0] and d.openers[0] == 0 and d.behind[0] == 0b0111
    # seat 1 (local 0) opens with jacks, seats 3 and 5 behind
    assert d.preopen[1] and d.openers[1] == 1 and d.behind[1] == 0b0110
    assert not d.preopen[2] and d.facing[2] and d.aggressor[2] == 0
    after = np.nonzero(d.section == AFTER)[0]
    assert list(d.section[:6]) == [BEFORE] * 6
    # after the draw: seat 3's full house beats both; seat 5's aces lose to it
    bet = after[1]
    assert d.actor[bet] == 1 and d.best[bet] == 1 and d.live[bet] == 0b0101
    raise_ = after[2]
    assert d.actor[raise_] == 2 and d.best[raise_] == 0 and d.beaten[raise_] == 0b0010
    assert d.facing[raise_] and d.aggressor[raise_] == 1 and d.chips[raise_] == 4000


def test_an_unknown_card_makes_the_hand_irregular(tmp_path: Path) -> None:
    con = _store(tmp_path, EXAMPLE.replace("Seat 6: [Qs Td 6h 4s 3h]", "Seat 6: [?? ?? ?? ?? ??]"))
    batch = next(read_batches(con, load_profile("robert"), Names()))
    r = replay(batch)
    assert r.irregular[0]
    assert not r.seats.dealt_ok.any()
    assert len(r.draws.u) == 0
    assert len(r.decisions.hand) == 11  # the betting is still read
