"""Soundness under any house: the compiled path and the reference agree whatever the knobs.

The compiled replay reads the house's knobs (``audit.facts.layout.profile_knobs``); a
replay that ignored one (say, hard-coded the openers progression or the bobtail knob)
would be right under the four built-ins and wrong under a house file such as
``extends = "robert"``, ``cap_raises = 3``; so would a rule that hard-coded one. So
the houses here are drawn by hypothesis over every knob of
:class:`audit.profiles.Profile` (the knob list is read from the dataclass: a knob added
later is drawn too, or this file fails until it says how to draw it), and for each
drawn house:

* ``openers check`` and ``--reference`` report the same on small generated rooms
  (rooms of different houses, so each knob meets the play it governs);
* every rule fixture hand gets the same results from the compiled facts as from the
  reference's (a finding, an unverifiable rule or an error the reference reports is
  never lost).
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from enum import Enum
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

from audit.batch import CheckReport, check_paths
from audit.engine import AuditResult, audit_records
from audit.profiles import BUILTIN, Profile
from ingest.parser import parse_hand
from schemas.records import HandRecord, Openers
from tests.audit.corpus import corpus
from tests.audit.harness import all_fixture_hands

#: Fields of Profile that are not house knobs of the rules (the rule selection, the name,
#: and the integrity analysis' false discovery rate, which no rule reads).
NOT_KNOBS = frozenset({"name", "select", "ignore", "severity", "integrity_fdr"})
#: Ranges for the integer knobs: wide enough to cross every threshold the rules test
#: (a cap of 0 raises, an ante limit of one deal, a penalty of 0 or several antes).
INT_RANGES: dict[str, tuple[int, int]] = {
    "cap_raises": (0, 6), "after_draw_multiple": (1, 3), "abandon_penalty": (0, 800),
    "fattening": (0, 300), "ante_limit": (1, 5), "unproven_opener_penalty_antes": (0, 3),
}
ROOMS = ("robert", "foster", "laws")


def knob_fields() -> list[dataclasses.Field[Any]]:
    """Every house knob of Profile, read from the dataclass."""
    return [f for f in dataclasses.fields(Profile) if f.name not in NOT_KNOBS]


def knob_strategy(name: str) -> st.SearchStrategy[Any]:
    """How to draw one knob, from its type (an unknown type fails: say how to draw it)."""
    hints = typing.get_type_hints(Profile)
    hint = hints[name]
    args = typing.get_args(hint)
    optional = isinstance(hint, types.UnionType) and type(None) in args
    base = next((a for a in args if a is not type(None)), hint) if optional else hint
    drawn: st.SearchStrategy[Any]
    if base is bool:
        drawn = st.booleans()
    elif base is int:
        low, high = INT_RANGES[name]
        drawn = st.integers(low, high)
    elif isinstance(base, type) and issubclass(base, Enum):
        drawn = st.sampled_from(list(base))
    elif typing.get_origin(base) is tuple and typing.get_args(base)[0] is Openers:
        pairs = [o for o in Openers if o is not Openers.ANY]
        drawn = st.lists(st.sampled_from(pairs), min_size=1, max_size=6).map(tuple)
    else:
        raise AssertionError(f"knob {name!r} of type {hint!r}: add a strategy for it here")
    return st.none() | drawn if optional else drawn


def houses() -> st.SearchStrategy[Profile]:
    """A house: a built-in base with every knob drawn."""
    knobs = {f.name: knob_strategy(f.name) for f in knob_fields()}
    return st.builds(
        lambda base, values: dataclasses.replace(BUILTIN[base], name="drawn", **values),
        st.sampled_from(sorted(BUILTIN)), st.fixed_dictionaries(knobs))


def describe(house: Profile) -> str:
    return json.dumps({f.name: str(getattr(house, f.name)) for f in knob_fields()})


# ---- the compiled path against the reference on generated rooms ---------------------------
def summary(report: CheckReport) -> list[Any]:
    return [(r.hand_id, [f.model_dump(mode="json") for f in r.findings],
             sorted(u.model_dump_json() for u in r.unverifiable),
             sorted(e.model_dump_json() for e in r.errors)) for r in report.results]


def room_files(name: str) -> list[Path]:
    return list(corpus(name, hands=240, seed=21, violations=0.15, unrecorded=0.03,
                       tables=3).files)


def same_report(paths: list[Path], house: Profile) -> None:
    fast = check_paths(paths, house, workers=1)
    reference = check_paths(paths, house, workers=1, fast=False)
    assert fast.hands == reference.hands
    assert summary(fast) == summary(reference), describe(house)


@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(house=houses(), room=st.sampled_from(ROOMS))
def test_compiled_path_and_reference_agree_under_drawn_houses(house: Profile, room: str) -> None:
    same_report(room_files(room), house)


FOUR_RAISES = """Hand: CAP3-1
Time: 2026-11-28T20:00:00-08:00
Table: CAP3-T
Game: Jacks or Better
Limit: 10/20
Ante: 1
Button: 3
Openers: JJ
Seat 1: P-1 (1000)
Seat 2: P-2 (1000)
Seat 3: P-3 (1000)
*** ANTES ***
Seat 1: antes 1
Seat 2: antes 1
Seat 3: antes 1
*** DEAL ***
Seat 1: [Ac Ad 4h 7s Qd]
Seat 2: [Kc Kd 5h 8s 2c]
Seat 3: [Qc Qh 6d 9s 3c]
*** BEFORE DRAW ***
Seat 1: opens 10
Seat 2: raises 10 to 20
Seat 3: raises 10 to 30
Seat 1: raises 10 to 40
Seat 2: raises 10 to 50
Seat 3: calls 20
Seat 1: calls 10
*** DRAW ***
Seat 1: discards [4h 7s Qd] draws [As 3d 5c]
Seat 2: stands pat
Seat 3: discards [6d 9s 3c] draws [Jd Ts 2h]
*** AFTER DRAW ***
Seat 1: checks
Seat 2: checks
Seat 3: checks
*** SHOWDOWN ***
Seat 1: shows [Ac Ad As 3d 5c]
Seat 2: shows [Kc Kd 5h 8s 2c]
Seat 3: shows [Qc Qh Jd Ts 2h]
*** RESULT ***
Pot: 153
Seat 1: collects 153
"""


def test_the_readme_house_cap_of_three_raises(tmp_path: Path) -> None:
    """The issue's example: ``extends = "robert"``, ``cap_raises = 3``. A bet and four
    raises among three players is clean under robert and B101 under the house: a rule
    that hard-coded robert's cap would hide it."""
    (tmp_path / "four.log").write_text(FOUR_RAISES)
    paths = [tmp_path / "four.log", *room_files("foster")]
    robert = check_paths(paths[:1], BUILTIN["robert"], workers=1)
    assert robert.hands == 1 and not robert.results
    house = dataclasses.replace(BUILTIN["robert"], name="cap3", cap_raises=3)
    same_report(paths, house)
    flagged = check_paths(paths[:1], house, workers=1, fast=False)
    assert [f.code for r in flagged.results for f in r.findings] == ["B101"]


