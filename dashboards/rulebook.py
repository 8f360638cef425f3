"""Find the rulebook passage behind a finding's citation.

A finding's ``source`` is a citation list as the rule catalogue writes it
(``R-JB 1, H-23.1, L-30, Foster``). The rulebooks themselves live outside the
repository in ``../shared/seeds/`` (relative to the project root) and are only
read here, never copied. Each citation form maps to one seed and a way to cut
the passage out of it:

- ``R-DH n`` / ``R-DH intro`` / ``R-JB n`` / ``R-JK n`` (or ``n–m``): seed 004,
  the numbered item ``n`` of the section *RULES OF DRAW HIGH*, *JACKS-OR-BETTER*
  or *THE JOKER* (``intro`` is the text before the first section);
- ``H-23.n``: seed 000, the paragraph that starts ``23.n``;
- ``L-n``: seed 002, the law that starts ``n.``;
- ``Foster ("phrase")``: seed 001, the paragraph containing the phrase (or its
  part before an ellipsis). A bare ``Foster`` names the whole chapter, so no
  passage is picked for it and the citation is shown alone.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

#: Seeds directory: ``$OPENERS_SEEDS`` or ``../shared/seeds`` next to the project root.
_PROJECT_ROOT = Path(__file__).resolve().parent.parent

_SEED_FILES = {
    "robert": "004_9b5b0a7b0cff3abe.txt",
    "house23": "000_d9e314c73fc40cc7.txt",
    "foster": "001_e8284a767ab87cfa.txt",
    "laws": "002_dac742ea3f33cbd5.txt",
}
_ROBERT_SECTIONS = {
    "R-DH": "RULES OF DRAW HIGH",
    "R-JB": "JACKS-OR-BETTER",
    "R-JK": "THE JOKER",
}


@dataclass(frozen=True)
class Passage:
    """One cited rule: the citation as written and the seed text, if found."""

    citation: str
    text: str | None
    seed_file: str | None


def seeds_dir() -> Path:
    """Where the rulebook seeds are read from."""
    env = os.environ.get("OPENERS_SEEDS")
    return Path(env) if env else _PROJECT_ROOT.parent / "shared" / "seeds"


@lru_cache(maxsize=8)
def _seed_text(directory: str, name: str) -> str | None:
    path = Path(directory) / name
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None


def split_citations(source: str) -> list[str]:
    """Split a citation list on commas that are not inside parentheses or quotes."""
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for char in source:
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(depth - 1, 0)
        if char == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    parts.append("".join(current).strip())
    # "—" marks a rule with no rulebook source (accounting, deck integrity).
    return [p for p in parts if p and not p.startswith("—")]


def _numbered_items(block: str, pattern: str) -> dict[str, str]:
    """Cut ``block`` into items keyed by number, each starting at a line matching pattern."""
    starts = list(re.finditer(pattern, block, flags=re.MULTILINE))
    items: dict[str, str] = {}
    for i, match in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(block)
        items.setdefault(match.group(1), _clean(block[match.start() : end]))
    return items


def _clean(text: str) -> str:
    """Join hard-wrapped lines and drop page markers such as ``[51]``."""
    text = re.sub(r"^\s*\[\d+\]\s*$", "", text, flags=re.MULTILINE)
    text = re.sub(r"\s*\n\s*", " ", text.strip())
    return text


def _robert(prefix: str, ref: str, text: str) -> str | None:
    heads = [m for m in re.finditer(r"^[A-Z][A-Z -]{5,}$", text, flags=re.MULTILINE)]
    if ref == "intro":
        end = heads[0].start() if heads else len(text)
        return _clean(text[:end])
    wanted = _ROBERT_SECTIONS[prefix]
    for i, head in enumerate(heads):
        if head.group(0).strip() == wanted:
            end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
            items = _numbered_items(text[head.end() : end], r"^(\d+)\.\s")
            return _range(items, ref)
    return None


def _range(items: dict[str, str], ref: str) -> str | None:
    """Item ``ref`` or the items of a range ``n–m`` joined."""
    bounds = re.split(r"[–-]", ref)
    if len(bounds) == 2 and all(b.isdigit() for b in bounds):
        numbers = range(int(bounds[0]), int(bounds[1]) + 1)
        found = [items[str(n)] for n in numbers if str(n) in items]
        return "\n\n".join(found) or None
    return items.get(ref)


def _foster(phrase: str, text: str) -> str | None:
    probe = re.split(r"…|\.\.\.", phrase)[0].strip().lower()
    if not probe:
        return None
    for paragraph in re.split(r"\n\s*\n", text):
        flat = _clean(paragraph)
        if probe in flat.lower():
            return flat
    return None


#: Citations of numbered paragraphs: (citation pattern, seed, paragraph-number pattern).
_NUMBERED_CITATIONS = (
    (r"H-23\.(\d+)", "house23", r"^23\.(\d+)\s"),  # the house rulebook, section 23
    (r"L-(\d+)", "laws", r"^(\d+)\.\s"),  # the nineteenth-century laws
)


def find_passage(citation: str, directory: Path | None = None) -> Passage:
    """The seed passage for one citation (``text`` is None when it cannot be found)."""
    root = str(directory or seeds_dir())
    robert = re.fullmatch(r"(R-DH|R-JB|R-JK)\s+(intro|\d+(?:\s*[–-]\s*\d+)?)", citation)
    if robert:
        text = _seed_text(root, _SEED_FILES["robert"])
        ref = robert.group(2).replace(" ", "")
        found = _robert(robert.group(1), ref, text) if text else None
        return Passage(citation, found, _SEED_FILES["robert"] if found else None)
    for pattern, seed, item in _NUMBERED_CITATIONS:
        numbered = re.fullmatch(pattern, citation)
        if numbered:
            text = _seed_text(root, _SEED_FILES[seed])
            found = (_numbered_items(text, item) if text else {}).get(numbered.group(1))
            return Passage(citation, found, _SEED_FILES[seed] if found else None)
    foster = re.fullmatch(r'Foster\s*\(\s*["“](.+?)["”]\s*\)', citation)
    if foster:
        text = _seed_text(root, _SEED_FILES["foster"])
        found = _foster(foster.group(1), text) if text else None
        return Passage(citation, found, _SEED_FILES["foster"] if found else None)
    return Passage(citation, None, None)


def passages_for(source: str, directory: Path | None = None) -> list[Passage]:
    """Every cited passage of a finding's ``source`` list, in citation order."""
    return [find_passage(c, directory) for c in split_citations(source)]
