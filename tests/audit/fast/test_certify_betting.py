"""The betting certifier against the reference engine: sound, and certifying the bulk.

Soundness is the one invariant: a hand ``certify_betting`` certifies must get no
finding, unverifiable or error of the betting and money codes from the reference
engine. It is checked on generated rooms of every profile (with planted
violations), on thousands of seeded mutants of certified hands (each one small
change a dealer or a table system could make), and on hand-written near misses.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from functools import cache

import numpy as np
import pytest

from audit.engine import AuditResult, audit_hand
from audit.fast.certify_betting import certify_betting
from audit.fast.layout import H_STATUS, from_records, profile_knobs
from audit.profiles import Profile
from audit.registry import hand_rules
from ingest.errors import HandParseError
from ingest.parser import parse_hand
from ingest.writer import write_hand
from schemas.records import TURN_VERBS, Action, Actor, HandRecord, Section, Verb
from tests.audit.fast.corpus import corpus, hand_results, profile

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


# ---- mutants ----------------------------------------------------------------------
Mutation = Callable[[random.Random, HandRecord], HandRecord | None]


def _with_actions(record: HandRecord, actions: list[Action]) -> HandRecord:
    return record.model_copy(update={"actions": tuple(actions)})


def _replace(record: HandRecord, i: int, **update: object) -> HandRecord:
    actions = list(record.actions)
    actions[i] = actions[i].model_copy(update=update)
    return _with_actions(record, actions)


def _unit(record: HandRecord, a: Action) -> int:
    return record.limit_small if a.section is Section.BEFORE_DRAW else record.limit_big


def _amount(rng: random.Random, r: HandRecord) -> HandRecord | None:
    moved = [i for i, a in enumerate(r.actions) if a.amount is not None]
    if not moved:
        return None
    i = rng.choice(moved)
    a = r.actions[i]
    step = rng.choice((1, _unit(r, a), r.limit_small))
    field = "to_amount" if a.to_amount is not None and rng.random() < 0.3 else "amount"
    return _replace(r, i, **{field: max(0, getattr(a, field) + rng.choice((-step, step)))})


def _seat(rng: random.Random, r: HandRecord) -> HandRecord | None:
    players = [i for i, a in enumerate(r.actions) if a.actor is Actor.SEAT]
    i = rng.choice(players)
    others = [s.seat for s in r.seats if s.seat != r.actions[i].seat]
    return _replace(r, i, seat=rng.choice(others))


def _lines(rng: random.Random, r: HandRecord) -> HandRecord | None:
    """Two consecutive lines swapped, one dropped, or one written twice."""
    actions = list(r.actions)
    i = rng.randrange(len(actions) - 1)
    how = rng.randrange(3)
    if how == 0:
        actions[i], actions[i + 1] = actions[i + 1], actions[i]
    elif how == 1:
        del actions[i]
    else:
        actions.insert(i, actions[i])
    return _with_actions(r, actions)


def _verb(rng: random.Random, r: HandRecord) -> HandRecord | None:
    turns = [i for i, a in enumerate(r.actions) if a.verb in TURN_VERBS]
    if not turns:
        return None
    i = rng.choice(turns)
    a = r.actions[i]
    verb = rng.choice(sorted(TURN_VERBS - {a.verb}))
    unit = _unit(r, a)
    amount = a.amount if a.amount is not None else unit * rng.choice((1, 2))
    update: dict[str, object] = {"verb": verb, "amount": None, "to_amount": None}
    if verb in (Verb.OPENS, Verb.BETS, Verb.CALLS):
        update["amount"] = amount
    elif verb is Verb.RAISES:
        update["amount"] = unit
        update["to_amount"] = amount + unit
    return _replace(r, i, **update)


def _header(rng: random.Random, r: HandRecord) -> HandRecord | None:
    field = rng.choice(("button", "ante", "pot", "rake", "carried", "limit_big"))
    if field == "button":
        value = rng.choice([n for n in range(1, 11) if n != r.button])
    else:
        value = max(0, getattr(r, field) + rng.choice((-1, 1)) * rng.choice((1, r.ante or 1)))
    return r.model_copy(update={field: value})


def _all_in(rng: random.Random, r: HandRecord) -> HandRecord | None:
    wagers = [i for i, a in enumerate(r.actions)
              if a.verb in (Verb.ANTES, Verb.OPENS, Verb.BETS, Verb.CALLS, Verb.RAISES)]
    return _replace(r, rng.choice(wagers), all_in=True) if wagers else None


def _balanced(rng: random.Random, r: HandRecord) -> HandRecord | None:
    """An amount changed, with ``Pot`` and the payout following it: P402 still balances,
    so only the betting itself can tell."""
    mutant = _amount(rng, r)
    if mutant is None:
        return None
    moved = sum(a.amount or 0 for a in mutant.actions if a.verb is not Verb.COLLECTS) - sum(
        a.amount or 0 for a in r.actions if a.verb is not Verb.COLLECTS)
    moved += sum(a.to_amount or 0 for a in mutant.actions) - sum(
        a.to_amount or 0 for a in r.actions)
    actions = list(mutant.actions)
    paid = [i for i, a in enumerate(actions) if a.verb is Verb.COLLECTS]
    update: dict[str, object] = {"pot": max(0, r.pot + moved)}
    if paid:
        a = actions[paid[0]]
        actions[paid[0]] = a.model_copy(update={"amount": max(0, (a.amount or 0) + moved)})
    elif r.carried_out is not None:
        update["carried_out"] = max(0, r.carried_out + moved)
    return _with_actions(mutant, actions).model_copy(update=update)


def _twice(rng: random.Random, r: HandRecord) -> HandRecord | None:
    first = rng.choice(MUTATIONS[:-1])(rng, r)
    return None if first is None else rng.choice(MUTATIONS[:-1])(rng, first)


MUTATIONS: tuple[Mutation, ...] = (_amount, _balanced, _balanced, _seat, _lines, _lines,
                                   _lines, _verb, _verb, _header, _all_in, _twice)


def _mutants(rng: random.Random, records: Sequence[HandRecord], per_hand: int
             ) -> list[HandRecord]:
    out = []
    for record in records:
        for _ in range(per_hand):
            mutant = rng.choice(MUTATIONS)(rng, record)
            if mutant is None:
                continue
            try:  # the text round trip keeps only what a log can say
                out.append(parse_hand(write_hand(mutant)))
            except (HandParseError, ValueError):  # the reader rejects it: no log says that
                continue
    return out


@pytest.mark.parametrize("name", PROFILES)
def test_mutants_of_certified_hands_are_certified_only_when_the_reference_agrees(
        name: str) -> None:
    records, results, certified = room(name)
    base = [r for r, res, ok in zip(records, results, certified, strict=True)
            if ok and not my_codes(res)][:500]
    rng = random.Random(f"mutants-{name}")
    mutants = _mutants(rng, base, per_hand=3)
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
