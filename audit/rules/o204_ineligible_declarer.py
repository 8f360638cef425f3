"""O204 ineligible-declarer."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from audit.facts.context import Batch, Result
from audit.facts.tables import Known
from audit.facts.view import HandView, hand_view
from audit.rule import Rule
from audit.rules._openers import (
    dealt_text,
    declarations,
    false_openers,
    hands_of,
    ineligible,
    required,
)
from schemas.findings import Severity
from schemas.records import Verb


class IneligibleDeclarer(Rule):
    """Flags a declaration of openers by a seat that had passed with openers.

    What it does:
        After a ``Floor: Seat N false openers`` ruling, a seat may declare the pot
        open with its own openers. A ``declares openers`` by a seat that checked
        before the pot was opened, holding openers then (its dealt cards, or the
        openers it later shows), is flagged on the declaration. Where the house
        follows H-23.2 (``house23``: any other active seat may declare) or settles
        false openers Foster's way, nothing is flagged. A seat that passed without
        openers and declares is a false declarer (O201), not this rule. The pot such
        a declaration let play is not reported again as O205.

    Why it matters:
        A seat that sandbagged its openers would get a second chance to open once it
        has watched the betting; the rule takes that option away.

    Example:
        Seat 1 dealt ``[Kd Kc 7s 4h 2d]`` checks, seat 2 opens, the floor rules seat 2
        false openers, ``Seat 1: declares openers``: O204 on that line.

    Source:
        R-JB 2: "If the opener should show false openers before the draw, any other
        active player has the opportunity to declare the pot opened. However, any player who
        originally passed openers is not eligible to declare the pot open."
        H-23.2: "Should an opening player show false opening cards, his hand will be declared
        dead and any other active player may open." (The ``passed_openers_may_declare`` knob:
        house23 lets a seat that passed declare; robert and laws do not.)
    """

    code = "O204"
    name = "ineligible-declarer"
    severity = Severity.MAJOR
    source = "R-JB 2"
    summary = "After a false opener, a seat that had passed with openers declared."

    def check(self, ctx: Batch) -> Iterator[Result]:
        declared = hands_of(ctx, ctx.rows(Verb.DECLARES_OPENERS))
        ruled = hands_of(ctx, ctx.rows(Verb.FALSE_OPENERS))
        for hand in np.intersect1d(declared, ruled).tolist():
            yield from self._hand(ctx, hand_view(ctx, hand))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        rulings = false_openers(view)
        for index, seat in declarations(view):
            if not any(i < index for i, _ in rulings):
                continue
            verdict = ineligible(view, ctx.profile, seat)
            if verdict is Known.UNKNOWN:
                yield ctx.unverifiable(
                    view.hand, f"seat {seat} passed and declared openers with unrecorded cards",
                    seat=seat)
            elif verdict is Known.YES:
                yield ctx.finding(
                    view.hand,
                    f"seat {seat} passed with openers (dealt {dealt_text(view, seat)}) "
                    "and may not declare the pot open after a false opener",
                    action=view.lines[index].row,
                    evidence={"dealt": list(view.seats[seat].dealt_hand or ()),
                              "openers": required(view).value},
                )
