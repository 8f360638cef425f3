"""Planters for the deal-sequence rules J501-J508: most change how the next deal is set up.

Most need a passed-out deal just before; while none is there, the plant waits for
one (Stage.PREPARE: the coming deal is played clean and kept if it passed out by itself).
"""

from __future__ import annotations

import random

from audit.house import FalseOpenerStyle, PassedOutButton, Profile
from openers.generator.plants.base import (
    Plant,
    SequenceContext,
    Stage,
    always,
    jacks_only,
    on_event,
)
from openers.generator.players import Player
from openers.generator.state import DealSetup, DealState, Forces, TableSettings
from schemas.records import Openers


def _anted_past_limit(setup: DealSetup, ctx: SequenceContext, profile: Profile,
                      rng: random.Random) -> Stage:
    """J501: the deal after the ante limit is anted anyway."""
    limit = profile.ante_limit
    assert limit is not None
    if setup.jackpot <= limit:
        return Stage.PREPARE
    setup.ante = ctx.base_ante
    return Stage.PLANT


def _pass_out_at_limit(table: TableSettings, profile: Profile, setup: DealSetup) -> Forces:
    """J501 needs ``ante_limit`` pass-outs in a row, which plain play seldom gives within
    the plant's patience: the deals up to the last of them pass out by themselves
    (:func:`~openers.generator.plants.base.pass_out`), the last one is made to (nobody
    opens). Only that deal holds passes no strategy made: one deal per J501 plant."""
    return Forces(no_open=setup.jackpot == profile.ante_limit)


def _button_wrong(setup: DealSetup, ctx: SequenceContext, profile: Profile,
                  rng: random.Random) -> Stage:
    """J502: after a passed-out deal the button does the opposite of the house's rule."""
    if not ctx.prev_passed_out or ctx.prev_button is None:
        return Stage.PREPARE
    occupied = sorted(setup.seats)
    if profile.passed_out_button is PassedOutButton.MOVES:
        if ctx.prev_button not in setup.seats:
            return Stage.WAIT
        setup.button = ctx.prev_button
    else:
        later = [s for s in occupied if s > ctx.prev_button]
        setup.button = later[0] if later else occupied[0]
    return Stage.PLANT if setup.button != ctx.button else Stage.WAIT


def _wrong_openers(setup: DealSetup, ctx: SequenceContext, profile: Profile,
                   rng: random.Random) -> Stage:
    """J503: the deal's Openers is not the house progression's."""
    choices = [o for o in (Openers.JJ, Openers.QQ, Openers.KK, Openers.AA) if o != setup.openers]
    setup.openers = rng.choice(choices)
    return Stage.PLANT


def _carried_wrong(setup: DealSetup, ctx: SequenceContext, profile: Profile,
                   rng: random.Random) -> Stage:
    """J504: Carried loses (or invents) one ante's worth of chips."""
    if not ctx.prev_passed_out:
        return Stage.PREPARE
    delta = max(ctx.base_ante, 100)
    setup.carried += -delta if setup.carried > delta else delta
    return Stage.PLANT


def _button_kept(occupied: set[int], ctx: SequenceContext, profile: Profile) -> bool:
    """Whether the house's button for the coming deal is the same with this seating."""
    if profile.passed_out_button is PassedOutButton.STAYS:
        return ctx.button in occupied
    prev = ctx.prev_button or 0
    later = sorted(s for s in occupied if s > prev)
    return (later[0] if later else min(occupied)) == ctx.button


def _empty_seats(setup: DealSetup, ctx: SequenceContext) -> list[int]:
    return [s for s in range(1, ctx.max_seats + 1) if s not in setup.seats]


def _moves_seat(setup: DealSetup, ctx: SequenceContext, profile: Profile,
                rng: random.Random) -> Stage:
    """J505: a player changes seat while antes are carried."""
    if not ctx.prev_passed_out:
        return Stage.PREPARE
    for seat in rng.sample(sorted(setup.seats), len(setup.seats)):
        for target in _empty_seats(setup, ctx):
            occupied = (set(setup.seats) - {seat}) | {target}
            if seat != ctx.button and _button_kept(occupied, ctx, profile):
                trial = dict(setup.seats)
                trial[target] = trial.pop(seat)
                setup.seats = dict(sorted(trial.items()))
                return Stage.PLANT
    return Stage.WAIT


