"""Parse one line of play (``ACTOR: VERB [ARGUMENTS]``) into an :class:`Action`.

A known verb is accepted in any section (the rules judge where it belongs);
an unknown verb, an unknown actor or unreadable arguments raise
:class:`HandParseError`. Dispatch is on the first word of the verb so that each
line costs one dictionary lookup and a few string operations.
"""

from __future__ import annotations

from collections.abc import Callable

from ingest.construct import make_action
from ingest.errors import ErrorKind, HandParseError
from ingest.tokens import parse_amount, parse_cards, parse_count, parse_seat_number
from schemas.records import WAGER_VERBS, Action, Actor, Section, Verb

ALL_IN = " and is all-in"
_PLAYER_VERBS = (
    "antes X, [cards], checks, opens X, bets X, calls X, raises X to Y, folds, withdraws X, "
    "declares openers, shows openers [..], splits openers, discards [..] draws [..], "
    "stands pat, draws fifth [c], shows [..], mucks, retrieves hand, collects X"
)
_DEALER_VERBS = "burns, exposes [c] to Seat N, returns X to Seat N, deals [..] to Seat N, misdeal"
_FLOOR_VERBS = (
    "Seat N false openers, Seat N fouled hand, Seat N penalty X, pot plays, pot killed, note TEXT"
)

# A player handler gets (rest after the verb word, line, section, index, seat, all_in).
_PlayerHandler = Callable[[str, int, Section, int, int, bool], Action]


def _no_args(verb: Verb) -> _PlayerHandler:
    def handle(rest: str, line: int, sec: Section, idx: int, seat: int, all_in: bool) -> Action:
        if rest:
            raise HandParseError(
                f"unexpected text after '{verb.value}'", line=line, token=rest,
                expected="end of line",
            )
        return make_action(idx, line, sec, Actor.SEAT, verb, seat=seat)

    return handle


def _one_amount(verb: Verb) -> _PlayerHandler:
    def handle(rest: str, line: int, sec: Section, idx: int, seat: int, all_in: bool) -> Action:
        amount = parse_amount(rest, line)
        return make_action(idx, line, sec, Actor.SEAT, verb, seat=seat, amount=amount,
                           all_in=all_in)

    return handle


def _fixed_words(verb: Verb, words: str, with_cards: bool) -> _PlayerHandler:
    """Verbs of two words (``stands pat``), optionally followed by a card list."""

    def handle(rest: str, line: int, sec: Section, idx: int, seat: int, all_in: bool) -> Action:
        head, _, tail = rest.partition(" ")
        if head != words:
            raise HandParseError(
                "unknown verb", line=line, token=f"{verb.value.split()[0]} {rest}".strip(),
                expected=f"'{verb.value}'", kind=ErrorKind.UNKNOWN_VERB,
            )
        if with_cards:
            return make_action(idx, line, sec, Actor.SEAT, verb, seat=seat,
                               cards=parse_cards(tail, line))
        if tail:
            raise HandParseError(
                f"unexpected text after '{verb.value}'", line=line, token=tail,
                expected="end of line",
            )
        return make_action(idx, line, sec, Actor.SEAT, verb, seat=seat)

    return handle


def _raises(rest: str, line: int, sec: Section, idx: int, seat: int, all_in: bool) -> Action:
    amount_text, sep, to_text = rest.partition(" to ")
    if not sep:
        raise HandParseError(
            "bad raise", line=line, token=rest, expected="'raises X to Y'"
        )
    return make_action(
        idx, line, sec, Actor.SEAT, Verb.RAISES, seat=seat,
        amount=parse_amount(amount_text, line), to_amount=parse_amount(to_text, line),
        all_in=all_in,
    )


