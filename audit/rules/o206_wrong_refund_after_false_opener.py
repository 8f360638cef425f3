"""O206 wrong-refund-after-false-opener."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import numpy.typing as npt

from audit.facts.context import Batch, Result, money
from audit.facts.view import HandView, hand_view
from audit.house import FalseOpenerStyle
from audit.rule import Rule
from audit.rules._openers import (
    WAGERS,
    PotQuestion,
    collections,
    dead_rulings,
    pot_question,
)
from ingest.scan.layout import V
from schemas.findings import Severity
from schemas.records import Actor, Verb


class WrongRefundAfterFalseOpener(Rule):
    """Flags a refund of the false opener's first bet, or a bet not refunded.

    What it does:
        After a ``false openers`` ruling before the draw, the false opener's first
        bet (the chips of its ``opens`` line) stays in the pot: a ``Dealer: returns``
        that gives any of it back is flagged on that line (where the house makes the
        false opener forfeit every chip, Foster, any return to it is flagged). When
        the pot is then killed (``Floor: pot killed``, or the deal passed out with no
        ``Floor: pot plays``), every other bet must come back, the false opener's
        raises included: seats left with bets in the pot are flagged, once, on the
        RESULT line, and a killed pot that is collected instead of ending ``Passed
        out: carried`` is flagged on the collection. Whether the pot should have been
        killed at all is O205's question.

    Why it matters:
        The callers of a false open did nothing wrong and get their money back; the
        false opener's first bet is its penalty, and returning it makes false
        opening free.

    Example:
        Seat 1 opens 10, seat 2 calls 10, the floor rules seat 1 false openers, the
        pot is killed and ``Dealer: returns 10 to Seat 1``: O206 on that line (and
        seat 2's call, not returned, is a second O206 on the RESULT line).

    Source:
        R-JB 2: "If no other player declares the pot open, all bets are returned except the
        opener's first bet. The first bet and antes will remain in the pot, and all players
        who were involved in that hand are entitled to play the next hand after anteing
        again."
        H-23.2: "The opening bet from the dead hand remains in the pot, though later bets may
        be taken back if the round of action prior to the draw has not already ended."
        H-23.3: "Further to the previous rule, if no player declares the pot open, all players
        bets will be returned with the exception of the false opening bet."
        Foster: "Should a player open a jack without the hand to justify it, and discover his
        error before he draws, the best usage demands that his hand is foul, and that he
        forfeits to the pool whatever amount he may have opened for, and any raises that he
        may have stood."
    """

    code = "O206"
    name = "wrong-refund-after-false-opener"
    severity = Severity.MAJOR
    source = "R-JB 2, H-23.2, H-23.3"
    summary = "After a false opener, its first bet was refunded or another bet was not."

    def check(self, ctx: Batch) -> Iterator[Result]:
        for hand in np.flatnonzero(self._candidates(ctx)).tolist():
            yield from self._hand(ctx, hand_view(ctx, hand))

    @staticmethod
    def _candidates(ctx: Batch) -> npt.NDArray[np.bool_]:
        """The hands with a false-openers ruling before the draw where money can have gone
        wrong: a return to the false opener, or a killed pot with bets left in or paid."""
        h, a, s = ctx.hands, ctx.actions, ctx.seats
        ruling = dead_rulings(ctx)
        ruled = ruling >= 0
        if not ruled.any():
            return ruled
        at = np.maximum(ruling, 0)
        false = ruled & (a.verb[at] == V[Verb.FALSE_OPENERS])
        seat = np.where(false, a.opener[at], 0)  # the false opener
        returns = ctx.rows(Verb.RETURNS)
        to_it = np.zeros(len(ctx), dtype=bool)
        to_it[a.hand[returns][a.seat[returns] == seat[a.hand[returns]]]] = True
        if ctx.profile.false_opener is not FalseOpenerStyle.DEAD_HAND_REFUND:
            return false & to_it
        killed = h.carried_out >= 0
        killed[a.hand[ctx.rows(Verb.POT_KILLED)]] = True
        opens = np.minimum(h.action_start + np.maximum(h.opens_index, 0), len(a) - 1)
        first_bet = a.chips[opens]
        left = s.total - s.ante - np.where(s.seat == seat[s.hand], first_bet[s.hand], 0)
        money_left = np.zeros(len(ctx), dtype=bool)
        money_left[s.hand[left > 0]] = True
        money_left[a.hand[ctx.rows(Verb.COLLECTS)]] = True
        return false & (to_it | (killed & money_left))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        q = pot_question(view)
        if q is None or not q.false_opener:
            return
        yield from self._returns(ctx, view, q)
        if ctx.profile.false_opener is FalseOpenerStyle.DEAD_HAND_REFUND and q.killed:
            yield from self._killed_pot(ctx, view, q)

    def _returns(self, ctx: Batch, view: HandView, q: PotQuestion) -> Iterator[Result]:
        first_bet = view.lines[max(view.row.opens_index, 0)].chips
        forfeits = ctx.profile.false_opener is not FalseOpenerStyle.DEAD_HAND_REFUND
        bets = 0
        for a in view.lines:
            if a.seat != q.seat:
                continue
            if (a.actor is Actor.SEAT and a.verb in WAGERS) or a.verb is Verb.WITHDRAWS:
                bets += a.chips
            elif a.verb is Verb.RETURNS:
                bets += a.chips
                if forfeits and a.index > q.ruling:
                    why = "a false opener forfeits every chip it put in"
                elif bets < first_bet:
                    why = f"its first bet of {money(first_bet)} stays in the pot"
                else:
                    continue
                yield ctx.finding(
                    view.hand, f"{money(-a.chips)} returned to false opener seat {q.seat}: {why}",
                    action=a.row,
                    evidence={"returned_cents": -a.chips, "first_bet_cents": first_bet,
                              "bets_left_cents": bets},
                )

    def _killed_pot(self, ctx: Batch, view: HandView, q: PotQuestion) -> Iterator[Result]:
        first_bet = view.lines[max(view.row.opens_index, 0)].chips
        kept = {
            n: left for n in view.order
            if (left := view.seats[n].total - view.seats[n].ante
                - (first_bet if n == q.seat else 0)) > 0
        }
        if kept:
            parts = [f"seat {n} {money(left)}" + (" beyond its first bet" if n == q.seat else "")
                     for n, left in kept.items()]
            yield ctx.finding(
                view.hand,
                f"pot killed after seat {q.seat}'s false openers but bets were not returned: "
                + ", ".join(parts),
                seat=next(iter(kept)), line=view.result_line,
                evidence={"not_returned_cents": {str(n): left for n, left in kept.items()},
                          "false_opener": q.seat, "first_bet_cents": first_bet},
            )
        paid = next(((i, s, x) for i, s, x, _ in collections(view) if x > 0), None)
        if paid is not None and view.row.carried_out < 0:
            i, s, amount = paid
            yield ctx.finding(
                view.hand,
                f"pot killed after seat {q.seat}'s false openers but seat {s} collected "
                f"{money(amount)}; the antes and first bet carry to the next deal",
                action=view.lines[i].row,
                evidence={"collected_cents": amount, "false_opener": q.seat},
            )
