"""The state of one deal in simulation: table settings, seats, and plant forces."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from audit.house import Profile
from openers.generator.draft import Draft
from openers.generator.players import Player
from openers.generator.strategy import Choice
from schemas.records import Game, Openers, Section


@dataclass(frozen=True, slots=True)
class TableSettings:
    """What stays the same at a table all day."""

    table_id: str
    room: str
    game: Game
    small: int
    big: int
    ante: int
    joker: bool
    #: Rake: percent of an opened pot, capped (0 = no rake at this table).
    rake_percent: int
    rake_cap: int
    #: The table system records a reading beside each shown hand.
    readings: bool
    #: Seat positions at the table (players sit in 1..max_seats).
    max_seats: int


@dataclass(slots=True)
class DealSetup:
    """What the table hands to one deal."""

    hand_id: str
    time: datetime
    dealer_id: str
    button: int
    jackpot: int
    openers: Openers
    carried: int
    ante: int
    seats: dict[int, Player]


@dataclass(slots=True)
class Forces:
    """Deviations a planter asks of the simulation (all off for clean play).

    Each names the one thing the simulation does differently; the planter checks
    afterwards (``events``) that the situation arose, else the deal is replayed clean.
    """

    #: Nobody opens: players with openers pass. Passes no player's strategy made, so
    #: only for J501's last pass-out before the ante limit (see plants/sequence.py).
    no_open: bool = False
    #: With ``false_opener``: the floor finds it at the showdown and either carries the pot
    #: without the penalty (J508 on that deal) or takes the penalty and pays the pot to
    #: another hand (J508 on the next deal).
    unproven_at_showdown: bool = False
    #: With ``false_opener``: how the floor rules on it before the draw (see falseopen.py).
    caught_false_opener: str = ""
    #: A seat with openers is left all-in for the ante; it opens 0, a caller calls short.
    all_in_opener: bool = False
    #: The seat dealt the best hand has only the ante and one small bet (side pots, P403).
    short_stack_best: bool = False
    skip_ante_seat: bool = False
    over_cap: bool = False
    wrong_bet_size: bool = False
    short_call: bool = False
    skip_closing_call: bool = False
    false_opener: bool = False
    false_opener_splits: bool = False
    opener_wins_alone: bool = False
    opener_withdraws: bool = False
    opener_folds_after_draw: bool = False
    opener_breaks_openers: bool = False
    fold_before_open: bool = False
    #: A seat without openers throws its hand away before the pot is open and pays the
    #: house's abandonment penalty (clean play: forfeited money for J506's plant).
    abandon_paid: bool = False
    refund_weak_caller: bool = False
    short_draw: bool = False
    #: With ``short_draw``: the short seat plays on unruled (D302) instead of being ruled fouled.
    short_draw_played: bool = False
    five_at_once: bool = False
    expose_and_give: bool = False
    record_burn: bool = False
    record_readings: bool = False


@dataclass(slots=True)
class SeatState:
    """One seat during a deal."""

    seat: int
    player: Player
    stack: int
    hand: list[str] = field(default_factory=list)
    dealt: tuple[str, ...] = ()
    #: Chips in the pot this deal (antes and bets, less withdrawals and returns).
    total: int = 0
    round_bet: int = 0
    folded: bool = False
    dead: bool = False
    all_in: bool = False
    acted: bool = False
    discards: tuple[str, ...] = ()
    drawn: tuple[str, ...] = ()

    @property
    def in_hand(self) -> bool:
        """Still contesting the pot."""
        return not self.folded and not self.dead

    @property
    def can_act(self) -> bool:
        """Still has betting decisions to make."""
        return not self.folded and not self.dead and not self.all_in


@dataclass(slots=True)
class DealState:
    """Everything a deal's steps share."""

    table: TableSettings
    profile: Profile
    setup: DealSetup
    forces: Forces
    draft: Draft
    seats: list[SeatState]
    deck: list[str]
    deck_pos: int = 0
    opener: int | None = None
    #: What actually happened of what the forces asked (planters check these).
    events: set[str] = field(default_factory=set)
    #: Penalties and carried chips: in the main pot, nobody's contribution.
    dead_money: int = 0
    #: Seats that passed with openers before the pot was opened.
    passed_with_openers: set[int] = field(default_factory=set)
    #: Seats that called the opener's bet after the draw.
    after_draw_callers: set[int] = field(default_factory=set)
    #: Seat of a false opener (forced), if any.
    false_opener: int | None = None
    #: Seat that declared openers after the false opener was ruled, if any.
    declarer: int | None = None
    #: The floor killed the pot after a false opener.
    killed: bool = False
    #: Seat that went to the draw without matching the bet (forced), if any.
    unmatched: int | None = None
    #: Seat that called short after the draw (forced), if any.
    short_caller: int | None = None
    #: Seat whose draw left it with the wrong number of cards (forced), if any.
    short_drawer: int | None = None
    #: Integrity ground truth: a crooked dealer's or colluding pair's part in the deal.
    cheats: CheatHooks | None = None

    def by_seat(self, seat: int) -> SeatState:
        """The state of ``seat``."""
        for s in self.seats:
            if s.seat == seat:
                return s
        raise KeyError(seat)

    def clockwise_from(self, seat: int) -> list[SeatState]:
        """Seats in clockwise order starting just left of ``seat``."""
        after = [s for s in self.seats if s.seat > seat]
        before = [s for s in self.seats if s.seat <= seat]
        return after + before

    def take(self) -> str:
        """The next card off the deck."""
        card = self.deck[self.deck_pos]
        self.deck_pos += 1
        return card

    def cards_left(self) -> int:
        """Cards not yet dealt (one stays back as a spare for planters)."""
        return len(self.deck) - self.deck_pos - 1

    def forfeits(self) -> bool:
        """The deal leaves forfeited money in the pot (rules.md, J506): a penalty, or
        chips past its ante of a seat ruled dead or found a false opener."""
        return self.dead_money > 0 or any(
            s.total > self.setup.ante for s in self.seats
            if s.dead or s.seat == self.false_opener)

    def live(self) -> list[SeatState]:
        """Seats still contesting the pot."""
        return [s for s in self.seats if not s.folded and not s.dead]  # in_hand, inlined


class CheatHooks(Protocol):
    """Where the deal, the draw and the betting let the cheats act.

    The cheats read the state, so the state names only these hooks:
    :class:`openers.generator.cheats.table.DealCheats` is the one implementation.
    """

    def after_shuffle(self, st: DealState) -> None:
        """The deck is shuffled, nothing dealt yet."""

    def before_serve(self, st: DealState, s: SeatState, kept: Sequence[str],
                     count: int) -> None:
        """Seat ``s`` keeps ``kept`` and is about to be served ``count`` cards."""

    def unbet(self, st: DealState, s: SeatState, section: Section, choice: Choice) -> Choice:
        """Seat ``s`` is first to bet in ``section`` and chose ``choice``; the choice made."""

    def facing(self, st: DealState, s: SeatState, section: Section, choice: Choice,
               can_raise: bool) -> Choice:
        """Seat ``s`` faces a bet in ``section`` and chose ``choice``; the choice made."""

    def passes_openers(self, st: DealState, s: SeatState) -> bool:
        """Whether seat ``s``, holding openers before the open, passes instead."""