def _shows(rest: str, line: int, sec: Section, idx: int, seat: int, all_in: bool) -> Action:
    if rest.startswith("openers"):
        tail = rest[7:]
        if not tail.startswith(" "):
            raise HandParseError(
                "bad 'shows openers'", line=line, token=rest, expected="'shows openers [c c]'"
            )
        return make_action(idx, line, sec, Actor.SEAT, Verb.SHOWS_OPENERS, seat=seat,
                           cards=parse_cards(tail[1:], line))
    close = rest.find("]")
    cards = parse_cards(rest[: close + 1] if close >= 0 else rest, line)
    tail = rest[close + 1 :]
    reading = None
    if tail:
        if not (tail.startswith(" (") and tail.endswith(")") and len(tail) > 3):
            raise HandParseError(
                "bad showdown reading", line=line, token=tail.strip(),
                expected="'(READING)' after the cards",
            )
        reading = tail[2:-1]
    return make_action(idx, line, sec, Actor.SEAT, Verb.SHOWS, seat=seat, cards=cards,
                       reading=reading)


def _mucks(rest: str, line: int, sec: Section, idx: int, seat: int, all_in: bool) -> Action:
    cards = parse_cards(rest, line) if rest else None
    return make_action(idx, line, sec, Actor.SEAT, Verb.MUCKS, seat=seat, cards=cards)


def _discards(rest: str, line: int, sec: Section, idx: int, seat: int, all_in: bool) -> Action:
    left, sep, right = rest.partition("] draws ")
    if not sep:
        raise HandParseError(
            "bad draw", line=line, token=rest, expected="'discards [..] draws [..]'"
        )
    return make_action(idx, line, sec, Actor.SEAT, Verb.DISCARDS, seat=seat,
                       cards=parse_cards(left + "]", line), drawn=parse_cards(right, line))


def _collects(rest: str, line: int, sec: Section, idx: int, seat: int, all_in: bool) -> Action:
    amount_text, sep, pot_text = rest.partition(" from side pot ")
    side_pot = parse_count(pot_text, line, "side pot number") if sep else None
    return make_action(idx, line, sec, Actor.SEAT, Verb.COLLECTS, seat=seat,
                       amount=parse_amount(amount_text, line), side_pot=side_pot)


_PLAYER: dict[str, _PlayerHandler] = {
    "antes": _one_amount(Verb.ANTES),
    "checks": _no_args(Verb.CHECKS),
    "opens": _one_amount(Verb.OPENS),
    "bets": _one_amount(Verb.BETS),
    "calls": _one_amount(Verb.CALLS),
    "raises": _raises,
    "folds": _no_args(Verb.FOLDS),
    "withdraws": _one_amount(Verb.WITHDRAWS),
    "declares": _fixed_words(Verb.DECLARES_OPENERS, "openers", with_cards=False),
    "shows": _shows,
    "splits": _fixed_words(Verb.SPLITS_OPENERS, "openers", with_cards=False),
    "discards": _discards,
    "stands": _fixed_words(Verb.STANDS_PAT, "pat", with_cards=False),
    "draws": _fixed_words(Verb.DRAWS_FIFTH, "fifth", with_cards=True),
    "mucks": _mucks,
    "retrieves": _fixed_words(Verb.RETRIEVES_HAND, "hand", with_cards=False),
    "collects": _collects,
}
# The verb word of each wagering verb, to accept ``and is all-in`` only after them.
_WAGER_WORDS = frozenset(v.value for v in WAGER_VERBS)


def _player(text: str, line: int, section: Section, index: int) -> Action:
    seat_text, sep, rest = text[5:].partition(": ")
    if not sep:
        raise HandParseError(
            "bad seat line", line=line, token=text, expected="'Seat N: VERB ...'",
        )
    seat = parse_seat_number(seat_text, line)
    if rest.startswith("["):
        return make_action(index, line, section, Actor.SEAT, Verb.DEALT, seat=seat,
                           cards=parse_cards(rest, line))
    word, _, args = rest.partition(" ")
    handler = _PLAYER.get(word)
    if handler is None:
        raise HandParseError(
            "unknown verb", line=line, token=word or rest, expected=f"one of {_PLAYER_VERBS}",
            kind=ErrorKind.UNKNOWN_VERB,
        )
    all_in = args.endswith(ALL_IN) or args == ALL_IN[1:]
    if all_in:
        if word not in _WAGER_WORDS:
            raise HandParseError(
                f"'and is all-in' after '{word}'", line=line, token=rest,
                expected="'and is all-in' only after antes, opens, bets, calls or raises",
            )
        args = args[: -len(ALL_IN)] if args != ALL_IN[1:] else ""
    return handler(args, line, section, index, seat, all_in)


