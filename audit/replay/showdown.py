"""Who contests each pot at the showdown and who should win it (the reference's facts).

The replay's :class:`~audit.replay.Pot` lists the seats *in the hand* that put in
enough to contest a pot; the showdown question is narrower (rules.md, "Live hands"): a
seat that mucked is out even when its cards were recorded, and a seat the floor ruled
dead (a false opener found at the showdown, a fouled hand) cannot win. These are the
definitions of the pots table's showdown columns (:mod:`audit.facts.tables`), which the
compiled replay computes again and the tests hold equal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from audit.evaluator import describe_strength, evaluate

from .replay import Replay
from .state import Pot


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

    ``winners`` are the contenders holding the best hand (clockwise order), empty when
    the cards cannot tell; ``unknown`` the contenders whose final hand the log does not
    give; ``fouled`` the contenders whose known cards are not a five-card hand (D302/D307
    judge those, so they are left out of the comparison).
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
