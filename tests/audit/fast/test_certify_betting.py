"""The betting certifier against the reference engine: sound, and certifying the bulk.

Soundness is the one invariant: a hand ``certify_betting`` certifies must get no
finding, unverifiable or error of the betting and money codes from the reference
engine. It is checked on generated rooms of every profile (with planted
violations), on thousands of seeded mutants of certified hands (each one small
change a dealer or a table system could make), and on hand-written near misses.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import cache

import numpy as np
import pytest

from audit.engine import AuditResult, audit_hand
from audit.fast.certify_betting import certify_betting
from audit.fast.layout import H_STATUS, from_records, profile_knobs
from audit.profiles import Profile
from audit.registry import hand_rules
from ingest.parser import parse_hand
from ingest.writer import write_hand
from schemas.records import HandRecord
from tests.audit.fast.corpus import corpus, hand_results, profile
from tests.audit.mutants import record_mutants

MY_CODES = frozenset({"B101", "B102", "B103", "B104", "B105", "B106", "B107", "B108",
                      "O203", "O204", "O205", "O206", "O211", "P402", "P403"})
PROFILES = ("robert", "house23", "foster", "laws")
HANDS = 2000


def my_codes(result: AuditResult) -> set[str]:
    """The codes of this certifier that the reference reported, in any form."""
    found = {f.code for f in result.findings}
    found |= {u.code for u in result.unverifiable} | {u.code for u in result.errors}
    return found & MY_CODES


def certify(records: Sequence[HandRecord], prof: Profile) -> np.ndarray:
    arrays = from_records(records)
    knobs, _ = profile_knobs(prof)
    return certify_betting(arrays.hands, arrays.seats, arrays.events, arrays.cards, knobs)


@cache
def room(name: str) -> tuple[tuple[HandRecord, ...], list[AuditResult], np.ndarray]:
    records = corpus(name, HANDS, 1, violations=0.05, unrecorded=0.05).records
    prof = profile(name)
    return records, hand_results(records, prof), certify(records, prof)


# ---- soundness and coverage on generated rooms ----------------------------------------
@pytest.mark.parametrize("name", PROFILES)
def test_certified_hands_have_none_of_my_codes(name: str) -> None:
    records, results, certified = room(name)
    wrong = [(r.hand_id, sorted(my_codes(res)))
             for r, res, ok in zip(records, results, certified, strict=True)
             if ok and my_codes(res)]
    assert not wrong, wrong[:5]
    clean = [bool(ok) for res, ok in zip(results, certified, strict=True) if not my_codes(res)]
    share = sum(clean) / len(clean)
    print(f"{name}: {int(certified.sum())}/{len(records)} certified; "
          f"{share:.1%} of the {len(clean)} hands clean under B/O/P codes")
    assert share >= 0.9
    # The planted violations are there, and none of them is certified.
    assert len(clean) < len(records)


def test_a_hand_the_scanner_could_not_read_is_never_certified() -> None:
    records, _, certified = room("robert")
    arrays = from_records(records[:50])
    arrays.hands[:, H_STATUS] = 3
    knobs, _ = profile_knobs(profile("robert"))
    assert certified[:50].sum() > 0
    assert not certify_betting(arrays.hands, arrays.seats, arrays.events, arrays.cards,
                               knobs).any()


@pytest.mark.parametrize("name", PROFILES)
def test_mutants_of_certified_hands_are_certified_only_when_the_reference_agrees(
        name: str) -> None:
    records, results, certified = room(name)
    base = [r for r, res, ok in zip(records, results, certified, strict=True)
            if ok and not my_codes(res)][:500]
    rng = random.Random(f"mutants-{name}")
    mutants = record_mutants(rng, base, per_hand=3)
    prof = profile(name)
    verdicts = certify(mutants, prof)
    rules = hand_rules(prof)
    wrong = []
    still = 0
    for mutant, ok in zip(mutants, verdicts, strict=True):
        if ok:
            still += 1
            codes = my_codes(audit_hand(mutant, prof, rules))
            if codes:
                wrong.append((write_hand(mutant), sorted(codes)))
    print(f"{name}: {len(mutants)} mutants, {still} still certified")
    assert len(mutants) >= 1000
    assert not wrong, wrong[0]
    assert still < len(mutants) * 0.6  # mutations do break hands


# ---- near misses from the rulebook ---------------------------------------------------
_HEADER = ("Hand: T-{n}\nTime: 2026-11-28T21:04:12-08:00\nTable: T07\nGame: Jacks or Better\n"
           "Limit: 10/20\nAnte: 1\nButton: {button}\nOpeners: JJ")
_CARDS = ("[Jh Js 4c 8d 2s]", "[Kd Kc 7s 7h 2d]", "[Ac Qd 9s 5d 3c]", "[Qs Td 6h 4s 3h]")


def _hand(n: int, seats: int, before: str, after: str, pot: int = 0,
          winner: int = 1, button: int | None = None) -> HandRecord:
    button = seats if button is None else button
    lines = [_HEADER.format(n=n, button=button).rstrip()]
    lines += [f"Seat {s}: P-{s} (5000)" for s in range(1, seats + 1)]
    lines += ["*** ANTES ***"] + [f"Seat {s}: antes 1" for s in range(1, seats + 1)]
    lines += ["*** DEAL ***"] + [f"Seat {s}: {_CARDS[s - 1]}" for s in range(1, seats + 1)]
    staying = [s for s in range(1, seats + 1) if f"Seat {s}: folds" not in before]
    lines += ["*** BEFORE DRAW ***", *before.split("; "), "*** DRAW ***"]
    lines += [f"Seat {s}: stands pat" for s in staying]
    lines += ["*** AFTER DRAW ***", *after.split("; "), "*** SHOWDOWN ***"]
    lines += [f"Seat {s}: shows {_CARDS[s - 1]}" if s == winner else f"Seat {s}: mucks"
              for s in staying if f"Seat {s}: folds" not in after]
    lines += ["*** RESULT ***", f"Pot: {pot}", f"Seat {winner}: collects {pot}"]
    return parse_hand("\n".join(lines))


def _verdict(record: HandRecord, name: str = "robert") -> tuple[bool, set[str]]:
    prof = profile(name)
    ok = bool(certify([record], prof)[0])
    return ok, my_codes(audit_hand(record, prof))


CHECKS = ("Seat 1: checks", "Seat 2: checks", "Seat 3: checks")
HEADS_UP_PAST_CAP = ("Seat 1: opens 10; Seat 2: raises 10 to 20; Seat 1: raises 10 to 30; "
                     "Seat 2: raises 10 to 40; Seat 1: raises 10 to 50; "
                     "Seat 2: raises 10 to 60; Seat 1: calls 10")


def test_heads_up_raising_past_the_cap_is_legal_and_certified() -> None:
    ok, codes = _verdict(_hand(1, 2, HEADS_UP_PAST_CAP, "; ".join(CHECKS[:2]), pot=122))
    assert codes == set()
    assert ok


def test_the_same_raises_with_a_third_seat_in_are_not_certified() -> None:
    before = ("Seat 1: opens 10; Seat 2: raises 10 to 20; Seat 3: calls 20; "
              "Seat 1: raises 10 to 30; Seat 2: raises 10 to 40; Seat 3: calls 20; "
              "Seat 1: raises 10 to 50; Seat 2: raises 10 to 60; Seat 3: calls 20; "
              "Seat 1: calls 10")
    hand = _hand(2, 3, before, "; ".join(CHECKS), pot=183, button=3)
    ok, codes = _verdict(hand)
    assert "B101" in codes
    assert not ok
    assert _verdict(hand, "foster") == (True, set())  # no cap there


def test_a_round_capped_multihanded_stays_capped_after_a_fold() -> None:
    before = ("Seat 1: opens 20; Seat 2: raises 10 to 30; Seat 3: raises 10 to 40; "
              "Seat 1: raises 10 to 50; Seat 2: folds; Seat 3: raises 10 to 60; "
              "Seat 1: calls 10")
    ok, codes = _verdict(_hand(3, 3, before, "; ".join(CHECKS), pot=153, button=3))
    assert "B101" in codes
    assert not ok


def test_check_raise_after_the_draw_is_legal_and_certified() -> None:
    after = "Seat 1: checks; Seat 2: bets 20; Seat 1: raises 20 to 40; Seat 2: calls 20"
    ok, codes = _verdict(_hand(4, 2, "Seat 1: opens 10; Seat 2: calls 10", after, pot=102))
    assert codes == set()
    assert ok


@pytest.mark.parametrize("before,pot", [
    ("Seat 2: opens 10; Seat 1: calls 10", 22),  # out of turn
    ("Seat 1: opens 10; Seat 2: calls 20", 32),  # wrong call
    ("Seat 1: opens 30; Seat 2: calls 30", 62),  # wrong open
    ("Seat 1: bets 10; Seat 2: calls 10", 22),  # bet before the open
    ("Seat 1: opens 10; Seat 2: raises 10 to 30; Seat 1: calls 20", 52),  # X to Y
    ("Seat 1: opens 10", 12),  # the draw before seat 2 acted
    ("Seat 1: opens 10; Seat 2: calls 10", 23),  # chips not conserved
])
def test_broken_betting_is_not_certified(before: str, pot: int) -> None:
    after = "Seat 1: checks; Seat 2: checks"
    ok, codes = _verdict(_hand(5, 2, before, after, pot=pot))
    assert codes
    assert not ok


def _raw(n: int, seats: int, body: str, result: str) -> HandRecord:
    lines = [_HEADER.format(n=n, button=seats).rstrip()]
    lines += [f"Seat {s}: P-{s} (5000)" for s in range(1, seats + 1)]
    lines += ["*** ANTES ***"] + [f"Seat {s}: antes 1" for s in range(1, seats + 1)]
    lines += ["*** DEAL ***"] + [f"Seat {s}: {_CARDS[s - 1]}" for s in range(1, seats + 1)]
    lines += [*body.split("; "), "*** RESULT ***", *result.split("; ")]
    return parse_hand("\n".join(lines))


_ABANDON = ("*** BEFORE DRAW ***; Seat 1: folds; {penalty}Seat 2: opens 10; Seat 3: calls 10; "
            "*** DRAW ***; Seat 2: stands pat; Seat 3: stands pat; *** AFTER DRAW ***; "
            "Seat 2: checks; Seat 3: checks; *** SHOWDOWN ***; "
            "Seat 2: shows [Kd Kc 7s 7h 2d]; Seat 3: mucks")


@pytest.mark.parametrize("penalty,pot,name,certified", [
    ("Floor: Seat 1 penalty 5; ", 28, "foster", True),
    ("", 23, "foster", False),  # O211: no penalty
    ("Floor: Seat 1 penalty 4; ", 27, "foster", False),  # O211: not the house's amount
    ("", 23, "robert", True),  # no penalty where the house has none
    ("Floor: Seat 1 penalty 5; ", 28, "robert", False),  # a penalty nobody charges
])
def test_a_fold_before_the_open_needs_the_house_penalty(
        penalty: str, pot: int, name: str, certified: bool) -> None:
    hand = _raw(6, 3, _ABANDON.format(penalty=penalty), f"Pot: {pot}; Seat 2: collects {pot}")
    ok, codes = _verdict(hand, name)
    assert ok is certified
    assert not (ok and codes)
    if name == "foster" and not penalty:
        assert "O211" in codes


_PASSED = "*** BEFORE DRAW ***; Seat 1: checks; Seat 2: checks"


@pytest.mark.parametrize("result,certified", [
    ("Pot: 2; Passed out: carried 2", True),
    ("Pot: 2; Rake: 1; Passed out: carried 1", True),  # P402 counts the rake out
    ("Pot: 2; Passed out: carried 1", False),  # a chip lost
    ("Pot: 2; Seat 1: collects 2", False),  # nobody opened, yet paid out
    ("Pot: 3; Passed out: carried 3", False),  # a chip invented
])
def test_a_passed_out_deal_carries_what_p402_balances(result: str, certified: bool) -> None:
    ok, codes = _verdict(_raw(7, 2, _PASSED, result))
    assert ok is certified
    assert not (ok and codes)


def test_a_folded_seat_collecting_is_not_certified() -> None:
    body = "*** BEFORE DRAW ***; Seat 1: opens 10; Seat 2: folds"
    assert _verdict(_raw(8, 2, body, "Pot: 12; Seat 1: collects 12")) == (True, set())
    ok, codes = _verdict(_raw(8, 2, body, "Pot: 12; Seat 2: collects 12"))
    assert "B104" in codes
    assert not ok


def test_a_seat_that_runs_out_of_chips_is_not_certified() -> None:
    hand = _hand(9, 2, "Seat 1: opens 10; Seat 2: calls 10", "; ".join(CHECKS[:2]), pot=22)
    assert _verdict(hand) == (True, set())
    short = hand.seats[1].model_copy(update={"stack": 11})  # the replay makes it all-in
    assert not _verdict(hand.model_copy(update={"seats": (hand.seats[0], short)}))[0]
