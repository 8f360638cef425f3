"""What one ingest did (:class:`IngestSummary`) and what it reports as it goes (:class:`Progress`).

The summary is updated by two threads at once (the reading one counts the hands it
meets, the writing one where each went: :mod:`ingest.commit`), so each update is made
under its lock.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

from ingest.conservation import Conservation
from ingest.reader import QuarantineItem

__all__ = ["PROBLEMS_KEPT", "IngestSummary", "Progress"]

#: Problems kept in the summary to show (all of them are in the quarantine table).
PROBLEMS_KEPT = 10_000


@dataclass
class IngestSummary:
    """What one ingest did.

    ``hands_read`` counts every hand met (text chunk or JSON line); each one is
    ``stored``, a ``duplicate``, a ``conflict`` or ``quarantined`` (unreadable or
    unstorable), which :attr:`conservation` checks. ``file_problems`` counts items
    about whole files; ``quarantine_added`` the quarantine rows new to the store.
    ``problems`` keeps the first PROBLEMS_KEPT problems, ``problems_total`` counts all.
    ``stored_ids`` lists the ids of the hands stored, unless ``keep_ids`` is false (a
    caller that does not need them, the nightly job, spares the memory).
    """

    files: int = 0
    hands_read: int = 0
    stored: int = 0
    duplicates: int = 0
    conflicts: int = 0
    quarantined: int = 0
    file_problems: int = 0
    quarantine_added: int = 0
    stored_ids: list[str] = field(default_factory=list)
    keep_ids: bool = True
    problems: list[QuarantineItem] = field(default_factory=list)
    problems_total: int = 0
    #: Held for every update: the reading and the writing thread both update the counts.
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def conservation(self) -> Conservation:
        """The counts as a balance (conflicts are quarantined hands)."""
        return Conservation(self.hands_read, self.stored, self.duplicates,
                            self.quarantined + self.conflicts, self.file_problems)

    def note(self, problems: Sequence[QuarantineItem]) -> None:
        """Count ``problems`` and keep them while there is room (call it under the lock)."""
        self.problems_total += len(problems)
        room = PROBLEMS_KEPT - len(self.problems)
        if room > 0:
            self.problems += problems[:room]


@dataclass(frozen=True)
class Progress:
    """Reported after every batch and every file."""

    files_done: int
    files_total: int
    hands_read: int
    current_file: str
