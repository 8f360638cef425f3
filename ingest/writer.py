"""Turn a :class:`~schemas.records.HandRecord` back into the text format.

The text is canonical: headers in the spec's order (optional ones only when they
differ from their default), sections only when they hold a line, amounts without
needless decimals (``10``, ``2.50``). ``parse_hand(write_hand(r))`` equals ``r``
up to source positions (``line``, ``first_line``, ``result_line``).
"""

from __future__ import annotations

from collections.abc import Callable

from ingest.actions import ALL_IN
from ingest.tokens import format_amount, format_cards
from schemas.records import Action, Actor, HandRecord, Section, Verb

__all__ = ["write_action", "write_hand", "write_hands"]


def _header(record: HandRecord) -> list[str]:
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
    lines += [f"Seat {s.seat}: {s.player_id} ({format_amount(s.stack)})" for s in record.seats]
    return lines


def _cards(action: Action) -> str:
    return format_cards(action.cards or ())


def _amount(action: Action) -> str:
    return format_amount(action.amount or 0)


def _to_seat(action: Action) -> str:
    return f" to Seat {action.seat}"


def _shows(a: Action) -> str:
    return f"shows {_cards(a)}" + (f" ({a.reading})" if a.reading is not None else "")


def _collects(a: Action) -> str:
    tail = f" from side pot {a.side_pot}" if a.side_pot is not None else ""
    return f"collects {_amount(a)}{tail}"


# The text after ``ACTOR: `` for each verb.
_BODY: dict[Verb, Callable[[Action], str]] = {
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


def write_action(action: Action) -> str:
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
    lines = _header(record)
    current: Section | None = None
    result_written = False
    for action in record.actions:
        if action.section is not current:
            current = action.section
            lines.append(f"*** {current.value} ***")
            if current is Section.RESULT:
                lines += _result(record)
                result_written = True
        lines.append(write_action(action))
    if not result_written:
        lines.append(f"*** {Section.RESULT.value} ***")
        lines += _result(record)
    return "\n".join(lines)


def _result(record: HandRecord) -> list[str]:
    lines = [f"Pot: {format_amount(record.pot)}"]
    if record.rake:
        lines.append(f"Rake: {format_amount(record.rake)}")
    if record.carried_out is not None:
        lines.append(f"Passed out: carried {format_amount(record.carried_out)}")
    return lines


def write_hands(records: list[HandRecord] | tuple[HandRecord, ...]) -> str:
    """Several hands as one file's text: hands separated by a blank line, final newline."""
    return "".join(write_hand(r) + "\n\n" for r in records)[:-1] if records else ""
