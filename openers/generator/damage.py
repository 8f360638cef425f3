"""Broken input: damage a hand's text the ways real exports are damaged.

Each kind names the error kind the ingest reports for it (``ingest.errors.ErrorKind``
values), which is what ``labels.jsonl`` records as ``broken``.
"""

from __future__ import annotations

import random
import re

#: Damage kinds, by the ingest error kind they must produce.
KINDS: tuple[str, ...] = ("truncated", "bad_card", "unknown_verb", "missing_header",
                          "conflict", "encoding")
_CARD_LIST = re.compile(r"\[([^\]]+)\]")
_UNKNOWN_VERBS = ("knocks", "shoves", "limps", "passes", "bumps")


def _truncate(text: str, rng: random.Random, last_in_file: bool) -> tuple[bytes, str]:
    """Cut the hand before its RESULT; at the end of a file, in the middle of a line."""
    lines = text.split("\n")
    cut = rng.randrange(len(lines) // 2, lines.index("*** RESULT ***"))
    kept = "\n".join(lines[:cut])
    if last_in_file:
        kept += "\n" + lines[cut][: max(1, len(lines[cut]) // 2)]
        return kept.encode(), "truncated"
    return kept.encode(), "missing_result"


def _bad_card(text: str, rng: random.Random) -> bytes:
    lines = text.split("\n")
    deal = [i for i, line in enumerate(lines) if line.startswith("Seat ") and ": [" in line]
    i = rng.choice(deal)
    bad = rng.choice(("1h", "Xs", "Tx", "10d", "AH"))
    lines[i] = re.sub(r"\[(\S+)", "[" + bad, lines[i], count=1)
    return "\n".join(lines).encode()


def _unknown_verb(text: str, rng: random.Random) -> bytes:
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith("***"))
    plays = [i for i in range(start, len(lines)) if re.match(r"Seat \d+: [a-z]", lines[i])]
    i = rng.choice(plays)
    seat, rest = lines[i].split(": ", 1)
    lines[i] = f"{seat}: {rng.choice(_UNKNOWN_VERBS)}" + rest[len(rest.split(" ")[0]):]
    return "\n".join(lines).encode()


def _missing_header(text: str, rng: random.Random) -> bytes:
    key = rng.choice(("Time", "Table", "Game", "Limit", "Ante", "Button"))
    return "\n".join(line for line in text.split("\n")
                     if not line.startswith(key + ": ")).encode()


def _encoding(text: str, rng: random.Random) -> bytes:
    # A Latin-1 export of an accented room name: one byte that is not UTF-8.
    return text.encode().replace(b"Room: ", b"Room: Caf\xe9 ", 1)


def conflict_copy(text: str) -> bytes:
    """The same hand id with different text: a second export that names the room otherwise."""
    return text.replace("Room: ", "Room: (re-export) ", 1).encode()


def damage(text: str, kind: str, rng: random.Random, last_in_file: bool) -> tuple[bytes, str]:
    """The damaged bytes of the hand and the error kind the ingest must report."""
    if kind == "truncated":
        return _truncate(text, rng, last_in_file)
    if kind == "bad_card":
        return _bad_card(text, rng), kind
    if kind == "unknown_verb":
        return _unknown_verb(text, rng), kind
    if kind == "missing_header":
        return _missing_header(text, rng), kind
    if kind == "encoding":
        return _encoding(text, rng), kind
    if kind == "conflict":
        return text.encode(), kind
    raise ValueError(f"unknown damage kind {kind!r}")
