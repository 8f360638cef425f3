"""O207 split-openers-not-declared."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from audit.facts.context import Batch, Result, cards_text
from audit.facts.view import HandView, hand_view
from audit.house import DiscardsSetAside
from audit.opening import holds_openers, openers_cards
from audit.replay.cards import known
from audit.rule import Rule
from audit.rules._openers import (
    YES,
    opener_rows,
    required,
)
from schemas.findings import Severity
from schemas.records import Verb


class SplitOpenersNotDeclared(Rule):
    """Flags an opener that broke its openers in the draw without ``splits openers``.

    What it does:
        For the opener (the declarer after a false opener) whose dealt cards were
        openers, takes the cards it kept in the draw (dealt less discards) and asks
        whether they still hold openers by themselves. If not, and the seat wrote no
        ``splits openers`` line, its discard line is flagged. Keeping openers is not
        splitting: throwing a card outside the openers is fine, breaking a straight
        while keeping ace–joker (a pair of aces) is fine; but breaking three sevens
        to a pair of sevens does split jacks-or-better openers. Unknown dealt cards
        or discards make the hand unverifiable. Only where the house sets discards
        aside when splitting: Foster's opener always puts his discard under the
        chips and announces nothing, and the laws have no splitting procedure.

    Why it matters:
        Without the discards set aside nobody can check afterwards that the opener
        really held openers; an undeclared split hides a possible false opener.

    Example:
        Seat 1 dealt ``[Jh Js 8h 5h 2h]`` opens, then ``Seat 1: discards [Js] draws
        [9h]`` with no ``splits openers``: O207 on the discard line. The R-JB 10
        hand ``[As Jk Ks Qs Tc]`` throwing ``Tc`` keeps ace–joker: no finding.

    Source:
        R-JB 9: "You may split openers, but you must declare that you are splitting and
        place all discards under a chip to be exposed by the dealer after the completion of
        the hand."
        R-JB 10: "You are not splitting openers if you retain openers. If you begin with the
        ace, joker, king, queen of spades, and the ten of clubs, you are not splitting if you
        throw the ten of clubs away."
        H-23.9: "Openers can be split, but only if you announce this and set discarded cards
        to one side so that the dealer can check them when the hand is complete."
        Foster: "All those who draw cards, except the opener, throw their discards into the
        centre of the table as usual; but the opener is obliged always to place his discard
        under the chips in the pool."
    """

    code = "O207"
    name = "split-openers-not-declared"
    severity = Severity.MAJOR
    source = "R-JB 9, R-JB 10, H-23.9, Foster"
    summary = "The opener discarded part of its openers without declaring a split."

    def check(self, ctx: Batch) -> Iterator[Result]:
        if ctx.profile.discards_set_aside is not DiscardsSetAside.WHEN_SPLITTING:
            return
        opener = opener_rows(ctx, ctx.hands.opener)
        s, safe = ctx.seats, np.maximum(opener, 0)
        doubtful = ((opener >= 0) & ctx.judged & ~s.split_openers[safe]
                    & (s.discards_count[safe] > 0) & (s.kept_openers[safe] != YES))
        for hand in np.flatnonzero(doubtful).tolist():
            yield from self._hand(ctx, hand_view(ctx, hand))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        seat = view.row.opener
        state = view.seats[seat]
        if state.split_openers:
            return
        draws = [a for a in view.lines if a.seat == seat and a.verb is Verb.DISCARDS]
        if not draws or not state.discards:
            return
        minimum, bobtail = required(view), ctx.profile.bobtail
        if self._kept_openers(state.shown, state.drawn + state.fifth, minimum, bobtail):
            return
        dealt = state.dealt_hand
        if dealt is None or not known(state.discards):
            yield ctx.unverifiable(view.hand, f"opener seat {seat}'s dealt cards or discards "
                                   "unrecorded", seat=seat)
            return
        try:
            openers = openers_cards(dealt, minimum, bobtail=bobtail)
        except ValueError:
            return
        kept = list(dealt)
        for card in state.discards:
            if card not in kept:
                return
            kept.remove(card)
        if openers is None or holds_openers(kept, minimum, bobtail=bobtail):
            return
        broken = [c for c in state.discards if c in openers] or list(state.discards)
        yield ctx.finding(
            view.hand,
            f"opener seat {seat} discarded {cards_text(broken)} of its openers "
            f"{cards_text(openers)} without declaring a split",
            action=draws[0].row,
            evidence={"dealt": list(dealt), "discards": list(state.discards),
                      "kept": kept, "openers_cards": list(openers), "broken": broken},
        )

    @staticmethod
    def _kept_openers(shown: tuple[str, ...] | None, drawn: tuple[str, ...], minimum: object,
                      bobtail: bool) -> bool:
        if shown is None:
            return False
        kept = list(shown)
        for card in drawn:
            if card not in kept:
                return False
            kept.remove(card)
        try:
            return known(kept) and holds_openers(kept, minimum, bobtail=bobtail)  # type: ignore[arg-type]
        except ValueError:
            return False
