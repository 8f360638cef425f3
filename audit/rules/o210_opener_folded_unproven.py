"""O210 opener-folded-unproven."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from audit.facts.context import Batch, Result
from audit.facts.tables import Known
from audit.facts.view import HandView, hand_view
from audit.rule import Rule
from audit.rules._openers import (
    YES,
    false_openers,
    hands_of,
    openers_shown,
    opening_lines,
    required,
)
from ingest.scan.layout import ACTOR_SEAT
from schemas.findings import Severity
from schemas.records import Actor, Verb


class OpenerFoldedUnproven(Rule):
    """Flags an opener that gave up its hand without ever proving openers.

    What it does:
        For the seat that opened (and any seat that declared openers after a false
        opener), finds its ``folds`` line, before or after the draw, and looks for a
        proof anywhere in the hand: ``shows openers [..]`` of cards that are openers,
        or a ``shows`` whose kept cards plus discards are openers (the proof may come
        at the showdown, after the fold). None: the fold is flagged. An opener that
        reaches the showdown and loses (shows or mucks) owes no proof, and one the
        floor has ruled false openers is already caught (O201's question). A proof
        resting on ``??`` cards makes the hand unverifiable.

    Why it matters:
        An opener that throws its hand away unseen could have opened on nothing;
        the proof keeps the opening honest for everyone it drove out.

    Example:
        Seat 1 opens, seat 2 raises, ``Seat 1: folds`` and no ``Seat 1: shows
        openers`` follows in the hand: O210 on the fold.

    Source:
        Foster: "Should the opener be raised, and not care to see that raise, he must show
        his hand to the table before abandoning it, in order to demonstrate that he had
        openers."
        R-JB 3: "Any player who has legally declared the pot opened must prove openers in
        order to win the pot."
    """

    code = "O210"
    name = "opener-folded-unproven"
    severity = Severity.MAJOR
    source = "Foster, R-JB 3"
    summary = "The opener folded and never showed openers."

    def check(self, ctx: Batch) -> Iterator[Result]:
        a = ctx.actions
        folds = ctx.rows(Verb.FOLDS)
        folds = folds[a.actor[folds] == ACTOR_SEAT]
        hand = a.hand[folds]
        seat = ctx.seat_rows(hand, a.seat[folds])
        unproven = (seat >= 0) & (ctx.seats.proof[np.maximum(seat, 0)] != YES)
        by_opener = ((a.seat[folds] == ctx.hands.original_opener[hand])
                     & (a.index[folds] >= ctx.hands.opens_index[hand]))
        declared = hands_of(ctx, ctx.rows(Verb.DECLARES_OPENERS))
        doubtful = unproven & (by_opener | np.isin(hand, declared))
        for one in hands_of(ctx, folds[doubtful]).tolist():
            yield from self._hand(ctx, hand_view(ctx, one))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        ruled = {s for _, s in false_openers(view)}
        opened_at = {seat: index for index, seat in reversed(opening_lines(view))}
        minimum = required(view).value
        for a in view.lines:
            seat = a.seat
            if (a.verb is not Verb.FOLDS or a.actor is not Actor.SEAT or seat not in opened_at
                    or a.index < opened_at[seat] or seat in ruled):
                continue
            opened = view.lines[opened_at.pop(seat)]
            shown = view.seats[seat].proof
            if shown is Known.UNKNOWN:
                yield ctx.unverifiable(view.hand, f"opener seat {seat}'s proof has unrecorded "
                                       "cards", seat=seat)
            elif shown is Known.NO:
                yield ctx.finding(
                    view.hand, f"opener seat {seat} folded and never showed {minimum} or better",
                    action=a.row, lines=[opened.line], evidence={"openers": minimum,
                                            "openers_shown": openers_shown(view, seat)},
                )