def _to_seat(rest: str, line: int, what: str) -> tuple[str, int]:
    """Split ``... to Seat N`` into the part before and the seat."""
    head, sep, seat_text = rest.rpartition(" to Seat ")
    if not sep:
        raise HandParseError(
            f"bad '{what}' line", line=line, token=rest, expected=f"'{what} ... to Seat N'"
        )
    return head, parse_seat_number(seat_text, line)


def _dealer(text: str, line: int, section: Section, index: int) -> Action:
    rest = text[8:]
    word, _, args = rest.partition(" ")
    if word == "burns":
        cards = parse_cards(args, line) if args else None
        return make_action(index, line, section, Actor.DEALER, Verb.BURNS, cards=cards)
    if word == "misdeal" and not args:
        return make_action(index, line, section, Actor.DEALER, Verb.MISDEAL)
    if word in ("exposes", "deals"):
        head, seat = _to_seat(args, line, word)
        verb = Verb.EXPOSES if word == "exposes" else Verb.DEALS
        return make_action(index, line, section, Actor.DEALER, verb, seat=seat,
                           cards=parse_cards(head, line))
    if word == "returns":
        head, seat = _to_seat(args, line, word)
        return make_action(index, line, section, Actor.DEALER, Verb.RETURNS, seat=seat,
                           amount=parse_amount(head, line))
    raise HandParseError(
        "unknown dealer verb", line=line, token=rest, expected=f"one of {_DEALER_VERBS}",
        kind=ErrorKind.UNKNOWN_VERB,
    )


_FLOOR_SEAT_VERBS = {"false openers": Verb.FALSE_OPENERS, "fouled hand": Verb.FOULED_HAND}


def _floor(text: str, line: int, section: Section, index: int) -> Action:
    rest = text[7:]
    if rest.startswith("note "):
        return make_action(index, line, section, Actor.FLOOR, Verb.NOTE, note=rest[5:])
    if rest == "pot plays":
        return make_action(index, line, section, Actor.FLOOR, Verb.POT_PLAYS)
    if rest == "pot killed":
        return make_action(index, line, section, Actor.FLOOR, Verb.POT_KILLED)
    if rest.startswith("Seat "):
        seat_text, _, ruling = rest[5:].partition(" ")
        seat = parse_seat_number(seat_text, line)
        verb = _FLOOR_SEAT_VERBS.get(ruling)
        if verb is not None:
            return make_action(index, line, section, Actor.FLOOR, verb, seat=seat)
        if ruling.startswith("penalty "):
            return make_action(index, line, section, Actor.FLOOR, Verb.PENALTY, seat=seat,
                               amount=parse_amount(ruling[8:], line))
    raise HandParseError(
        "unknown floor ruling", line=line, token=rest, expected=f"one of {_FLOOR_VERBS}",
        kind=ErrorKind.UNKNOWN_VERB,
    )


def parse_action(text: str, line: int, section: Section, index: int) -> Action:
    """Parse the action line ``text`` found at file line ``line`` inside ``section``."""
    if text.startswith("Seat "):
        return _player(text, line, section, index)
    if text.startswith("Dealer: "):
        return _dealer(text, line, section, index)
    if text.startswith("Floor: "):
        return _floor(text, line, section, index)
    actor = text.partition(":")[0]
    raise HandParseError(
        f"unknown actor in section {section.value}", line=line, token=actor,
        expected="'Seat N:', 'Dealer:' or 'Floor:'", kind=ErrorKind.UNKNOWN_ACTOR,
    )
