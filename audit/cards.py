"""Card codes as the audit reads them: ranks as numbers, names for messages, validation.

The codes are those of the hand log format (``schemas.records``): a rank of
``23456789TJQKA`` and a suit of ``cdhs``, ``Jk`` for the joker and ``??`` for a card
the log did not record. The evaluator and the openers test need real cards only, so
:func:`check_cards` rejects ``??`` (a rule that meets it reports the hand as
unverifiable instead of guessing).

Rank values run from 2 (deuce) to 14 (ace): the ace plays high, and low only in the
wheel A-2-3-4-5, which the evaluator handles itself.
"""

from __future__ import annotations

from collections.abc import Iterable

from schemas.records import JOKER, RANKS, SUITS

#: Rank character → value (2..14).
RANK_VALUE: dict[str, int] = {char: value for value, char in enumerate(RANKS, start=2)}
#: Value (2..14) → rank character.
RANK_CHAR: dict[int, str] = {value: char for char, value in RANK_VALUE.items()}
ACE = 14

#: Every real card of the 53-card deck, rank-major (``2c 2d 2h 2s 3c ... As``), then the joker.
DECK: tuple[str, ...] = (*(rank + suit for rank in RANKS for suit in SUITS), JOKER)
_DECK_SET = frozenset(DECK)

_SINGULAR = {
    2: "two",
    3: "three",
    4: "four",
    5: "five",
    6: "six",
    7: "seven",
    8: "eight",
    9: "nine",
    10: "ten",
    11: "jack",
    12: "queen",
    13: "king",
    14: "ace",
}


def rank_name(value: int, *, plural: bool = False) -> str:
    """English name of a rank value for messages: ``rank_name(13, plural=True) == "kings"``."""
    name = _SINGULAR[value]
    if not plural:
        return name
    # "six" is the only rank whose plural is not a plain "s".
    return name + ("es" if name.endswith("x") else "s")


def rank_of(card: str) -> int:
    """Rank value (2..14) of a natural card; the joker has no rank of its own."""
    if card == JOKER or card not in _DECK_SET:
        raise ValueError(f"{card!r} has no rank (the joker and unknown cards have none)")
    return RANK_VALUE[card[0]]


def check_cards(cards: Iterable[str], *, size: int | None = None) -> tuple[str, ...]:
    """Return ``cards`` as a tuple after checking they are distinct real cards.

    Raises ``ValueError`` for an unknown code (including ``??``), a repeated card, or,
    when ``size`` is given, a different number of cards.
    """
    if isinstance(cards, str):
        # A bare string would be read character by character; say what went wrong instead.
        raise ValueError(f"expected a sequence of card codes, got the string {cards!r}")
    hand = tuple(cards)
    for card in hand:
        if card not in _DECK_SET:
            raise ValueError(f"{card!r} is not a known card (unknown cards '??' cannot be read)")
    if len(set(hand)) != len(hand):
        raise ValueError(f"repeated card in {' '.join(hand)}")
    if size is not None and len(hand) != size:
        raise ValueError(f"expected {size} cards, got {len(hand)}: {' '.join(hand)}")
    return hand
