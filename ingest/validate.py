"""Read hand logs without storing them and collect every problem (``openers validate``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ingest.batches import read_batches
from ingest.errors import ErrorKind
from ingest.reader import HandReader, QuarantineItem

BATCH_SIZE = 5000


@dataclass
class ValidationReport:
    """What ``validate_paths`` found: counts and every problem, in reading order."""

    files: int = 0
    hands: int = 0
    duplicates: int = 0
    problems: list[QuarantineItem] = field(default_factory=list)


def validate_paths(files: Iterable[str | Path]) -> ValidationReport:
    """Read ``files``; report unreadable hands and files, and conflicts among the files read.

    A conflict is the same hand id with a different text (the first version read is
    the reference); the same id with the same text is a duplicate, not a problem.
    """
    report = ValidationReport()
    # hand id -> (sha256, file, first line) of the first version read
    first: dict[str, tuple[str, str, int]] = {}
    for path in files:
        report.files += 1
        for batch in read_batches(HandReader(path), BATCH_SIZE):
            for problem in batch.problems:
                report.problems.append(problem)
                report.hands += not problem.is_file_item
            for item in batch.candidates:
                report.hands += 1
                seen = first.get(item.hand_id)
                if seen is None:
                    first[item.hand_id] = (item.sha256, item.file, item.first_line)
                elif seen[0] == item.sha256:
                    report.duplicates += 1
                else:
                    report.problems.append(QuarantineItem(
                        item.file, item.first_line, item.hand_id, ErrorKind.CONFLICT,
                        f"line {item.first_line}: hand {item.hand_id} conflicts with "
                        f"{seen[1]} line {seen[2]} (same id, different text)",
                        item.raw_text, item.first_line, item.sha256, item.end_offset,
                    ))
    return report
