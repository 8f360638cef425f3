"""The typed pieces of a replay: per-seat state, per-line snapshots, pots.

These are what rule authors read. :class:`SeatState` is a seat's state at the end
of the replay (or while it runs); :class:`Step` is the betting state *before* one
line was applied, frozen; :class:`Pot` is one pot of the final layout.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

from schemas.records import UNKNOWN_CARD, Action, Verb


class Known(IntEnum):
    """A three-way answer: the log proves yes, proves no, or lacks the cards."""

    NO = 0
    YES = 1
    UNKNOWN = 2


class SeatStatus(IntEnum):
    """A line's seat just before the line (B104 names it)."""

    UNSEATED = 0  # no such seat in the header, or a line about no seat
    NOT_DEALT = 1  # the hand has DEAL lines and none for this seat
    DEAD = 2  # ruled dead (false openers, fouled hand) before this line
    FOLDED = 3
    IN_HAND = 4


class Street(IntEnum):
    """The two betting rounds; a line outside them has ``Step.street is None``."""

    BEFORE_DRAW = 1
    AFTER_DRAW = 2


@dataclass(slots=True)
class SeatState:
    """One seat through the hand. Amounts are cents; card lists keep the log's order."""

    seat: int
    player_id: str
    #: Chips behind (header stack less what the seat put in, plus what came back).
    stack: int
    #: The seat has a DEAL line (or the log has no DEAL section at all).
    dealt_in: bool = True
    folded: bool = False
    #: Ruled dead by the floor: false openers or a fouled hand.
    dead: bool = False
    fouled: bool = False
    false_opener: bool = False
    all_in: bool = False
    #: Chips in front of the seat in the current betting round.
    stake: int = 0
    #: Chips of this seat in the pot this deal: antes + bets - withdrawn - returned.
    total: int = 0
    ante: int = 0
    penalties: int = 0
    withdrawn: int = 0
    returned: int = 0
    collected: int = 0
    #: The five (or however many) cards dealt before the draw, incl. `Dealer: deals` then.
    dealt: list[str] = field(default_factory=list)
    discards: list[str] = field(default_factory=list)
    drawn: list[str] = field(default_factory=list)
    #: The `draws fifth` card (or cards) of a five-card draw.
    fifth: list[str] = field(default_factory=list)
    #: Cards the seat discarded that it did not hold according to the log.
    discard_mismatch: list[str] = field(default_factory=list)
    stood_pat: bool = False
    split_openers: bool = False
    #: Cards of a `shows` line (final hand as shown), or None.
    shown: tuple[str, ...] | None = None
    shown_index: int | None = None
    reading: str | None = None
    mucked: bool = False
    mucked_cards: tuple[str, ...] | None = None
    retrieved: bool = False
    #: Cards of `shows openers [..]` lines, in order.
    openers_shown: list[tuple[str, ...]] = field(default_factory=list)

    @property
    def in_hand(self) -> bool:
        """Dealt in, not folded, not ruled dead."""
        return self.dealt_in and not self.folded and not self.dead

    @property
    def live(self) -> bool:
        """A live hand at the showdown (rules.md): in the hand and not mucked."""
        return self.in_hand and not self.mucked

    @property
    def can_bet(self) -> bool:
        """In the hand and not all-in."""
        return self.in_hand and not self.all_in

    def hand_after_draw(self) -> tuple[str, ...]:
        """Dealt cards less discards plus drawn and fifth cards (may hold ``??``)."""
        kept = list(self.dealt)
        for card in self.discards:
            if card in kept:
                kept.remove(card)
            elif UNKNOWN_CARD in kept:
                kept.remove(UNKNOWN_CARD)
        return (*kept, *self.drawn, *self.fifth)


