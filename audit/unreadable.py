"""The ``Q6xx`` codes: a hand or a file that could not be read, as a finding of its own.

A log that cannot be read is not clean: its hands were not audited. ``openers
check`` reports each unreadable hand or file in the same stream as the rules'
findings, under a code of this family chosen by the reader's stable error kind
(:class:`ingest.errors.ErrorKind`), so it counts for the exit code, can be
selected or ignored like a rule (``--ignore Q616``), and is matched by a baseline
by the hand's text, not by its line.

One code per kind, fixed once given (a test holds every kind to a code). An
unreadable hand is ``critical``: nothing in it was audited.
"""

from __future__ import annotations

import hashlib
import re
from typing import TYPE_CHECKING

from audit.output import Item

if TYPE_CHECKING:
    from ingest.reader import QuarantineItem

#: The severity of every unreadable hand or file.
SEVERITY = "critical"
#: ErrorKind value -> code. Append new kinds; never renumber.
CODES: dict[str, str] = {
    "syntax": "Q601",
    "unknown_verb": "Q602",
    "unknown_actor": "Q603",
    "unknown_section": "Q604",
    "section_order": "Q605",
    "bad_card": "Q606",
    "bad_amount": "Q607",
    "bad_seat": "Q608",
    "bad_time": "Q609",
    "bad_limit": "Q610",
    "bad_header": "Q611",
    "unknown_header": "Q612",
    "duplicate_header": "Q613",
    "missing_header": "Q614",
    "missing_result": "Q615",
    "truncated": "Q616",
    "invalid_record": "Q617",
    "bad_json": "Q618",
    "encoding": "Q619",
    "empty_file": "Q620",
    "unreadable_file": "Q621",
    "conflict": "Q622",
    "out_of_range": "Q623",
    "line_too_long": "Q624",
    "hand_too_long": "Q625",
    "too_many_lines": "Q626",
    "bad_gzip": "Q627",
    "reader_error": "Q628",
    "unstorable": "Q629",
}
#: The code of a kind this table does not know yet (a reader newer than the table).
OTHER = "Q699"
_LINE_PREFIX = re.compile(r"^line \d+: ")


def code_of(kind: str) -> str:
    """The Q code of a reader's error kind."""
    return CODES.get(kind, OTHER)


def name_of(kind: str) -> str:
    """The code's name: the kind with dashes, as rule names are written."""
    return kind.replace("_", "-")


def all_codes() -> dict[str, str]:
    """Every Q code with its name, in code order (for ``rules`` and ``--select``)."""
    named = {code: name_of(kind) for kind, code in CODES.items()}
    named[OTHER] = "unreadable"
    return dict(sorted(named.items()))


def unreadable_item(problem: QuarantineItem) -> Item:
    """An unreadable hand or file as an item of check's output.

    The message is the reader's, without its ``line N:`` prefix (the location says
    it); the key holds a digest of the raw text, so an accepted broken hand stays
    accepted wherever it moves in the file.
    """
    kind = str(problem.kind.value if hasattr(problem.kind, "value") else problem.kind)
    raw = problem.sha256 or hashlib.sha256(problem.raw_text.encode("utf-8")).hexdigest()
    code = code_of(kind)
    return Item(
        file=problem.file, line=problem.line or problem.first_line or 1, code=code,
        name=name_of(kind), severity=SEVERITY,
        message=_LINE_PREFIX.sub("", problem.error), hand_id=problem.hand_id, table=None,
        seat=None, key=f"{problem.hand_id or problem.file}|{code}|{raw[:16]}", kind="unreadable",
        details={"first_line": problem.first_line, "evidence": {"kind": kind}},
    )