def _joins(setup: DealSetup, ctx: SequenceContext, profile: Profile,
           rng: random.Random) -> Stage:
    """J506: a new player sits in while forfeited money is carried (antes alone are no
    bar: R-DH 11's newcomer may "pay the ante (whether single or multiple)")."""
    if not (ctx.prev_passed_out and ctx.prev_forfeited):
        return Stage.PREPARE
    if len(setup.seats) >= 8:
        return Stage.WAIT
    for target in _empty_seats(setup, ctx):
        if _button_kept(set(setup.seats) | {target}, ctx, profile):
            player = ctx.new_player()
            assert isinstance(player, Player)
            setup.seats = dict(sorted({**setup.seats, target: player}.items()))
            return Stage.PLANT
    return Stage.WAIT


def _anted(setup: DealSetup, ctx: SequenceContext, profile: Profile,
           rng: random.Random) -> Stage:
    """J507 needs an anted deal."""
    return Stage.PLANT if setup.ante > 0 else Stage.WAIT


def _forfeiting(table: TableSettings, profile: Profile, setup: DealSetup) -> Forces:
    """A clean deal that passes out with forfeited money: a seat abandons its hand and
    pays the house's penalty (kept if nobody then opens, as in
    :func:`~openers.generator.plants.base.pass_out`), or a false opener is ruled dead
    after one call and the pot is killed with its opening bet."""
    if profile.abandon_penalty:
        return Forces(abandon_paid=True)
    return Forces(false_opener=True, caught_false_opener="kill_right")


def _forfeited(st: DealState) -> bool:
    return st.draft.carried_out is not None and st.forfeits() and (
        "abandon_paid" in st.events or "kill_right" in st.events)


def _can_forfeit(table: TableSettings, profile: Profile) -> bool:
    """J506 needs forfeited money: an abandonment penalty, or a dead-hand-refund house."""
    return jacks_only(table, profile) and (
        bool(profile.abandon_penalty)
        or profile.false_opener is FalseOpenerStyle.DEAD_HAND_REFUND)


def _joined_and_won(st: DealState, rng: random.Random) -> tuple[str, ...] | None:
    """J506 on the deal the newcomer joins, if that deal's pot is won.

    R-DH 11 bars every hand he receives while the forfeited money is carried, so a
    deal that passed out again would make his next hand a second J506 this plant does
    not label: such a deal is replayed clean instead.
    """
    return ("J506",) if st.draft.carried_out is None else None


def _unproven_found(st: DealState, rng: random.Random) -> tuple[str, ...] | None:
    """J508: the unpaid penalty (this deal), or the pot not carried (the next deal)."""
    if "unproven_carried" in st.events or "unproven_pushed" in st.events:
        return ("J508",)
    return None


def _double_ante_house(table: TableSettings, profile: Profile) -> bool:
    return jacks_only(table, profile) and profile.unproven_opener_penalty_antes > 0


def _ante_limited(table: TableSettings, profile: Profile) -> bool:
    return profile.ante_limit is not None


PLANTS = (
    Plant("J501", Forces(), always("J501"), applies=_ante_limited, setup=_anted_past_limit,
          prepare=_pass_out_at_limit),
    Plant("J502", Forces(), always("J502"), setup=_button_wrong),
    Plant("J503", Forces(), always("J503"), applies=jacks_only, setup=_wrong_openers),
    Plant("J504", Forces(), always("J504"), setup=_carried_wrong),
    Plant("J505", Forces(), always("J505"), setup=_moves_seat),
    Plant("J506", Forces(), _joined_and_won, applies=_can_forfeit, setup=_joins,
          prepare=_forfeiting, prepared=_forfeited),
    Plant("J508", Forces(false_opener=True, unproven_at_showdown=True), _unproven_found,
          applies=_double_ante_house, next_event="unproven_pushed"),
    Plant("J507", Forces(skip_ante_seat=True), on_event("skip_ante_seat", "J507"),
          setup=_anted),
)
