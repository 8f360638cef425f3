"""The small tokens of the format: amounts, card lists, seat numbers.

Each ``parse_*`` function takes the token text and the absolute line number and
either returns the value or raises :class:`HandParseError` naming the token. The
``format_*`` functions are their exact inverses, used by the writer.
"""

from __future__ import annotations

import re

from ingest.errors import ErrorKind, HandParseError
from schemas.records import CARD_CODES

_CARDS = frozenset(CARD_CODES)
#: At most 13 digits before the point, so every amount fits a BIGINT of cents.
_AMOUNT = re.compile(r"(\d{1,13})(?:\.(\d{1,2}))?")
AMOUNT_EXPECTED = (
    "a non-negative amount with at most two decimals (and 13 digits), e.g. 10 or 2.50"
)
CARD_EXPECTED = "a card: rank 2-9TJQKA + suit cdhs, Jk or ??"


def parse_amount(text: str, line: int) -> int:
    """Parse ``10`` / ``2.5`` / ``2.50`` into integer cents."""
    if text.isdigit() and text.isascii() and len(text) <= 13:
        return int(text) * 100
    match = _AMOUNT.fullmatch(text) if text.isascii() else None
    if match is None:
        raise HandParseError(
            "bad amount", line=line, token=text, expected=AMOUNT_EXPECTED, kind=ErrorKind.BAD_AMOUNT
        )
    whole, frac = match.groups()
    return int(whole) * 100 + (int(frac.ljust(2, "0")) if frac else 0)


def format_amount(cents: int) -> str:
    """Integer cents as the format writes them: ``10`` or ``2.50``."""
    whole, frac = divmod(cents, 100)
    return f"{whole}.{frac:02d}" if frac else str(whole)


def parse_cards(text: str, line: int) -> tuple[str, ...]:
    """Parse a bracketed card list ``[Jh Js 4c]`` (single spaces; ``[]`` is empty)."""
    if len(text) < 2 or text[0] != "[" or text[-1] != "]":
        raise HandParseError(
            "bad card list", line=line, token=text, expected="a card list like [Jh Js 4c]"
        )
    inner = text[1:-1]
    if not inner:
        return ()
    cards = tuple(inner.split(" "))
    for card in cards:
        if card not in _CARDS:
            if not card:
                raise HandParseError(
                    "bad card list", line=line, token=text,
                    expected="cards separated by single spaces",
                )
            raise HandParseError(
                "not a card", line=line, token=card, expected=CARD_EXPECTED,
                kind=ErrorKind.BAD_CARD,
            )
    return cards


def format_cards(cards: tuple[str, ...]) -> str:
    """A card tuple as a bracketed list."""
    return "[" + " ".join(cards) + "]"


def parse_seat_number(text: str, line: int) -> int:
    """Parse the N of ``Seat N`` (1..10)."""
    if text.isdigit() and text.isascii():
        number = int(text)
        if 1 <= number <= 10:
            return number
    raise HandParseError(
        "bad seat number", line=line, token=text, expected="a seat number 1..10",
        kind=ErrorKind.BAD_SEAT,
    )


def parse_count(text: str, line: int, what: str) -> int:
    """Parse a positive integer such as ``Jackpot`` or a side pot number."""
    if text.isdigit() and text.isascii() and int(text) >= 1:
        return int(text)
    raise HandParseError(f"bad {what}", line=line, token=text, expected="an integer >= 1")
