"""The false discovery rate is a house setting (``integrity_fdr``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from audit.profiles import ProfileError, load_profile
from openers.cli import app
from tests.integrity.conftest import Room


def test_the_house_file_sets_the_rate(tmp_path: Path) -> None:
    house = tmp_path / "house.toml"
    house.write_text('extends = "robert"\nintegrity_fdr = 0.01\n')
    assert load_profile(house).integrity_fdr == 0.01
    assert load_profile("robert").integrity_fdr == 0.05


@pytest.mark.parametrize("value", ["0", "1", "1.5", "true", '"5%"'])
def test_a_rate_outside_zero_one_is_refused(tmp_path: Path, value: str) -> None:
    house = tmp_path / "house.toml"
    house.write_text(f"integrity_fdr = {value}\n")
    with pytest.raises(ProfileError, match="integrity_fdr"):
        load_profile(house)


def test_the_cli_uses_the_house_rate(cheat_room: Room, tmp_path: Path) -> None:
    house = tmp_path / "strict.toml"
    house.write_text("integrity_fdr = 1e-30\n")
    result = CliRunner().invoke(app, ["integrity", "--db", str(cheat_room.store), "--profile",
                                      str(house), "--tests", "C201"])
    assert result.exit_code == 0, result.output
    assert "false discovery rate of 1e-30" in result.output
