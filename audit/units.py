"""Cut the text files of a check into work units for the process pool.

A unit is a whole file, or, for a plain file larger than ``UNIT_BYTES``, a run of
whole hands of it: a unit boundary is put just after a blank-line separator, so
the hands either side are exactly the chunks the reference chunker finds, and the
unit knows its first line number. Compressed files are one unit each (a gzip
stream cannot be entered in the middle). JSON Lines files are not units: the
reference path reads them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ingest.paths import expand_paths
from ingest.reader import is_jsonl

#: Bytes per unit of a large plain file: about 8,000 hands, enough to amortise a task.
UNIT_BYTES = 8 << 20
_SEPARATOR = re.compile(rb"\n(?:[ \t\f\v]*\r?\n)+")


@dataclass(frozen=True, slots=True)
class Unit:
    """Bytes ``start``..``end`` (``end`` -1: to the end) of text file number ``file``."""

    file: int
    path: str
    start: int = 0
    end: int = -1
    first_line: int = 1

    @property
    def compressed(self) -> bool:
        return self.path.lower().endswith(".gz")


@dataclass(slots=True)
class Plan:
    """The text files (by number), their units, and the files left to the reference path."""

    files: list[str]
    units: list[Unit]
    others: list[str]
    #: Every expanded path's place in the input, to keep the reference's order.
    position: dict[str, int]


def plan_units(paths: Iterable[str | Path], unit_bytes: int = UNIT_BYTES) -> Plan:
    """Units for every text file of ``paths``; JSONL and missing files go to ``others``."""
    plan = Plan([], [], [], {})
    for path in expand_paths(paths):
        name = str(path)
        plan.position[name] = len(plan.position)
        if is_jsonl(path) or not path.is_file():
            plan.others.append(name)
            continue
        number = len(plan.files)
        plan.files.append(name)
        if name.lower().endswith(".gz") or path.stat().st_size <= unit_bytes:
            plan.units.append(Unit(number, name))
            continue
        plan.units.extend(split_file(number, name, path.read_bytes(), unit_bytes))
    return plan


def split_file(number: int, name: str, data: bytes, unit_bytes: int) -> list[Unit]:
    """Units of about ``unit_bytes`` each, cut after blank-line separators."""
    units: list[Unit] = []
    start, line = 0, 1
    while len(data) - start > unit_bytes:
        found = _SEPARATOR.search(data, start + unit_bytes)
        if found is None:
            break
        cut = found.end()
        units.append(Unit(number, name, start, cut, line))
        line += data.count(b"\n", start, cut)
        start = cut
    units.append(Unit(number, name, start, -1, line))
    return units
