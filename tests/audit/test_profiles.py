"""Built-in profiles follow rules.md's table; house files extend them or fail clearly."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.profiles import (
    BUILTIN,
    DiscardsSetAside,
    FalseOpenerStyle,
    PassedOutButton,
    ProfileError,
    load_profile,
)
from schemas.findings import Severity
from schemas.records import Game, Openers


def test_builtins_match_the_catalogue_table() -> None:
    robert, house23, foster, laws = (BUILTIN[n] for n in ("robert", "house23", "foster", "laws"))
    assert robert.cap_raises == house23.cap_raises == 4
    assert foster.cap_raises is None and laws.cap_raises is None
    assert robert.ante_limit == house23.ante_limit == 3 and foster.ante_limit is None
    assert not robert.passed_openers_may_declare and house23.passed_openers_may_declare
    assert foster.abandon_penalty == 500 and robert.abandon_penalty is None
    assert foster.passed_out_button is PassedOutButton.STAYS and foster.fattening == 100
    assert foster.false_opener is FalseOpenerStyle.FORFEIT_PLAY_ON
    assert foster.discards_set_aside is DiscardsSetAside.ALWAYS
    assert laws.unproven_opener_penalty_antes == 2 and laws.unproven_opener_rejackpot
    assert all(p.after_draw_multiple == 2 for p in BUILTIN.values())


@pytest.mark.parametrize(
    ("name", "jackpots", "want"),
    [
        ("robert", [1, 2, 5], ["JJ", "JJ", "JJ"]),
        ("laws", [1, 2, 3, 4, 9], ["JJ", "QQ", "KK", "KK", "KK"]),
    ],
)
def test_openers_progression(name: str, jackpots: list[int], want: list[str]) -> None:
    profile = BUILTIN[name]
    got = [profile.openers_for(j, Game.JACKS_OR_BETTER).value for j in jackpots]
    assert got == want
    assert profile.openers_for(1, Game.DRAW_HIGH) is Openers.ANY


def _house(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "house.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_house_file_extends_and_overrides(tmp_path: Path) -> None:
    path = _house(tmp_path, """
extends = "foster"
name = "bay"
openers_progression = ["JJ", "QQ", "KK", "AA", "KK", "QQ"]
progression_end = "cycle"
cap_raises = 3
ante_limit = false
ignore = ["B103"]
severity = { B101 = "critical" }
""")
    p = load_profile(path)
    assert p.name == "bay" and p.cap_raises == 3 and p.ante_limit is None
    assert p.fattening == 100  # inherited from foster
    assert [p.openers_for(j, Game.JACKS_OR_BETTER).value for j in range(1, 9)] == [
        "JJ", "QQ", "KK", "AA", "KK", "QQ", "JJ", "QQ"]
    assert not p.enabled("B103") and p.enabled("B101")
    assert p.severity_of("B101", Severity.MAJOR) is Severity.CRITICAL


def test_select_prefix_and_cli_selection() -> None:
    p = BUILTIN["robert"].with_selection(select=["B1"], ignore=["B108"])
    assert p.enabled("B101") and not p.enabled("B108") and not p.enabled("O201")


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('extends = "robert"\ncap_raise = 3\n', "cap_raise"),
        ('extends = "robert"\ncap_raises = "four"\n', "cap_raises"),
        ('extends = "robert"\nbobtail = 1\n', "bobtail"),
        ('extends = "nobody"\n', "extends"),
        ('extends = "robert"\nignore = ["Z999"]\n', "ignore"),
        ('extends = "robert"\nseverity = { B101 = "awful" }\n', "severity.B101"),
        ('extends = "robert"\nfalse_opener = "shrug"\n', "false_opener"),
        ('extends = "robert"\nopeners_progression = ["JJ", "TT"]\n', "openers_progression"),
        ("extends = \n", "TOML"),
    ],
)
def test_bad_house_file_names_the_key(tmp_path: Path, text: str, key: str) -> None:
    with pytest.raises(ProfileError, match=key):
        load_profile(_house(tmp_path, text))


def test_unknown_profile_name() -> None:
    with pytest.raises(ProfileError, match="unknown profile"):
        load_profile("casino-royale")
