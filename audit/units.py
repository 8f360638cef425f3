"""Cut the text files of a check into work units for the process pool.

A unit is a run of whole hands of a plain file, about ``UNIT_BYTES`` long: a unit
boundary is put just after the first blank line of a separator at or after that
size, so the hands either side are exactly the chunks the reference chunker finds,
and the unit knows its first line number. Files are cut while streamed, never read
whole, so planning costs a block of memory whatever the file.

A compressed file is decompressed once, streamed, into a plain copy in the check's
spill folder (``Unit.source``), and cut like a plain file: a worker never holds more
than a unit, and the main process reads hands again from the copy. A gzip that is
corrupt or cut goes whole to the reference path, which reads every hand before the
fault and reports the fault (one reader of bad input). JSON Lines files and paths
that cannot be read are not units either: the reference path reads them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from ingest.paths import expand_paths
from ingest.reader import is_jsonl
from ingest.source import ByteSource, is_gzip_name

#: Bytes per unit: about 8,000 hands, enough to amortise a task.
UNIT_BYTES = 8 << 20
#: The first blank line of a separator (a cut after it keeps the chunks as they are).
_CUT = re.compile(rb"\n[ \t\f\v]*\r?\n")
_OPEN_BLANK = re.compile(rb"[ \t\f\v]*\r?")
_BLOCK = 1 << 20


@dataclass(frozen=True, slots=True)
class Unit:
    """Bytes ``start``..``end`` (``end`` -1: to the end) of text file number ``file``.

    ``path`` names the file in reports; ``source`` is where its (plain) bytes are read
    from when that is not ``path`` (a decompressed copy).
    """

    file: int
    path: str
    start: int = 0
    end: int = -1
    first_line: int = 1
    source: str = ""

    @property
    def location(self) -> str:
        """The plain file holding the unit's bytes."""
        return self.source or self.path


@dataclass(slots=True)
class Plan:
    """The text files (by number), their units, and the files left to the reference path."""

    files: list[str]
    units: list[Unit]
    others: list[str]
    #: Every expanded path's place in the input, to keep the reference's order.
    position: dict[str, int]
    #: Where each text file's plain bytes are (the file, or its decompressed copy).
    sources: list[str]


def plan_units(paths: Iterable[str | Path], unit_bytes: int = UNIT_BYTES,
               spill: Path | None = None) -> Plan:
    """Units for every text file of ``paths``; JSONL and unreadable files go to ``others``.

    ``spill`` is the folder for decompressed copies of ``.gz`` files (without one, a
    ``.gz`` goes to the reference path).
    """
    plan = Plan([], [], [], {}, [])
    for path in expand_paths(paths):
        name = str(path)
        plan.position[name] = len(plan.position)
        if is_jsonl(path) or not path.is_file():
            plan.others.append(name)
            continue
        source = name
        if is_gzip_name(name):
            copy = None if spill is None else _decompress(path, spill / f"{len(plan.files)}.log")
            if copy is None:
                plan.others.append(name)
                continue
            source = str(copy)
        number = len(plan.files)
        plan.files.append(name)
        plan.sources.append(source)
        units = split_file(number, name, Path(source), unit_bytes)
        if source != name:
            units = [Unit(u.file, u.path, u.start, u.end, u.first_line, source) for u in units]
        plan.units.extend(units)
    return plan


def _decompress(path: Path, copy: Path) -> Path | None:
    """Stream ``path``'s decompressed bytes into ``copy``; None if the gzip is faulty."""
    with ByteSource(path) as source, open(copy, "wb") as out:
        while block := source.read(_BLOCK):
            out.write(block)
        return None if source.fault is not None else copy


def split_file(number: int, name: str, path: Path, unit_bytes: int) -> list[Unit]:
    """Units of about ``unit_bytes`` each of the plain file ``path``, cut after the first
    blank line of a separator, found while the file is streamed."""
    units: list[Unit] = []
    start, line = 0, 1  # the current unit's first byte and line
    with open(path, "rb") as f:
        size = f.seek(0, 2)
        while size - start > unit_bytes:
            cut = _cut_after(f, start + unit_bytes)
            if cut is None:
                break
            units.append(Unit(number, name, start, cut, line))
            line += _newlines(f, start, cut)
            start = cut
    units.append(Unit(number, name, start, -1, line))
    return units


def _cut_after(f: BinaryIO, at: int) -> int | None:
    """The end of the first blank line of a separator whose first line end is at or
    after ``at - 1`` (a separator straddling ``at`` is found), or None before the end."""
    window_at = max(at - 1, 0)  # the file offset of window[0]
    f.seek(window_at)
    window = b""
    while block := f.read(_BLOCK):
        window += block
        found = _CUT.search(window)
        if found is not None:
            return window_at + found.end()
        # Keep the tail from its last line end if a blank line may go on in the next
        # block (and is not itself huge: a later separator is as good a cut).
        last = window.rfind(b"\n")
        open_blank = last >= 0 and len(window) - last <= _BLOCK \
            and _OPEN_BLANK.fullmatch(window, last + 1) is not None
        keep = last if open_blank else len(window)
        window_at += keep
        window = window[keep:]
    return None


def _newlines(f: BinaryIO, start: int, end: int) -> int:
    """The line ends in bytes ``start``..``end`` of ``f``."""
    f.seek(start)
    count, left = 0, end - start
    while left > 0 and (block := f.read(min(_BLOCK, left))):
        count += block.count(b"\n")
        left -= len(block)
    return count
