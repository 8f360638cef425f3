"""Every rule quotes the seed sentences it enforces, verbatim, and tests their exceptions.

A rule's ``Source:`` section holds ``CITATION: "quote"`` entries (R-DH n, R-JB n,
R-JK n, H-23.n, L-n, Foster). Each quote must be found in the seed file its citation
names (``../shared/seeds/``, whitespace aside, curly quotes read as straight ones);
each citation of the rule's ``source`` attribute must be quoted; a rule with no seed
source (``—`` in rules.md) says "No seed sentence" and quotes nothing.

Every exception word in a quote ("unless", "may", "except", "whether", ...) has a near
miss in the rule's fixture: a hand marked ``# expect: none`` and ``# exception: WORD``.
Where the word is not an exception of what the rule judges, the Source section says so
with ``Not an exception: "WORD" (why)``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from audit.registry import RULES
from tests.audit.harness import FIXTURES, read_fixture

SEEDS = Path(__file__).resolve().parents[3] / "shared" / "seeds"
#: Citation prefix -> seed file (rules.md's table of seed files).
SEED_OF = {"R-DH": "004_9b5b0a7b0cff3abe.txt", "R-JB": "004_9b5b0a7b0cff3abe.txt",
           "R-JK": "004_9b5b0a7b0cff3abe.txt", "H-23": "000_d9e314c73fc40cc7.txt",
           "L": "002_dac742ea3f33cbd5.txt", "Foster": "001_e8284a767ab87cfa.txt"}
CITATION = r"R-(?:DH|JB|JK) (?:intro|\d+)|H-23\.\d+|L-\d+|Foster"
QUOTE = re.compile(rf"({CITATION}):\s*\"([^\"]+)\"")
#: Words that open an exception or a permission in a rulebook sentence.
EXCEPTION_WORDS = ("unless", "except", "whether", "provided", "even if", "other than",
                   "up to", "may")
NOT_AN_EXCEPTION = re.compile(r"Not an exception: \"([^\"]+)\"")
_CURLY = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": "'", "\u201d": "'",
                        '"': "'"})


def normalise(text: str) -> str:
    """Whitespace removed, curly quotes and apostrophes read as straight ones."""
    return re.sub(r"\s+", "", text.translate(_CURLY))


def seed_text(citation: str) -> str:
    prefix = "Foster" if citation == "Foster" else citation.split(" ")[0].split("-")[0]
    if citation.startswith(("R-", "H-")):
        prefix = citation.split(" ")[0].rsplit(".", 1)[0]
    return normalise((SEEDS / SEED_OF[prefix]).read_text(encoding="utf-8"))


def cited(source: str) -> Iterator[str]:
    """The citations of a ``source`` attribute, ranges expanded (``R-JK 2-4``)."""
    for part in source.split(","):
        part = part.strip()
        if part.startswith("—"):
            continue
        m = re.fullmatch(r"(R-\w\w) (\d+)-(\d+)", part)
        if m:
            yield from (f"{m.group(1)} {n}" for n in range(int(m.group(2)), int(m.group(3)) + 1))
        else:
            yield part


def quotes(code: str) -> list[tuple[str, str]]:
    return QUOTE.findall(RULES[code].doc().get("Source", ""))


def exception_words(text: str) -> set[str]:
    low = " ".join(text.lower().split())
    found = set()
    for word in EXCEPTION_WORDS:
        for m in re.finditer(rf"\b{word}\b", low):
            if word == "may" and low[m.end():].startswith(" not"):
                continue  # "may not" forbids: no exception to test
            found.add(word)
    return found


CODES = sorted(RULES)
NO_SEED = sorted(c for c in CODES if RULES[c].source.startswith("—"))


def test_the_seeds_are_there() -> None:
    assert all((SEEDS / name).is_file() for name in SEED_OF.values())


@pytest.mark.parametrize("code", CODES)
def test_every_quote_is_verbatim_in_the_seed_it_cites(code: str) -> None:
    found = quotes(code)
    if code in NO_SEED:
        assert not found
        assert RULES[code].doc()["Source"].startswith("No seed sentence"), code
        return
    assert found, f"{code} quotes no seed sentence"
    missing = [(c, q) for c, q in found if normalise(q) not in seed_text(c)]
    assert not missing, f"{code}: not verbatim in the cited seed: {missing}"
    quoted = {c for c, _ in found}
    assert set(cited(RULES[code].source)) <= quoted, f"{code}: a citation is not quoted"


@pytest.mark.parametrize("code", sorted(set(CODES) - set(NO_SEED)))
def test_every_exception_in_a_quote_has_a_near_miss(code: str) -> None:
    source = RULES[code].doc()["Source"]
    words = set().union(*(exception_words(q) for _, q in quotes(code)))
    dismissed = set(NOT_AN_EXCEPTION.findall(source))
    hands = read_fixture(FIXTURES / f"{code}.log")
    covered = {w for h in hands if h.none for w in h.exceptions}
    tagged_violations = [h.label() for h in hands if h.exceptions and not h.none]
    assert not tagged_violations, "an exception's near miss must be a hand without findings"
    missing = words - covered - dismissed
    assert not missing, f"{code}: no near-miss fixture hand for {sorted(missing)}"
    assert not dismissed - words, f"{code}: dismisses a word it does not quote"


def test_a_quote_not_in_the_seeds_is_caught() -> None:
    """The check can fail: a paraphrase is not a quote."""
    assert normalise("A maximum of a bet and four raises") in seed_text("R-DH 1")
    assert normalise("At most a bet and four raises") not in seed_text("R-DH 1")
    assert exception_words("You may not change your seat") == set()
    assert exception_words("unless there is any additional money, whether single") == {
        "unless", "whether"}
