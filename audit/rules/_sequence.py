"""Facts about consecutive deals of one table, shared by the deal-sequence (J) rules.

The engine pairs each deal with the one just before it at the same table (by
``Time``, then hand id). What the earlier deal leaves the later one:

* a passed-out deal (``Passed out: carried X``) leaves X chips and makes the next
  deal the next jack-pot (``Jackpot`` + 1);
* a misdeal voids the deal: the redeal is a new hand with the *same* ``Jackpot``
  and the same ``Carried`` (the antes of the void deal went back to the seats);
* any other deal was won, and the next deal starts afresh (``Jackpot: 1``, nothing
  carried).
"""

from __future__ import annotations

from audit.replay import Replay
from schemas.records import Action, HandRecord, Section, Verb


def misdealt(record: HandRecord) -> bool:
    """The deal was declared void (``Dealer: misdeal``)."""
    return any(a.verb is Verb.MISDEAL for a in record.actions)


def passed_out(record: HandRecord) -> bool:
    """Nobody won the deal: its chips stay for the next deal (a misdeal is not one)."""
    return record.carried_out is not None and not misdealt(record)


def carried_forward(record: HandRecord) -> int:
    """The chips this deal leaves in the pot for the next deal of its table."""
    if record.carried_out is not None:
        return record.carried_out
    return record.carried if misdealt(record) else 0


def forfeited(record: HandRecord, replay: Replay) -> int:
    """The forfeited money this deal leaves in a carried pot (rules.md, J506), in cents.

    Money a player lost to the pot by a ruling: every penalty (L-33's double ante,
    O211's abandonment penalty), and the chips beyond its ante that a seat ruled dead
    (a false opener, a fouled hand) left in the pot. The antes of a passed-out deal
    are not forfeited money. A misdeal voids its deal: nothing of it is forfeited.
    """
    if misdealt(record) or record.carried_out is None:
        return 0
    dead = sum(max(s.total - s.ante, 0) for s in replay.seats.values() if s.dead)
    return replay.penalties + dead


def seat_of_player(record: HandRecord) -> dict[str, int]:
    """Player id -> seat number."""
    return {s.player_id: s.seat for s in record.seats}


def dealt_in(record: HandRecord) -> set[int]:
    """Seats that received cards (every seat when the log has no DEAL section)."""
    dealt = {a.seat for a in record.actions if a.verb is Verb.DEALT and a.seat is not None}
    return dealt or {s.seat for s in record.seats}


def first_line_of(record: HandRecord, seat: int) -> Action | None:
    """The seat's first line in the deal (its ante, else its cards), None if it has none."""
    return next((a for a in record.actions if a.seat == seat and a.verb in
                 (Verb.ANTES, Verb.DEALT)), None)


def first_line_after_antes(record: HandRecord) -> Action | None:
    """The first line after the ANTES section: where play went on without a missing ante."""
    return next((a for a in record.actions if a.section is not Section.ANTES), None)


def anchor(record: HandRecord, seat: int) -> tuple[Action | None, int | None]:
    """Where a finding about ``seat`` points: its first line, else the hand's first line.

    Returns ``(action, line)`` for :meth:`~audit.rule.SequenceContext.finding`.
    """
    action = first_line_of(record, seat)
    return action, (None if action is not None else record.first_line or None)
