"""The planter contract: how one rule code is planted into a deal (or a deal sequence).

A :class:`Plant` may change the deal's setup (sequence codes: the button, the
openers, the seats), ask the simulation for :class:`~openers.generator.state.Forces`,
and edit the finished draft. ``finish`` returns the codes a correct audit must
report for the deal, or ``None`` when the situation did not arise (the table then
replays the deal clean and tries again on a later deal).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from audit.house import Profile
from openers.generator.state import DealSetup, DealState, Forces, TableSettings
from schemas.records import Game


class Stage(Enum):
    """What a plant does with the coming deal."""

    PLANT = "plant"  # this deal receives the violation
    PREPARE = "prepare"  # this deal is forced into a situation (clean), the next one plants
    WAIT = "wait"  # not now (play clean)


@dataclass(frozen=True, slots=True)
class SequenceContext:
    """What the table knows about the previous deal when setting up the next one."""

    prev_passed_out: bool
    #: The previous deal left forfeited money (a false opener's chips, a penalty) in the
    #: carried pot: R-DH 11 (the audit sees one deal back, so the plant needs it there).
    prev_forfeited: bool
    prev_button: int | None
    prev_carried_out: int
    #: Button the house's rules give the coming deal.
    button: int
    occupied_before: tuple[int, ...]
    max_seats: int
    #: The table's ante on a normal deal.
    base_ante: int
    new_player: Callable[[], object]


Applies = Callable[[TableSettings, Profile], bool]
Setup = Callable[[DealSetup, SequenceContext, Profile, random.Random], Stage]
Finish = Callable[[DealState, random.Random], "tuple[str, ...] | None"]
Prepare = Callable[[TableSettings, Profile, DealSetup], Forces]
Prepared = Callable[[DealState], bool]


def jacks_only(table: TableSettings, profile: Profile) -> bool:
    """Rules about openers need a Jacks-or-Better table."""
    return table.game is Game.JACKS_OR_BETTER


def any_table(table: TableSettings, profile: Profile) -> bool:
    """The code can be planted at any table."""
    return True


def pass_out(table: TableSettings, profile: Profile, setup: DealSetup) -> Forces:
    """Default preparation: nothing forced; the plant waits for a deal that passes out by
    itself (nobody holds openers, or whoever does passes by his own strategy).

    Forcing ``no_open`` would make every player with openers pass the same deal, in runs
    of deals while a plant waits: passes no real player makes, which the collusion tests
    (C206) rightly read as players passing when certain others sit behind them.
    """
    return Forces()


def passed_out(st: DealState) -> bool:
    """Default check of a prepared deal: it passed out."""
    return st.draft.carried_out is not None


def plant_now(setup: DealSetup, ctx: SequenceContext, profile: Profile,
              rng: random.Random) -> Stage:
    """Default setup: plant on the coming deal, changing nothing."""
    return Stage.PLANT


@dataclass(frozen=True, slots=True)
class Plant:
    """How to plant ``code``; ``labels`` are the codes the planted deal must report."""

    code: str
    forces: Forces
    finish: Finish
    applies: Applies = any_table
    setup: Setup = plant_now
    #: The codes belong to the next deal of the table (a J rule judging what followed) ...
    labels_next: bool = False
    #: ... or do when the simulation reports this event.
    next_event: str = ""
    #: What a Stage.PREPARE deal is asked (clean play) ...
    prepare: Prepare = pass_out
    #: ... and whether it came out as the plant needs (else it is replayed plain).
    prepared: Prepared = passed_out


def on_event(event: str, *codes: str) -> Finish:
    """A finish that labels ``codes`` when the simulation reports ``event``."""

    def finish(st: DealState, rng: random.Random) -> tuple[str, ...] | None:
        return codes if event in st.events else None

    return finish


def always(*codes: str) -> Finish:
    """A finish that labels ``codes`` whatever happened (the setup was the violation)."""

    def finish(st: DealState, rng: random.Random) -> tuple[str, ...] | None:
        return codes

    return finish