@dataclass(slots=True)
class Step:
    """The state just before line ``index`` was applied, and what that line put in.

    Read-only for rules (not frozen only because freezing costs a third of the replay).
    Betting fields describe the round in progress when ``street`` is set; outside a
    betting round they hold the last round's values. ``totals`` and ``stakes`` are
    computed from the earlier steps on first use (most rules never read them).
    """

    index: int
    action: Action
    street: Street | None
    #: The seat whose turn it was (None: no betting round, or the round was complete).
    turn: int | None
    #: The line is a turn verb by the seat whose turn it was.
    in_turn: bool
    #: The line's seat was dealt in, not folded and not dead before this line.
    in_hand: bool
    #: The line's seat was already all-in before this line.
    all_in: bool
    current_bet: int
    #: The line's seat's chips in this round before the line.
    stake: int
    #: Bets and full raises so far this round (an open for two units counts 2).
    level: int
    #: The highest ``level`` this round reached while 3+ seats could still bet.
    multi_level: int
    #: Seats in the hand and not all-in before the line.
    contenders: int
    #: Betting is open to this seat: no incomplete raise closed it since it acted.
    may_raise: bool
    pot_open: bool
    opener: int | None
    #: The fixed-limit unit of this street (before the draw when ``street`` is None and
    #: the draw has not happened, after it otherwise).
    unit: int
    #: Chips this line moved into the pot (negative for withdrawals and returns).
    chips: int
    #: ``level`` and ``current_bet`` just after the line was applied.
    level_after: int
    bet_after: int
    #: Index of the first line of the betting round in force (-1: none yet).
    round_start: int
    _history: StepHistory
    _totals: dict[int, int] | None = None
    _stakes: dict[int, int] | None = None

    @property
    def totals(self) -> dict[int, int]:
        """Every seat's chips in the pot before this line (antes + bets - withdrawn -
        returned; penalties not included). Do not mutate."""
        if self._totals is None:
            self._totals = self._history.sums(0, self.index, with_antes=True)
        return self._totals

    @property
    def stakes(self) -> dict[int, int]:
        """Every seat's chips in the current betting round before this line. Do not mutate."""
        if self._stakes is None:
            start = self.round_start
            self._stakes = (self._history.sums(start, self.index, with_antes=False)
                            if start >= 0 else dict.fromkeys(self._history.seats, 0))
        return self._stakes


class StepHistory:
    """What each line of one replay moved, shared by its steps to compute ``totals`` and
    ``stakes`` lazily.

    It holds no :class:`Step` (the steps hold it): with no reference cycle a replay is
    freed by reference counting alone, so the batch loop's paused garbage collector
    has nothing to sweep when it resumes.
    """

    __slots__ = ("moves", "seats")

    def __init__(self, seats: tuple[int, ...]) -> None:
        self.seats = seats
        #: Per line, in order: (seat, chips into the pot, the line is an ante). A penalty
        #: line counts 0: it is dead money, not the seat's chips in the pot.
        self.moves: list[tuple[int | None, int, bool]] = []

    def record(self, action: Action, chips: int) -> None:
        """Note what line ``action`` moved (call once per line, in order)."""
        verb = action.verb
        self.moves.append((action.seat, 0 if verb is Verb.PENALTY else chips,
                           verb is Verb.ANTES))

    def sums(self, start: int, stop: int, with_antes: bool) -> dict[int, int]:
        """Chips per seat moved by the lines ``start`` to ``stop - 1`` (penalties excluded)."""
        out = dict.fromkeys(self.seats, 0)
        for seat, chips, ante in self.moves[start:stop]:
            if chips and seat is not None and seat in out and (with_antes or not ante):
                out[seat] += chips
        return out


@dataclass(frozen=True, slots=True)
class Pot:
    """One pot of the final layout: 0 is the main pot, then side pots 1, 2, ..."""

    number: int
    amount: int
    #: Seats in the hand (not folded, not dead) that put in enough to contest it.
    eligible: tuple[int, ...]
    #: Contribution level that caps this pot (the all-in amount), None for the top pot.
    cap: int | None


@dataclass(frozen=True, slots=True)
class UnmatchedStake:
    """A seat still short of the highest stake when the draw began (B106)."""

    seat: int
    stake: int
    current_bet: int
