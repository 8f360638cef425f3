"""Turn a :class:`~schemas.records.HandRecord` back into the text format.

The text is canonical: headers in the spec's order (optional ones only when they
differ from their default), sections only when they hold a line, amounts without
needless decimals (``10``, ``2.50``). ``parse_hand(write_hand(r))`` equals ``r``
up to source positions (``line``, ``first_line``, ``result_line``).

:func:`write_parts` writes the same text from any objects with the records' field
names (the generator's drafts), so a writer need not build the frozen records first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Protocol

from ingest.actions import ALL_IN
from ingest.tokens import format_amount, format_cards
from schemas.records import Actor, Game, HandRecord, Openers, Section, Verb

__all__ = ["write_action", "write_hand", "write_hands", "write_parts"]


class HeaderFields(Protocol):
    """The header fields of :class:`~schemas.records.HandRecord`, read by the writer."""

    @property
    def hand_id(self) -> str: ...
    @property
    def time(self) -> datetime: ...
    @property
    def room(self) -> str | None: ...
    @property
    def table_id(self) -> str: ...
    @property
    def dealer_id(self) -> str | None: ...
    @property
    def game(self) -> Game: ...
    @property
    def limit_small(self) -> int: ...
    @property
    def limit_big(self) -> int: ...
    @property
    def ante(self) -> int: ...
    @property
    def joker(self) -> bool: ...
    @property
    def button(self) -> int: ...
    @property
    def jackpot(self) -> int: ...
    @property
    def openers(self) -> Openers | None: ...
    @property
    def carried(self) -> int: ...


class ActionFields(Protocol):
    """The fields of :class:`~schemas.records.Action` that its log line shows."""

    @property
    def section(self) -> Section: ...
    @property
    def actor(self) -> Actor: ...
    @property
    def verb(self) -> Verb: ...
    @property
    def seat(self) -> int | None: ...
    @property
    def amount(self) -> int | None: ...
    @property
    def to_amount(self) -> int | None: ...
    @property
    def cards(self) -> tuple[str, ...] | None: ...
    @property
    def drawn(self) -> tuple[str, ...] | None: ...
    @property
    def all_in(self) -> bool: ...
    @property
    def side_pot(self) -> int | None: ...
    @property
    def reading(self) -> str | None: ...
    @property
    def note(self) -> str | None: ...


class ResultFields(Protocol):
    """The RESULT figures of :class:`~schemas.records.HandRecord`."""

    @property
    def pot(self) -> int: ...
    @property
    def rake(self) -> int: ...
    @property
    def carried_out(self) -> int | None: ...


def _header(record: HeaderFields, seats: Iterable[tuple[int, str, int]]) -> list[str]:
    lines = [f"Hand: {record.hand_id}", f"Time: {record.time.isoformat()}"]
    if record.room is not None:
        lines.append(f"Room: {record.room}")
    lines.append(f"Table: {record.table_id}")
    if record.dealer_id is not None:
        lines.append(f"Dealer: {record.dealer_id}")
    lines += [
        f"Game: {record.game.value}",
        f"Limit: {format_amount(record.limit_small)}/{format_amount(record.limit_big)}",
        f"Ante: {format_amount(record.ante)}",
    ]
    if record.joker:
        lines.append("Joker: yes")
    lines.append(f"Button: {record.button}")
    if record.jackpot != 1:
        lines.append(f"Jackpot: {record.jackpot}")
    if record.openers is not None:
        lines.append(f"Openers: {record.openers.value}")
    if record.carried:
        lines.append(f"Carried: {format_amount(record.carried)}")
    lines += [f"Seat {seat}: {player} ({format_amount(stack)})" for seat, player, stack in seats]
    return lines


def _cards(action: ActionFields) -> str:
    return format_cards(action.cards or ())


def _amount(action: ActionFields) -> str:
    return format_amount(action.amount or 0)


def _to_seat(action: ActionFields) -> str:
    return f" to Seat {action.seat}"


def _shows(a: ActionFields) -> str:
    return f"shows {_cards(a)}" + (f" ({a.reading})" if a.reading is not None else "")


def _collects(a: ActionFields) -> str:
    tail = f" from side pot {a.side_pot}" if a.side_pot is not None else ""
    return f"collects {_amount(a)}{tail}"


# The text after ``ACTOR: `` for each verb.
_BODY: dict[Verb, Callable[[ActionFields], str]] = {
    Verb.ANTES: lambda a: f"antes {_amount(a)}",
    Verb.DEALT: _cards,
    Verb.CHECKS: lambda a: "checks",
    Verb.OPENS: lambda a: f"opens {_amount(a)}",
    Verb.BETS: lambda a: f"bets {_amount(a)}",
    Verb.CALLS: lambda a: f"calls {_amount(a)}",
    Verb.RAISES: lambda a: f"raises {_amount(a)} to {format_amount(a.to_amount or 0)}",
    Verb.FOLDS: lambda a: "folds",
    Verb.WITHDRAWS: lambda a: f"withdraws {_amount(a)}",
    Verb.DECLARES_OPENERS: lambda a: "declares openers",
    Verb.SHOWS_OPENERS: lambda a: f"shows openers {_cards(a)}",
    Verb.SPLITS_OPENERS: lambda a: "splits openers",
    Verb.DISCARDS: lambda a: f"discards {_cards(a)} draws {format_cards(a.drawn or ())}",
    Verb.STANDS_PAT: lambda a: "stands pat",
    Verb.DRAWS_FIFTH: lambda a: f"draws fifth {_cards(a)}",
    Verb.SHOWS: _shows,
    Verb.MUCKS: lambda a: "mucks" + (f" {_cards(a)}" if a.cards is not None else ""),
    Verb.RETRIEVES_HAND: lambda a: "retrieves hand",
    Verb.COLLECTS: _collects,
    Verb.BURNS: lambda a: "burns" + (f" {_cards(a)}" if a.cards is not None else ""),
    Verb.EXPOSES: lambda a: f"exposes {_cards(a)}{_to_seat(a)}",
    Verb.RETURNS: lambda a: f"returns {_amount(a)}{_to_seat(a)}",
    Verb.DEALS: lambda a: f"deals {_cards(a)}{_to_seat(a)}",
    Verb.MISDEAL: lambda a: "misdeal",
    Verb.FALSE_OPENERS: lambda a: f"Seat {a.seat} false openers",
    Verb.FOULED_HAND: lambda a: f"Seat {a.seat} fouled hand",
    Verb.PENALTY: lambda a: f"Seat {a.seat} penalty {_amount(a)}",
    Verb.POT_PLAYS: lambda a: "pot plays",
    Verb.POT_KILLED: lambda a: "pot killed",
    Verb.NOTE: lambda a: f"note {a.note}",
}


def write_action(action: ActionFields) -> str:
    """One action as its log line."""
    body = _BODY[action.verb](action)
    if action.all_in:
        body += ALL_IN
    if action.actor is Actor.SEAT:
        return f"Seat {action.seat}: {body}"
    if action.actor is Actor.DEALER:
        return f"Dealer: {body}"
    return f"Floor: {body}"


def write_hand(record: HandRecord) -> str:
    """The canonical text of one hand, without a trailing newline or blank line."""
    seats = [(s.seat, s.player_id, s.stack) for s in record.seats]
    return write_parts(record, seats, record.actions, record)


def write_parts(header: HeaderFields, seats: Iterable[tuple[int, str, int]],
                actions: Iterable[ActionFields], result: ResultFields) -> str:
    """:func:`write_hand`'s text from a hand's parts; ``actions`` in log order.

    ``seats`` are (seat, player id, stack) in seat order.
    """
    lines = _header(header, seats)
    current: Section | None = None
    result_written = False
    for action in actions:
        if action.section is not current:
            current = action.section
            lines.append(f"*** {current.value} ***")
            if current is Section.RESULT:
                lines += _result(result)
                result_written = True
        lines.append(write_action(action))
    if not result_written:
        lines.append(f"*** {Section.RESULT.value} ***")
        lines += _result(result)
    return "\n".join(lines)


def _result(record: ResultFields) -> list[str]:
    lines = [f"Pot: {format_amount(record.pot)}"]
    if record.rake:
        lines.append(f"Rake: {format_amount(record.rake)}")
    if record.carried_out is not None:
        lines.append(f"Passed out: carried {format_amount(record.carried_out)}")
    return lines


def write_hands(records: list[HandRecord] | tuple[HandRecord, ...]) -> str:
    """Several hands as one file's text: hands separated by a blank line, final newline."""
    return "".join(write_hand(r) + "\n\n" for r in records)[:-1] if records else ""
