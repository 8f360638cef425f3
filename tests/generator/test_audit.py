"""Generated logs against the real pipeline (ingest + audit engine), per code and per profile.

``openers.generator.scoring.score`` ingests the logs into an in-memory store and audits
them with ``audit.store.audit_store``; the labels must match exactly: every planted
code found in its hand, no finding anywhere else, broken hands quarantined with the
labelled kind, no good hand lost.
"""

from __future__ import annotations

import pytest

from openers.generator.config import ALL_CODES
from openers.generator.plants import registry
from openers.generator.scoring import Score, score
from tests.generator.conftest import Generate, read_labels

PROFILES = ("robert", "house23", "foster", "laws")
#: Codes that only some houses judge: plant them under a profile that does.
_HOUSE_FOR = {"O211": "foster", "J508": "laws"}
#: A planted fault that implies a second code by the catalogue's own definitions.
_IMPLIED = {"D302": {"D305"}, "O208": {"O201"}}


def _show(result: Score) -> str:
    return (f"{result.table()}\nmissed {result.missed[:5]}\nunexpected {result.unexpected[:5]}"
            f"\nbroken {result.broken_wrong[:5]}\nlost {result.lost[:5]}")


def test_every_catalogue_code_can_be_planted() -> None:
    assert sorted(registry()) == sorted(ALL_CODES)


@pytest.mark.parametrize("profile", PROFILES)
def test_clean_hands_give_no_finding(make_room: Generate, profile: str) -> None:
    out = make_room(hands=800, tables=3, seed=21, profile=profile, unrecorded_share=0.2)
    result = score(out, profile)
    assert result.ok, _show(result)
    assert not result.planted


@pytest.mark.parametrize("code", ALL_CODES)
def test_planting_a_code_produces_it(make_room: Generate, code: str) -> None:
    profile = _HOUSE_FOR.get(code, "robert")
    out = make_room(hands=200, tables=2, seed=31, profile=profile, violations=0.25,
                    codes=(code,), joker_share=0.5)
    result = score(out, profile)
    assert result.planted[code] >= 2, _show(result)
    assert result.ok, _show(result)
    assert set(result.planted) <= {code, *_IMPLIED.get(code, ())}


def test_broken_hands_are_quarantined_with_their_kind(make_room: Generate) -> None:
    out = make_room(hands=1200, tables=3, seed=41, broken_share=0.15)
    kinds = {label.get("broken") for label in read_labels(out)} - {None}
    assert kinds >= {"bad_card", "unknown_verb", "missing_header", "conflict", "encoding",
                     "missing_result"}
    result = score(out, "robert")
    assert result.broken > 50
    assert result.ok, _show(result)


@pytest.mark.slow
@pytest.mark.parametrize("profile", PROFILES)
def test_done_when_twenty_thousand_hands(make_room: Generate, profile: str) -> None:
    """The issue's acceptance test: 20,000 hands, 5% violations over all codes."""
    out = make_room(hands=20_000, tables=8, seed=2026, profile=profile, violations=0.05,
                    unrecorded_share=0.05, broken_share=0.005)
    result = score(out, profile)
    assert sum(result.planted.values()) > 700
    assert result.broken > 50
    assert result.ok, _show(result)
