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
        reader = HandReader(path)
        for batch in read_batches(reader, BATCH_SIZE):
            for problem in batch.problems:
                report.problems.append(problem)
                report.hands += not problem.is_file_item
            raw = batch.hands.raw
            ids, shas = raw.column("hand_id").to_pylist(), raw.column("sha256").to_pylist()
            lines = raw.column("first_line").to_pylist()
            for row in sorted(range(len(ids)), key=lines.__getitem__):  # reading order
                hand_id, sha256, first_line = ids[row], shas[row], lines[row]
                report.hands += 1
                seen = first.get(hand_id)
                if seen is None:
                    first[hand_id] = (sha256, reader.file, first_line)
                elif seen[0] == sha256:
                    report.duplicates += 1
                else:
                    values = raw.slice(row, 1).to_pylist()[0]
                    report.problems.append(QuarantineItem(
                        reader.file, first_line, hand_id, ErrorKind.CONFLICT,
                        f"line {first_line}: hand {hand_id} conflicts with "
                        f"{seen[1]} line {seen[2]} (same id, different text)",
                        values["raw_text"], first_line, sha256, values["end_offset"],
                    ))
    return report
