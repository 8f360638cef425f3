"""The small tokens of the format: amounts, card lists, seat numbers.

Each ``parse_*`` function takes the token text and the absolute line number and
either returns the value or raises :class:`HandParseError` naming the token. The
``format_*`` functions are their exact inverses, used by the writer.
"""

from __future__ import annotations

import re

from ingest.errors import ErrorKind, HandParseError
from schemas.limits import AMOUNT_DIGITS, COUNT_DIGITS, MAX_COUNT, MAX_SEAT, MIN_SEAT
from schemas.records import CARD_CODES

_CARDS = frozenset(CARD_CODES)
# ASCII digits only ([0-9], never \d): the format's alphabet is ASCII. A number with more
# digits than its bound is well-formed but out of range (schemas.limits).
_AMOUNT = re.compile(r"([0-9]+)(?:\.([0-9]{1,2}))?")
AMOUNT_EXPECTED = (
    f"a non-negative amount with at most two decimals and {AMOUNT_DIGITS} digits before "
    "the point, e.g. 10 or 2.50"
)
COUNT_EXPECTED = f"an integer from 1 to {MAX_COUNT:,}"
CARD_EXPECTED = "a card: rank 2-9TJQKA + suit cdhs, Jk or ??"


def _is_digits(text: str) -> bool:
    """ASCII digits only (``str.isdigit`` alone also takes ``１`` or ``٣``)."""
    return text.isascii() and text.isdigit()


def parse_amount(text: str, line: int) -> int:
    """Parse ``10`` / ``2.5`` / ``2.50`` into integer cents."""
    if _is_digits(text) and len(text) <= AMOUNT_DIGITS:
        return int(text) * 100
    match = _AMOUNT.fullmatch(text) if text.isascii() else None
    if match is None:
        raise HandParseError(
            "bad amount", line=line, token=text, expected=AMOUNT_EXPECTED, kind=ErrorKind.BAD_AMOUNT
        )
    whole, frac = match.groups()
    if len(whole) > AMOUNT_DIGITS:
        raise HandParseError("amount out of range", line=line, token=shorten(text),
                             expected=AMOUNT_EXPECTED, kind=ErrorKind.OUT_OF_RANGE)
    return int(whole) * 100 + (int(frac.ljust(2, "0")) if frac else 0)


def shorten(token: str, keep: int = 40) -> str:
    """A token for an error message: a number of thousands of digits is cut."""
    return token if len(token) <= keep else f"{token[:keep]}... ({len(token):,} characters)"


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
    if _is_digits(text) and len(text) <= 10:  # leading zeros were always read
        number = int(text)
        if MIN_SEAT <= number <= MAX_SEAT:
            return number
    raise HandParseError(
        "bad seat number", line=line, token=shorten(text), expected="a seat number 1..10",
        kind=ErrorKind.BAD_SEAT,
    )


def parse_count(text: str, line: int, what: str) -> int:
    """Parse a positive integer such as ``Jackpot`` or a side pot number (1..MAX_COUNT)."""
    if _is_digits(text):
        if len(text) > COUNT_DIGITS:
            raise HandParseError(f"{what} out of range", line=line, token=shorten(text),
                                 expected=COUNT_EXPECTED, kind=ErrorKind.OUT_OF_RANGE)
        if int(text) >= 1:
            return int(text)
    raise HandParseError(f"bad {what}", line=line, token=shorten(text), expected=COUNT_EXPECTED)
