"""P404 hand-misread."""

from __future__ import annotations

from collections.abc import Iterator

from audit.evaluator import HandCategory, category, describe_strength
from audit.rule import HandContext, Result, Rule
from audit.rules._pots import strength
from schemas.findings import Severity
from schemas.records import UNKNOWN_CARD, Verb

_CATEGORIES = {c.value: c for c in HandCategory}


def reading_category(reading: str) -> HandCategory | None:
    """The category a READING names (the text before its first comma), None if it names none."""
    return _CATEGORIES.get(reading.split(",", 1)[0].strip().lower())


class HandMisread(Rule):
    """Flags a shown hand whose recorded reading names another category than its cards make.

    What it does:
        For each ``Seat N: shows [..] (READING)`` line, reads the category the READING
        names (the words before the first comma) and compares it with the category
        the five cards make, the joker playing only as an ace or to complete a
        straight, flush or straight flush. The free detail after the comma is not
        judged. Reported whether or not the misreading changed the award (a wrong
        award is P401 as well). Unverifiable when the shown cards hold ``??``; a shown
        hand that is not five cards is D302's question.

    Why it matters:
        A misread hand is how a pot goes to the wrong player; the joker read as a wild
        card is the classic case, and a table system that misreads it does so on every
        such hand.

    Example:
        ``Seat 3: shows [Kd Kc Jk 7s 2h] (three of a kind, kings)``: the joker is an
        ace here, so the hand is one pair of kings with an ace kicker; P404.

    Source:
        R-JK 2: "The joker may be used only as an ace, or to complete a straight, flush, or
        straight flush. (Thus it is not a completely wild card.)"
        R-JK 3: "If the joker is used to make a flush, it will be the highest card of the
        flush not present in the hand."
        R-JK 4: "Five aces is the best possible hand (four aces and joker)."
    """

    code = "P404"
    name = "hand-misread"
    severity = Severity.MAJOR
    source = "R-JK 2"
    summary = "A shown hand's recorded reading names another category than its cards make."

    def check(self, ctx: HandContext) -> Iterator[Result]:
        for a in ctx.record.actions:
            if a.verb is not Verb.SHOWS or a.reading is None or not a.cards:
                continue
            named = reading_category(a.reading)
            if named is None:
                continue
            if UNKNOWN_CARD in a.cards:
                yield ctx.unverifiable(f"seat {a.seat} shows unknown cards", seat=a.seat)
                continue
            value = strength(a.cards)
            if value is None or category(value) is named:
                continue
            actual = describe_strength(value)
            yield ctx.finding(
                f"seat {a.seat} shows [{' '.join(a.cards)}] read as {a.reading!r}, "
                f"but the cards make {actual}",
                action=a,
                evidence={"cards": list(a.cards), "reading": a.reading,
                          "named": named.value, "actual": category(value).value,
                          "actual_reading": actual},
            )