def test_every_knob_is_drawn() -> None:
    """The strategy covers every knob of Profile and draws more than one value of each."""
    names = [f.name for f in knob_fields()]
    assert len(names) >= 14
    for name in names:
        for base in BUILTIN.values():  # each knob can leave every built-in's value
            default: object = getattr(base, name)

            def differs(value: object, default: object = default) -> bool:
                return value != default

            find(knob_strategy(name), differs)


# ---- every fixture hand: the compiled facts report what the reference's do --------------
@cache
def fixture_records() -> tuple[HandRecord, ...]:
    return tuple(parse_hand(h.text, first_line=h.first_line) for h in all_fixture_hands())


def dump(result: AuditResult) -> tuple[Any, ...]:
    return (result.hand_id, [f.model_dump(mode="json") for f in result.findings],
            sorted(u.model_dump_json() for u in result.unverifiable),
            sorted(e.model_dump_json() for e in result.errors))


def differences(house: Profile) -> list[str]:
    """The fixture hands whose compiled results differ from the reference's."""
    records = fixture_records()
    compiled = audit_records(records, house)
    reference = audit_records(records, house, reference=True)
    return [f"{c.hand_id}: {sorted({f.code for f in c.findings})} != "
            f"{sorted({f.code for f in r.findings})}"
            for c, r in zip(compiled, reference, strict=True) if dump(c) != dump(r)]


@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_fixture_hands_compiled_equals_reference_under_the_builtins(name: str) -> None:
    assert differences(BUILTIN[name]) == []


@settings(max_examples=15, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(house=houses())
def test_fixture_hands_compiled_equals_reference_under_drawn_houses(house: Profile) -> None:
    assert differences(house) == [], describe(house)
