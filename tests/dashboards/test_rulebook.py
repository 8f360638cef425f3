"""Citations resolve to the passage of the rulebook seed they name."""

from __future__ import annotations

from pathlib import Path

import pytest

from dashboards.rulebook import find_passage, passages_for, seeds_dir, split_citations

pytestmark = pytest.mark.skipif(
    not seeds_dir().is_dir(), reason=f"rulebook seeds not found at {seeds_dir()}"
)


@pytest.mark.parametrize(
    ("citation", "start", "contains"),
    [
        ("R-DH 1", "1. A maximum of a bet and four raises", "multihanded pots"),
        ("R-DH 12", "12. If the pot has been declared open by an all-in", "full opening bet"),
        ("R-JB 9", "9. You may split openers", "under a chip"),
        ("R-JK 3", "3. If the joker is used to make a flush", "highest card"),
        ("H-23.5", "23.5 If the opening player has a fouled hand", "pot will be played"),
        ("L-33", "33. If a player open a Jack-pot", "double the ante"),
        ("L-36", "36. Before drawing any card", "highest stake"),
        ("R-DH intro", "There are two betting rounds", "twice the amount"),
        ('Foster ("Fattening Jacks")', "Fattening Jacks.", "fatten"),
        ('Foster ("dealing off the jack")', "If no one acknowledges", "dealing off the jack"),
    ],
)
def test_citation_finds_its_passage(citation: str, start: str, contains: str) -> None:
    passage = find_passage(citation)
    assert passage.text is not None
    assert passage.text.startswith(start)
    assert contains in passage.text
    # A passage is one item, not the rest of the section.
    assert len(passage.text) < 1200


def test_range_and_ellipsis_citations() -> None:
    joker = find_passage("R-JK 2–4").text or ""
    assert joker.startswith("2. The joker may be used only as an ace")
    assert "4. Five aces is the best possible hand" in joker
    foster = find_passage('Foster ("must show his hand … to demonstrate that he had openers")')
    assert foster.text is not None and "to demonstrate that he had openers" in foster.text


def test_lists_split_outside_parentheses_and_skip_no_source() -> None:
    source = 'R-JB 1, H-23.1, Foster ("Opening Jacks"), L-30'
    assert split_citations(source) == ["R-JB 1", "H-23.1", 'Foster ("Opening Jacks")', "L-30"]
    assert split_citations("— (accounting)") == []
    assert [p.citation for p in passages_for(source)] == split_citations(source)


def test_unknown_or_whole_book_citations_have_no_passage(tmp_path: Path) -> None:
    assert find_passage("Foster").text is None
    assert find_passage("R-JB 99").text is None
    # Seeds absent: the citation is kept, the text is None.
    missing = find_passage("R-DH 1", directory=tmp_path)
    assert (missing.citation, missing.text) == ("R-DH 1", None)
