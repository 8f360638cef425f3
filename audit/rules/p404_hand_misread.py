"""P404 hand-misread."""

from __future__ import annotations

from collections.abc import Iterator

from audit.evaluator import HandCategory, category, describe_strength
from audit.facts.context import Batch, Result
from audit.facts.tables import UNKNOWN
from audit.rule import Rule
from schemas.findings import Severity
from schemas.records import Verb

_CATEGORY = tuple(HandCategory)


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

    def check(self, ctx: Batch) -> Iterator[Result]:
        a = ctx.actions
        rows = ctx.rows(Verb.SHOWS)
        rows = rows[(a.reading[rows] >= 0) & (a.cards_count[rows] > 0)]
        value = a.strength[rows]
        unknown = value == UNKNOWN
        wrong = (value >= 0) & ((value >> 20) != a.reading[rows])
        for r in rows[unknown | wrong].tolist():
            row = ctx.action(r)
            if row.strength == UNKNOWN:
                yield ctx.unverifiable(row.hand, f"seat {row.seat} shows unknown cards",
                                       seat=row.seat)
                continue
            cards = ctx.line_cards(r) or ()
            reading = ctx.labels.reading(row.hand, row.index)
            named = _CATEGORY[row.reading]
            actual = describe_strength(row.strength)
            yield ctx.finding(
                row.hand,
                f"seat {row.seat} shows [{' '.join(cards)}] read as {reading!r}, "
                f"but the cards make {actual}",
                action=r,
                evidence={"cards": list(cards), "reading": reading, "named": named.value,
                          "actual": category(row.strength).value, "actual_reading": actual},
            )
