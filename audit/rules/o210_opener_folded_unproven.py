"""O210 opener-folded-unproven."""

from __future__ import annotations

from collections.abc import Iterator

from audit.rule import HandContext, Result, Rule
from audit.rules._openers import Known, judged, opening_lines, proof
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

    def check(self, ctx: HandContext) -> Iterator[Result]:
        if not judged(ctx):
            return
        replay = ctx.replay
        # A seat the floor ruled false openers is caught already (O201's question).
        ruled = {s for _, s in replay.false_openers}
        opened_at = {seat: index for index, seat in reversed(opening_lines(replay))}
        for a in ctx.record.actions:
            seat = a.seat
            if (a.verb is not Verb.FOLDS or a.actor is not Actor.SEAT or seat not in opened_at
                    or a.index < opened_at[seat] or seat in ruled):
                continue
            opened_line = ctx.record.actions[opened_at.pop(seat)].line
            # (a seat gives up once; a second fold is B104's question)
            shown = proof(ctx, seat)
            if shown is Known.UNKNOWN:
                yield ctx.unverifiable(f"opener seat {seat}'s proof has unrecorded cards",
                                       seat=seat)
            elif shown is Known.NO:
                yield ctx.finding(
                    f"opener seat {seat} folded and never showed "
                    f"{ctx.openers_required.value} or better",
                    action=a, lines=[opened_line],
                    evidence={"openers": ctx.openers_required.value,
                                        "openers_shown": [list(c) for c in
                                                          replay.seats[seat].openers_shown]},
                )
