"""The house file's [review] and [report] tables (schemas/office.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.profiles import load_profile
from schemas.office import Office, OfficeError, load_office, os_user


def test_settings_and_extends(tmp_path: Path) -> None:
    base = tmp_path / "base.toml"
    base.write_text('extends = "robert"\n[review]\nreviewers = ["ana", "bo"]\n'
                    'due_days = { critical = 2 }\n[report]\ncurrency = "€"\n')  # fmt: skip
    house = tmp_path / "house.toml"
    house.write_text('extends = "base.toml"\ncap_raises = 3\n[review]\nreviewers = ["cy"]\n')
    office = load_office(house)
    assert office.reviewers == ("cy",) and office.currency == "€"
    assert dict(office.due_days) == {"critical": 2, "major": 3, "minor": 7}
    assert office.people() == ("cy",)
    # The rule knobs of the same file still load: the profile ignores these two tables.
    assert load_profile(house).cap_raises == 3


def test_without_a_list_the_login_user_decides() -> None:
    assert Office().people() == (os_user(),)
    assert load_office(None) == Office() and load_office("robert") == Office()


@pytest.mark.parametrize("text", [
    "[review]\nreviewers = [\"\"]\n",
    "[review]\ndue_days = { urgent = 1 }\n",
    "[review]\nescalate_to = \"boss\"\n",
    "[report]\ncurrency = 1\n",
    "review = 3\n",
])  # fmt: skip
def test_bad_tables_name_the_key(tmp_path: Path, text: str) -> None:
    path = tmp_path / "h.toml"
    path.write_text(text)
    with pytest.raises(OfficeError):
        load_office(path)
