"""B101-B108 over the fact tables (scratch: moves into audit/rules/ with the migration)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from audit.facts.context import Batch, Result, money, verb_name
from audit.facts.ported._meta import like
from audit.facts.rule import Rule
from audit.facts.tables import SeatStatus
from audit.rules import (
    b101_over_cap_raise,
    b102_wrong_bet_size,
    b103_action_out_of_turn,
    b104_action_not_in_hand,
    b105_inconsistent_call_or_raise,
    b106_draw_before_stakes_equal,
    b107_short_call_all_in_opener,
    b108_bet_before_open,
)
from ingest.scan.layout import (
    ACTOR_SEAT,
    GAME_JACKS_OR_BETTER,
    SEC_BEFORE_DRAW,
    V_BETS,
    V_CALLS,
    V_OPENS,
    V_RAISES,
    V,
)
from schemas.records import Verb


@like(b101_over_cap_raise.OverCapRaise)
class OverCapRaise(Rule):
    def check(self, ctx: Batch) -> Iterator[Result]:
        cap = ctx.profile.cap_raises
        if cap is None:
            return
        limit = cap + 1
        a = ctx.actions
        raising = (a.verb == V_OPENS) | (a.verb == V_BETS) | (a.verb == V_RAISES)
        flagged = (a.betting & raising & (a.level_after > limit) & (a.level_after > a.level)
                   & ((a.multi_level >= limit) | (a.contenders >= 3)))
        for r in np.flatnonzero(flagged).tolist():
            row = ctx.action(r)
            yield ctx.finding(
                row.hand,
                f"seat {row.seat} made bet number {row.level_after} of the round "
                f"(cap: a bet and {cap} raises) with {row.contenders} seats able to bet",
                action=r,
                evidence={"bets": row.level_after, "cap": limit,
                          "contenders": row.contenders, "level_before": row.level},
            )


@like(b102_wrong_bet_size.WrongBetSize)
class WrongBetSize(Rule):
    def check(self, ctx: Batch) -> Iterator[Result]:
        a = ctx.actions
        verb, unit, bet = a.verb, a.unit, a.current_bet
        amount = np.maximum(a.amount, 0)
        all_in = a.says_all_in
        opens = (verb == V_OPENS) & (bet == 0)
        bets = (verb == V_BETS) & (bet == 0)
        closed = (verb == V_RAISES) & ~a.may_raise & ~opens & ~bets
        increase = np.where(verb == V_RAISES, amount, a.stake + a.chips - bet)
        ok = np.where(
            opens, (amount == unit) | (amount == 2 * unit) | (all_in & (amount < 2 * unit)),
            np.where(bets, (amount == unit) | (all_in & (amount < unit)),
                     ~closed & ((increase == unit) | (all_in & (increase < unit)))))
        sized = (verb == V_OPENS) | (verb == V_BETS) | (verb == V_RAISES)
        for r in np.flatnonzero(a.betting & sized & ~ok).tolist():
            row = ctx.action(r)
            unit_r, amount_r = row.unit, max(row.amount, 0)
            if row.verb == V_OPENS and row.current_bet == 0:
                what = (f"opened for {money(amount_r)}; an open is {money(unit_r)} or "
                        f"{money(2 * unit_r)}")
            elif row.verb == V_BETS and row.current_bet == 0:
                what = f"bet {money(amount_r)}; a bet is {money(unit_r)}"
            elif row.verb == V_RAISES and not row.may_raise:
                what = ("raised after an all-in raise of less than half a unit, which did not "
                        "reopen the betting for a seat that had already acted")
            else:
                raised = int(increase[r])
                what = f"raised by {money(raised)}; a raise is {money(unit_r)}"
            yield ctx.finding(
                row.hand, f"seat {row.seat} {what}", action=r,
                evidence={"amount": amount_r, "unit": unit_r, "current_bet": row.current_bet,
                          "all_in": row.says_all_in, "street": row.street},
            )


@like(b103_action_out_of_turn.ActionOutOfTurn)
class ActionOutOfTurn(Rule):
    def check(self, ctx: Batch) -> Iterator[Result]:
        a = ctx.actions
        flagged = a.betting & ~a.in_turn & (a.turn != 0) & a.in_hand & ~a.all_in
        for r in np.flatnonzero(flagged).tolist():
            row = ctx.action(r)
            verb = verb_name(row.verb)
            yield ctx.finding(
                row.hand, f"seat {row.seat} {verb} while it was seat {row.turn}'s turn",
                action=r, evidence={"turn": row.turn, "verb": verb},
            )


_IN_HAND_ONLY = tuple(V[v] for v in (
    Verb.CHECKS, Verb.OPENS, Verb.BETS, Verb.CALLS, Verb.RAISES,
    Verb.DISCARDS, Verb.STANDS_PAT, Verb.DRAWS_FIFTH, Verb.COLLECTS))
_NOT_ALL_IN = tuple(V[v] for v in (Verb.BETS, Verb.CALLS, Verb.RAISES))
_WHY = {SeatStatus.UNSEATED: "is not seated", SeatStatus.NOT_DEALT: "was never dealt in",
        SeatStatus.DEAD: "is dead", SeatStatus.FOLDED: "had folded"}


@like(b104_action_not_in_hand.ActionNotInHand)
class ActionNotInHand(Rule):
    def check(self, ctx: Batch) -> Iterator[Result]:
        a = ctx.actions
        candidates = (a.actor == ACTOR_SEAT) & np.isin(a.verb, _IN_HAND_ONLY)
        candidates &= ~((a.verb == V[Verb.COLLECTS]) & (ctx.hands.misdeal_index[a.hand] >= 0))
        out = ~a.in_hand
        flagged = candidates & (out | (a.all_in & np.isin(a.verb, _NOT_ALL_IN)))
        for r in np.flatnonzero(flagged).tolist():
            row = ctx.action(r)
            verb = verb_name(row.verb)
            if out[r]:
                why = _WHY[SeatStatus(row.status)]
                yield ctx.finding(row.hand, f"seat {row.seat} {verb} but {why}", action=r,
                                  evidence={"verb": verb, "reason": why})
            else:
                yield ctx.finding(row.hand, f"seat {row.seat} {verb} although already all-in",
                                  action=r, evidence={"verb": verb, "reason": "all-in"})


@like(b105_inconsistent_call_or_raise.InconsistentCallOrRaise)
class InconsistentCallOrRaise(Rule):
    def check(self, ctx: Batch) -> Iterator[Result]:
        a = ctx.actions
        amount = np.maximum(a.amount, 0)
        owed = a.current_bet - a.stake
        calls = a.betting & (a.verb == V_CALLS)
        good_call = ((amount == owed) & (owed > 0)) | (a.says_all_in & (amount > 0)
                                                       & (amount < owed))
        raises = a.betting & (a.verb == V_RAISES)
        bad_raise = (a.to_amount >= 0) & (a.to_amount != a.current_bet + amount)
        for r in np.flatnonzero((calls & ~good_call) | (raises & bad_raise)).tolist():
            row = ctx.action(r)
            paid, bet, stake = max(row.amount, 0), row.current_bet, row.stake
            evidence: dict[str, object] = {"amount": paid, "current_bet": bet, "stake": stake}
            if row.verb == V_CALLS:
                evidence["owed"] = bet - stake
                yield ctx.finding(
                    row.hand,
                    f"seat {row.seat} calls {money(paid)} but owed {money(max(bet - stake, 0))} "
                    f"(bet {money(bet)}, in {money(stake)})",
                    action=r, evidence=evidence,
                )
            else:
                evidence["to"] = row.to_amount
                yield ctx.finding(
                    row.hand,
                    f"seat {row.seat} raises {money(paid)} to {money(row.to_amount)} over a bet "
                    f"of {money(bet)} (should be to {money(bet + paid)})",
                    action=r, evidence=evidence,
                )


@like(b106_draw_before_stakes_equal.DrawBeforeStakesEqual)
class DrawBeforeStakesEqual(Rule):
    def check(self, ctx: Batch) -> Iterator[Result]:
        s = ctx.seats
        short = np.flatnonzero(s.short_at_draw & (ctx.hands.draw_index[s.hand] >= 0))
        # In each hand, clockwise from the first seat left of the button.
        short = short[np.lexsort((s.position[short], s.hand[short]))]
        for r in short.tolist():
            seat = ctx.seat(r)
            first = ctx.action_row(seat.hand, int(ctx.hands.draw_index[seat.hand]))
            yield ctx.finding(
                seat.hand,
                f"the draw began with seat {seat.seat} at {money(seat.stake_at_draw)} of a "
                f"{money(seat.bet_at_draw)} bet",
                action=first, seat=seat.seat,
                evidence={"stake": seat.stake_at_draw, "current_bet": seat.bet_at_draw},
            )


@like(b107_short_call_all_in_opener.ShortCallAllInOpener)
class ShortCallAllInOpener(Rule):
    def check(self, ctx: Batch) -> Iterator[Result]:
        a = ctx.actions
        called = a.stake + np.maximum(a.amount, 0)
        flagged = (a.betting & (a.verb == V_CALLS) & (a.street == 1) & ~a.says_all_in
                   & ctx.hands.opened_all_in[a.hand] & (called < a.unit))
        for r in np.flatnonzero(flagged).tolist():
            row = ctx.action(r)
            total = int(called[r])
            yield ctx.finding(
                row.hand,
                f"seat {row.seat} called {money(total)} behind an opener all-in for the "
                f"antes; the opening bet is {money(row.unit)}",
                action=r, evidence={"called": total, "unit": row.unit,
                                    "opener": int(ctx.hands.original_opener[row.hand])},
            )


@like(b108_bet_before_open.BetBeforeOpen)
class BetBeforeOpen(Rule):
    def check(self, ctx: Batch) -> Iterator[Result]:
        a = ctx.actions
        flagged = ((ctx.hands.game[a.hand] == GAME_JACKS_OR_BETTER) & (a.actor == ACTOR_SEAT)
                   & (a.section == SEC_BEFORE_DRAW)
                   & ((a.verb == V_BETS) | ((a.verb == V_RAISES) & ~a.pot_open)))
        for r in np.flatnonzero(flagged).tolist():
            row = ctx.action(r)
            verb = verb_name(row.verb)
            yield ctx.finding(
                row.hand,
                f"seat {row.seat} {verb} {money(max(row.amount, 0))} before the draw "
                "without opening the pot",
                action=r, evidence={"verb": verb, "pot_open": row.pot_open},
            )


RULES = (OverCapRaise, WrongBetSize, ActionOutOfTurn, ActionNotInHand, InconsistentCallOrRaise,
         DrawBeforeStakesEqual, ShortCallAllInOpener, BetBeforeOpen)
