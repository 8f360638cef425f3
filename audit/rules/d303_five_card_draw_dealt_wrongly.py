"""D303 five-card-draw-dealt-wrongly."""

from __future__ import annotations

from collections.abc import Iterator

from audit.rule import HandContext, Result, Rule
from audit.rules._draw import DRAW_TURNS, cards_text, received
from schemas.findings import Severity
from schemas.records import Action, HandRecord, Verb

#: The most cards a seat may be given in one go (R-DH 5).
MAX_AT_ONCE = 4


class FiveCardDrawDealtWrongly(Rule):
    """Flags a five-card draw dealt against R-DH 5: all at once, too early, or without a burn.

    What it does:
        A line of the draw (or later) that gives a seat more than four cards at
        once is flagged. A ``draws fifth`` line is flagged when another seat still
        takes its turn in the draw (discards or stands pat) after it, or, when the
        seat drew last, when no burn came between its four cards and its fifth:
        nothing else left the deck in between (another seat's cards or a burn), so
        the fifth card is the one the seat would have had at once. With two
        five-card draws the other seat's fifth card separates them, so no burn is
        needed (the format spec's "Drawing five"). One finding per line.

    Why it matters:
        Five consecutive cards off the top let a player (or a dealer who knows the
        deck) pick the five cards; the procedure keeps the fifth card apart.

    Example:
        Seat 6 discards five and draws four; seat 6 drew last; ``Seat 6: draws fifth
        [9h]`` follows with no ``Dealer: burns``: D303 at the ``draws fifth`` line.

    Source:
        R-DH 5: "A player may draw up to four consecutive cards. If a player wishes to
        draw five new cards, four are dealt right away, and the fifth card after everyone
        else has drawn cards. If the last player wishes to draw five new cards, four are
        dealt right away, and a card is burned before the player receives a fifth card."
    """

    code = "D303"
    name = "five-card-draw-dealt-wrongly"
    severity = Severity.MINOR
    source = "R-DH 5"
    summary = "A five-card draw was dealt at once, before others drew, or without a burn."

    def check(self, ctx: HandContext) -> Iterator[Result]:
        record = ctx.record
        # Only these verbs give cards off the deck (``received``) or are a fifth card.
        for a in ctx.actions_of(Verb.DISCARDS, Verb.DRAWS_FIFTH, Verb.DEALS):
            cards = received(a)
            if len(cards) > MAX_AT_ONCE:
                yield ctx.finding(
                    f"seat {a.seat} was given {len(cards)} cards at once {cards_text(cards)}; "
                    f"at most {MAX_AT_ONCE} may be dealt in one go",
                    action=a, evidence={"cards": list(cards), "at_once": len(cards)},
                )
            elif a.verb is Verb.DRAWS_FIFTH:
                yield from self._fifth(ctx, record, a)

    def _fifth(self, ctx: HandContext, record: HandRecord, fifth: Action) -> Iterator[Result]:
        steps = ctx.replay.steps
        # A seat out of the hand that draws is B104's; it does not make the fifth early.
        later = next((a for a in record.actions[fifth.index + 1:]
                      if a.verb in DRAW_TURNS and a.seat != fifth.seat
                      and steps[a.index].in_hand), None)
        evidence: dict[str, object] = {"fifth": list(fifth.cards or ())}
        if later is not None:
            evidence["later_draw"] = {"seat": later.seat, "line": later.line}
            yield ctx.finding(
                f"seat {fifth.seat}'s fifth card was dealt before seat {later.seat} drew "
                f"(line {later.line})", action=fifth, evidence=evidence,
            )
            return
        four = next((a for a in reversed(record.actions[:fifth.index])
                     if a.seat == fifth.seat and received(a)), None)
        if four is None:
            return  # no earlier cards to keep apart; the count is D305's
        between = record.actions[four.index + 1:fifth.index]
        if any(a.verb is Verb.BURNS or (received(a) and a.seat != fifth.seat) for a in between):
            return
        evidence["four_cards_line"] = four.line
        yield ctx.finding(
            f"seat {fifth.seat} drew last and got its fifth card {cards_text(fifth.cards or ())} "
            f"with no burn before it", action=fifth, evidence=evidence,
        )
