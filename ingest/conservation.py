"""Conservation: every hand an ingest meets is stored, counted a duplicate, or quarantined.

A *hand met* is a text chunk (the bytes between blank lines) or a non-blank JSON
Lines line: :attr:`ingest.reader.HandReader.chunks` counts them as the reader goes.
Each ends in exactly one of three places: stored (new in ``raw_hands``), a
duplicate (the same id and text already stored), or quarantined (unreadable,
unstorable, or a conflict: the same id with another text). File items (a file that
cannot be opened, corrupt gzip, ...) are counted apart: they are not hands.

The counts are checked after every file and at the end of every ingest; a mismatch
is a bug that loses or invents hands, and raises :class:`ConservationError` so the
command (or the nightly run) fails loudly instead of reporting a wrong day. The
nightly job stores the counts in its ``runs`` row (``schemas/ddl/72_conservation.sql``).
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

__all__ = ["Conservation", "ConservationError", "record_run"]


class ConservationError(RuntimeError):
    """Hands met and hands accounted for differ: hands would be lost or invented."""


@dataclass
class Conservation:
    """The hands an ingest met and where each went."""

    hands: int = 0
    stored: int = 0
    duplicates: int = 0
    #: Unreadable, unstorable and conflicting hands (each one quarantine item).
    quarantined: int = 0
    #: Items about a file, not a hand (never part of the balance).
    file_problems: int = 0

    @property
    def accounted(self) -> int:
        """Hands stored, duplicate or quarantined."""
        return self.stored + self.duplicates + self.quarantined

    def check(self, where: str) -> None:
        """Raise :class:`ConservationError` unless every hand met is accounted for."""
        if self.hands != self.accounted:
            raise ConservationError(
                f"conservation failed {where}: {self.hands:,} hand(s) met but "
                f"{self.stored:,} stored + {self.duplicates:,} duplicate + "
                f"{self.quarantined:,} quarantined = {self.accounted:,}")

    def add(self, other: Conservation) -> None:
        """Add ``other``'s counts to these."""
        self.hands += other.hands
        self.stored += other.stored
        self.duplicates += other.duplicates
        self.quarantined += other.quarantined
        self.file_problems += other.file_problems


def record_run(con: duckdb.DuckDBPyConnection, run_id: int, counts: Conservation) -> None:
    """Write a run's conservation counts into its ``ops_runs`` row (the ``runs`` view)."""
    counts.check(f"in run {run_id}")
    con.execute(
        "UPDATE ops_runs SET ingest_hands = ?, ingest_stored = ?, ingest_duplicates = ?, "
        "ingest_quarantined = ?, ingest_file_problems = ? WHERE run_id = ?",
        [counts.hands, counts.stored, counts.duplicates, counts.quarantined,
         counts.file_problems, run_id])
