"""D303 five-card-draw-dealt-wrongly."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import numpy.typing as npt

from audit.facts.context import Batch, IntArray, Result, cards_text
from audit.facts.view import HandView, Line, hand_view
from audit.rule import Rule
from audit.rules._deal import (
    DRAW_TURNS,
    RECEIVING,
    SEAT_KEY,
)
from schemas.findings import Severity
from schemas.records import Verb

MAX_AT_ONCE = 4


_LINES = 1 << 20  # a (hand, line) key: hand * _LINES + index


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

    def check(self, ctx: Batch) -> Iterator[Result]:
        a = ctx.actions
        receiving = ctx.rows(*RECEIVING)
        many = receiving[a.received_count[receiving] > MAX_AT_ONCE]
        fifth = ctx.rows(Verb.DRAWS_FIFTH)
        doubtful = np.concatenate((many, fifth[self._doubtful_fifths(ctx, fifth, receiving)]))
        for hand in np.unique(a.hand[doubtful]).tolist():
            yield from self._hand(ctx, hand_view(ctx, hand))

    @staticmethod
    def _doubtful_fifths(ctx: Batch, fifth: IntArray, receiving: IntArray
                         ) -> npt.NDArray[np.bool_]:
        """The fifth cards (rows ``fifth``) that may be early: a seat in the hand drew after
        it, or no burn came since the seat's last cards (``receiving``: the rows of the
        lines that hand out cards)."""
        a = ctx.actions

        def key(rows: IntArray) -> IntArray:  # a line's place in the batch, in log order
            return a.hand[rows].astype(np.int64) * _LINES + a.index[rows]

        turns = ctx.rows(*DRAW_TURNS)
        turns = turns[a.in_hand[turns]]
        last_turn = np.full(len(ctx), -1, dtype=np.int64)
        np.maximum.at(last_turn, a.hand[turns], a.index[turns])
        later = last_turn[a.hand[fifth]] > a.index[fifth]
        got = receiving[a.received_count[receiving] > 0]
        seat_key = (a.hand[got].astype(np.int64) * SEAT_KEY + a.seat[got]) * _LINES + a.index[got]
        order = np.argsort(seat_key)
        mine = (a.hand[fifth].astype(np.int64) * SEAT_KEY + a.seat[fifth]) * _LINES + a.index[fifth]
        at = np.searchsorted(seat_key[order], mine) - 1
        found = at >= 0
        previous = seat_key[order][np.maximum(at, 0)]
        found &= previous // _LINES == mine // _LINES
        burns = np.sort(key(ctx.rows(Verb.BURNS)))
        at_fifth = key(fifth)
        since = np.where(found, at_fifth - (mine - previous), at_fifth)
        burned = np.searchsorted(burns, at_fifth) - np.searchsorted(burns, since, side="right")
        # Another seat's cards in between keep the fifth apart as well as a burn.
        others = np.sort(key(got))
        between = np.searchsorted(others, at_fifth) - np.searchsorted(others, since,
                                                                     side="right")
        return later | (found & (burned == 0) & (between == 0))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        for a in view.lines_of(*RECEIVING):
            cards = a.received
            if len(cards) > MAX_AT_ONCE:
                yield ctx.finding(
                    view.hand,
                    f"seat {a.seat} was given {len(cards)} cards at once {cards_text(cards)}; "
                    f"at most {MAX_AT_ONCE} may be dealt in one go",
                    action=a.row, evidence={"cards": list(cards), "at_once": len(cards)},
                )
            elif a.verb is Verb.DRAWS_FIFTH:
                yield from self._fifth(ctx, view, a)

    def _fifth(self, ctx: Batch, view: HandView, fifth: Line) -> Iterator[Result]:
        lines = view.lines
        later = next((a for a in lines[fifth.index + 1:]
                      if a.verb in DRAW_TURNS and a.seat != fifth.seat and a.in_hand), None)
        evidence: dict[str, object] = {"fifth": list(fifth.cards or ())}
        if later is not None:
            evidence["later_draw"] = {"seat": later.seat, "line": later.line}
            yield ctx.finding(
                view.hand, f"seat {fifth.seat}'s fifth card was dealt before seat {later.seat} "
                f"drew (line {later.line})", action=fifth.row, evidence=evidence,
            )
            return
        four = next((a for a in reversed(lines[:fifth.index])
                     if a.seat == fifth.seat and a.received), None)
        if four is None:
            return
        between = lines[four.index + 1:fifth.index]
        if any(a.verb is Verb.BURNS or (a.received and a.seat != fifth.seat) for a in between):
            return
        evidence["four_cards_line"] = four.line
        yield ctx.finding(
            view.hand, f"seat {fifth.seat} drew last and got its fifth card "
            f"{cards_text(fifth.cards or ())} with no burn before it", action=fifth.row,
            evidence=evidence,
        )
