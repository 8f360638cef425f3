"""Showdown facts shared by the pot rules (P401, P403): who contests a pot and who should win it.

The replay's :class:`~audit.replay.Pot` lists the seats *in the hand* that put in
enough to contest a pot; the showdown question is narrower (rules.md, "Live
hands"): a seat that mucked is out even when its cards were recorded, and a seat
the floor ruled dead (a false opener found at the showdown, a fouled hand) cannot
win. The odd-chip convention is the format spec's: an uneven split gives the odd
chip to the first winning seat clockwise from the button (one each, in that order,
when more than one is left over). The log does not name the table's smallest chip,
so a split in whole cents and one in whole chips of the usual sizes are both fair.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from audit.evaluator import describe_strength, evaluate
from audit.replay import Pot, Replay


@dataclass(frozen=True, slots=True)
class Collection:
    """One ``collects`` line: action index, seat, cents, pot number (0 = main)."""

    index: int
    seat: int
    amount: int
    pot: int


def collections_of(replay: Replay, pot: int | None = None) -> list[Collection]:
    """The RESULT's collections, all of them or those of one pot, in log order."""
    rows = (Collection(i, seat, amount, k) for i, seat, amount, k in replay.collections)
    return [c for c in rows if pot is None or c.pot == pot]


def pot_label(number: int) -> str:
    """``the main pot`` or ``side pot K`` for messages."""
    return "the main pot" if number == 0 else f"side pot {number}"


def contenders(replay: Replay, pot: Pot) -> list[int]:
    """Live seats contesting ``pot``, clockwise from the first seat left of the button.

    Only an all-in caps what a seat can win. A live seat that is not all-in contests
    every pot even when the log shows it a chip short or over (a wrong call is B105's
    finding, not a reason to take the pot away from it).
    """
    eligible = set(pot.eligible)
    return [n for n in replay.order
            if (s := replay.seats[n]).live and (n in eligible or not s.all_in)]


def strength(cards: Sequence[str] | None) -> int | None:
    """The evaluator's strength of five known cards; None for anything else (unknown, fouled)."""
    if cards is None:
        return None
    try:
        return evaluate(cards)
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class Showdown:
    """Who should win one pot, as far as the log proves it.

    ``winners`` are the contenders holding the best hand (clockwise order), empty
    when the cards cannot tell; ``unknown`` the contenders whose final hand the log
    does not give; ``fouled`` the contenders whose known cards are not a five-card
    hand (D302/D307 judge those, so they are left out of the comparison).
    """

    contenders: tuple[int, ...]
    winners: tuple[int, ...]
    unknown: tuple[int, ...]
    fouled: tuple[int, ...]
    best: str | None


def showdown(replay: Replay, pot: Pot) -> Showdown:
    """Rank the live hands contesting ``pot``."""
    seats = contenders(replay, pot)
    if len(seats) == 1:  # an uncontested pot needs no cards
        return Showdown(tuple(seats), tuple(seats), (), (), None)
    unknown: list[int] = []
    fouled: list[int] = []
    strengths: dict[int, int] = {}
    for n in seats:
        cards = replay.final_hand(n)
        value = strength(cards)
        if cards is None:
            unknown.append(n)
        elif value is None:
            fouled.append(n)
        else:
            strengths[n] = value
    if unknown or not strengths:
        return Showdown(tuple(seats), (), tuple(unknown), tuple(fouled), None)
    top = max(strengths.values())
    winners = tuple(n for n in seats if strengths.get(n) == top)
    return Showdown(tuple(seats), winners, (), tuple(fouled), describe_strength(top))


#: Chip sizes in cents an odd amount may be left over in: the odd cent of the format spec,
#: or the table's smallest chip, which the log does not name (one unit is the usual one).
ODD_CHIPS: tuple[int, ...] = (1, 5, 25, 50, 100)


def split(total: int, winners: Iterable[int], chip: int = 1) -> dict[int, int]:
    """``total`` cents shared by ``winners`` (clockwise order) in whole ``chip``s, the odd
    chips one each to the first winners (the last odd chip may be a part of a chip)."""
    order = list(winners)
    base = total // (len(order) * chip) * chip
    odd = total - base * len(order)
    shares = {}
    for n in order:
        extra = min(chip, odd)
        shares[n] = base + extra
        odd -= extra
    return shares


def fair_splits(total: int, winners: Sequence[int]) -> list[dict[int, int]]:
    """Every split of ``total`` among tied ``winners`` that follows the odd-chip rule."""
    found: list[dict[int, int]] = []
    for chip in ODD_CHIPS:
        shares = split(total, winners, chip)
        if shares not in found:
            found.append(shares)
    return found
