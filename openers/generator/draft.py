"""A hand under construction: mutable rows that become a frozen :class:`HandRecord`.

The simulation appends rows as play goes; planters may edit them afterwards (swap
two lines, drop a ruling) before :meth:`Draft.to_record` freezes the hand, or
:meth:`Draft.text` writes it (the same text as ``write_hand(draft.to_record())``,
without building the frozen records, which cost more than the text).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ingest.construct import make_action, trusted
from ingest.writer import write_parts
from schemas.records import (
    SECTION_ORDER,
    Action,
    Actor,
    Game,
    HandRecord,
    Openers,
    Seat,
    Section,
    Verb,
)

_SECTION_POS = {s: i for i, s in enumerate(SECTION_ORDER)}


@dataclass(slots=True)
class Row:
    """One line of play, with the fields of :class:`~schemas.records.Action`."""

    section: Section
    actor: Actor
    verb: Verb
    seat: int | None = None
    amount: int | None = None
    to_amount: int | None = None
    cards: tuple[str, ...] | None = None
    drawn: tuple[str, ...] | None = None
    all_in: bool = False
    side_pot: int | None = None
    reading: str | None = None
    note: str | None = None


@dataclass(slots=True)
class Header:
    """The header fields of a hand (see the format spec's header table)."""

    hand_id: str
    time: datetime
    room: str | None
    table_id: str
    dealer_id: str | None
    game: Game
    limit_small: int
    limit_big: int
    ante: int
    joker: bool
    button: int
    jackpot: int
    openers: Openers | None
    carried: int
    #: (seat, player id, stack before the antes), in seat order.
    seats: list[tuple[int, str, int]] = field(default_factory=list)


@dataclass(slots=True)
class Draft:
    """A hand being written: header, rows in play order, and the RESULT figures."""

    header: Header
    rows: list[Row] = field(default_factory=list)
    pot: int = 0
    rake: int = 0
    carried_out: int | None = None

    def add(self, section: Section, actor: Actor, verb: Verb, seat: int | None = None,
            **fields: Any) -> Row:
        """Append a line and return it (so a planter can find it again)."""
        row = Row(section, actor, verb, seat, **fields)
        self.rows.append(row)
        return row

    def find(self, verb: Verb, seat: int | None = None,
             section: Section | None = None) -> list[Row]:
        """Rows with ``verb`` (and ``seat`` / ``section`` when given), in order."""
        return [
            r for r in self.rows
            if r.verb is verb and (seat is None or r.seat == seat)
            and (section is None or r.section is section)
        ]

    def insert_after(self, anchor: Row, row: Row) -> None:
        """Put ``row`` right after ``anchor``."""
        self.rows.insert(self.rows.index(anchor) + 1, row)

    def remove(self, row: Row) -> None:
        """Drop ``row`` (identity, not equality: two lines may read the same)."""
        for i, r in enumerate(self.rows):
            if r is row:
                del self.rows[i]
                return
        raise ValueError("row not in draft")

    def _in_log_order(self) -> list[Row]:
        """Rows ordered by section, keeping play order inside each."""
        return sorted(self.rows, key=lambda r: _SECTION_POS[r.section])

    def text(self) -> str:
        """The hand's log text, as ``ingest.writer.write_hand`` writes its record."""
        return write_parts(self.header, self.header.seats, self._in_log_order(), self)

    def to_record(self) -> HandRecord:
        """The frozen record; rows are in log order (see :meth:`_in_log_order`)."""
        actions: list[Action] = [
            make_action(i, 0, r.section, r.actor, r.verb, r.seat, r.amount, r.to_amount,
                        r.cards, r.drawn, r.all_in, r.side_pot, r.reading, r.note)
            for i, r in enumerate(self._in_log_order())
        ]
        h = self.header
        seats = tuple(trusted(Seat, {"seat": s, "player_id": p, "stack": st})
                      for s, p, st in h.seats)
        return trusted(HandRecord, {
            "hand_id": h.hand_id, "time": h.time, "room": h.room, "table_id": h.table_id,
            "dealer_id": h.dealer_id, "game": h.game, "limit_small": h.limit_small,
            "limit_big": h.limit_big, "ante": h.ante, "joker": h.joker, "button": h.button,
            "jackpot": h.jackpot, "openers": h.openers, "carried": h.carried, "seats": seats,
            "actions": tuple(actions), "pot": self.pot, "rake": self.rake,
            "carried_out": self.carried_out,
        })
