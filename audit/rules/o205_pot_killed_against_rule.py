"""O205 pot-killed-against-rule."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import numpy.typing as npt

from audit.facts.context import Batch, Result
from audit.facts.tables import Known
from audit.facts.view import HandView, hand_view
from audit.house import FalseOpenerStyle
from audit.rule import Rule
from audit.rules._openers import (
    PotQuestion,
    dead_rulings,
    false_openers,
    ineligible,
    may_be_complete,
    pot_question,
    rows_after,
)
from ingest.scan.layout import ACTOR_SEAT, SEC_BEFORE_DRAW, V
from schemas.findings import Severity
from schemas.records import Verb


class PotKilledAgainstRule(Rule):
    """Flags a pot killed that had to play, or played that had to be killed.

    What it does:
        When the floor rules the opener's hand dead before the draw (``false
        openers`` or ``fouled hand``), the pot must play if another seat raised,
        two or more seats called the opening bet, or the action before the draw was
        complete; otherwise it plays only if an eligible seat declares openers, and
        is killed (bets returned, ``Passed out: carried``) if none does. The table's
        outcome is a ``Floor: pot killed`` / ``Floor: pot plays`` line, else what
        happened (passed out, or play went on). The opposite of the rule is flagged
        on the ruling line, or where play went on. Under Foster's second way
        (``foster``) the others always play on, so any kill is flagged; under his
        third way the cards are dealt afresh, so play going on is flagged. A false
        opener found after the draw is not a pot-kill question, nor one that every
        other seat had already folded to.

    Why it matters:
        Killing a pot that others raised or called into takes away what they played
        for; playing one that nobody legally opened hands the antes to a pot that
        should have carried.

    Example:
        Seat 1 opens, seats 2 and 3 call, the floor rules seat 1 false openers and
        then ``Floor: pot killed``: O205 (two callers, the pot plays).

    Source:
        R-JB 4: "In all cases, the pot will play (even if the opener shows or declares a
        fouled hand) if there has been a raise, two or more players call the opening bet, or
        all action is completed before the draw."
        H-23.5: "If the opening player has a fouled hand, but a player has raised, the opening
        bet has been called by two or more others or all action before the draw is
        completed, the pot will be played."
        R-JB 2: "If no other player declares the pot open, all bets are returned except the
        opener's first bet."
        H-23.3: "Further to the previous rule, if no player declares the pot open, all players
        bets will be returned with the exception of the false opening bet."
        Foster: "Second. Those who have come into the pot after the false opening are allowed
        to stay in, and play for it, no matter what their hands are." (The foster profile's
        way; a house may choose his first or third.)
    """

    code = "O205"
    name = "pot-killed-against-rule"
    severity = Severity.CRITICAL
    source = "R-JB 4, H-23.5"
    summary = "After a false opener or fouled opener, the pot was killed or played wrongly."

    def check(self, ctx: Batch) -> Iterator[Result]:
        for hand in np.flatnonzero(self._candidates(ctx)).tolist():
            yield from self._hand(ctx, hand_view(ctx, hand))

    @staticmethod
    def _candidates(ctx: Batch) -> npt.NDArray[np.bool_]:
        """The hands with a dead opener before the draw whose pot may have gone the wrong
        way: it was not killed, or it was killed where it may have had to play."""
        a = ctx.actions
        ruling = dead_rulings(ctx)
        ruled = ruling >= 0
        if not ruled.any():
            return ruled
        plays = rows_after(ctx, ctx.rows(Verb.POT_PLAYS), ruling)
        killed = ruled & (rows_after(ctx, ctx.rows(Verb.POT_KILLED), ruling)
                          | (~plays & (ctx.hands.carried_out >= 0)))
        refund = ctx.profile.false_opener is FalseOpenerStyle.DEAD_HAND_REFUND
        fouled = a.verb[np.maximum(ruling, 0)] == V[Verb.FOULED_HAND]
        # A killed pot had to play on a raise or two calls since the opening, a complete
        # action, a declaration (or, in another style, always).
        opened = ctx.hands.action_start + np.maximum(ctx.hands.opens_index, 0)
        bets = ctx.rows(Verb.RAISES, Verb.CALLS)
        bets = bets[ruled[a.hand[bets]]]  # only the hands with a ruling can be candidates
        hand = a.hand[bets]
        others = bets[(a.actor[bets] == ACTOR_SEAT) & (a.section[bets] == SEC_BEFORE_DRAW)
                      & (a.seat[bets] != 0) & (a.seat[bets] != a.seat[ruling[hand]])
                      & (bets >= opened[hand]) & (bets < ruling[hand])]
        raised = np.zeros(len(ctx), dtype=bool)
        raised[a.hand[others[a.verb[others] == V[Verb.RAISES]]]] = True
        calls = np.bincount(a.hand[others[a.verb[others] == V[Verb.CALLS]]],
                            minlength=len(ctx))
        may_play = (raised | (calls >= 2) | may_be_complete(ctx, ruling)
                    | rows_after(ctx, ctx.rows(Verb.DECLARES_OPENERS), ruling)
                    | (not refund and ~fouled))
        return ruled & (~killed | may_play)

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        q = pot_question(view)
        if q is None or not q.others_in:
            return
        style = ctx.profile.false_opener if q.false_opener else FalseOpenerStyle.DEAD_HAND_REFUND
        declarer = self._eligible_declarer(view, ctx, q)
        if style is FalseOpenerStyle.DEAD_HAND_REFUND:
            must_play = q.must_play + ((f"seat {declarer} declared openers",) if declarer else ())
            not_play = ("nobody raised, fewer than two seats called, the action was open and "
                        "no eligible seat declared")
        elif style is FalseOpenerStyle.FORFEIT_PLAY_ON:
            must_play = ("the house plays on after a false opener (Foster's second way)",)
            not_play = ""
        elif style is FalseOpenerStyle.FORFEIT_REDEAL:
            must_play = ()
            not_play = "the house deals afresh after a false opener (Foster's third way)"
        else:
            return
        lines = view.lines
        evidence = {"ruled_seat": q.seat, "ruling_line": lines[q.ruling].line,
                    "reasons": list(must_play)}
        if must_play and q.killed:
            where = q.killed_line if q.killed_line is not None else q.ruling
            yield ctx.finding(
                view.hand,
                f"pot killed after seat {q.seat}'s dead hand although " + "; ".join(must_play),
                action=lines[where].row, seat=q.seat, lines=[lines[q.ruling].line],
                evidence=evidence,
            )
            return
        went_on = q.plays_line if q.plays_line is not None else q.played_at
        if not must_play and not q.killed and went_on is not None:
            yield ctx.finding(
                view.hand, f"pot played after seat {q.seat}'s dead hand although {not_play}",
                action=lines[went_on].row, seat=q.seat, lines=[lines[q.ruling].line],
                evidence=evidence,
            )

    @staticmethod
    def _eligible_declarer(view: HandView, ctx: Batch, q: PotQuestion) -> int | None:
        ruled = {s for _, s in false_openers(view)}
        for _, seat in q.declarations:
            if seat not in ruled and ineligible(view, ctx.profile, seat) is not Known.YES:
                return seat
        return None
