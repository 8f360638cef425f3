"""Replay a :class:`~schemas.records.HandRecord` line by line.

The replay is the audit's one pass over a hand. For every line it records a
:class:`Step` (the betting state *before* the line) and then applies the line as
the log gives it, even when the line is wrong: the money follows the log, so one
broken line never stops the replay and later lines are still judged. The rules
compare a step with its line (is it this seat's turn, is the amount one unit, ...)
and read the derived facts at the end (hands, opener, contributions, pots).

Turn order follows the format spec's "Order of play": clockwise from the first
seat left of the button before the draw, from the opener after it; a line out of
turn counts as that seat's action, the turn stays with the seat it skipped, and
a seat that already acted is passed over unless the bet changed since.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property

from schemas.records import (
    SECTION_POSITION,
    TURN_VERBS,
    Action,
    Actor,
    HandRecord,
    Section,
    Verb,
)

from .cards import final_hand, rebuild_dealt
from .effects import LineEffects
from .pots import build_pots
from .state import Pot, SeatState, Step, StepHistory, Street, UnmatchedStake

_TURN = TURN_VERBS
_POSITION = SECTION_POSITION
_STREET = {Section.BEFORE_DRAW: Street.BEFORE_DRAW, Section.AFTER_DRAW: Street.AFTER_DRAW}


def _line_index(a: Action) -> int:
    return a.index


class Replay(LineEffects):
    """The replayed hand. Build it with ``Replay(record)``; everything is computed once.

    Attributes rules read (all final unless noted):

    - ``record``; ``seats``: seat number -> :class:`SeatState`; ``order``: occupied seats
      clockwise from the first seat left of the button.
    - ``steps``: one :class:`Step` per action, ``steps[i]`` is the state before action i;
      ``betting``: the steps of turn verbs (check ... fold) inside a betting round.
    - ``opener`` (the seat that is the opener at the end: the declarer after a false
      opener), ``opens_index`` (the first ``opens``/opening line), ``original_opener``,
      ``opened_all_in`` (the pot was opened with ``opens 0 and is all-in``),
      ``declarations`` [(index, seat)], ``false_openers`` [(index, seat)].
    - ``draw_index`` (first line of the draw, or of AFTER DRAW if no draw line),
      ``unmatched_at_draw`` (seats short of the bet then), ``draw_lines`` [(index, seat)].
    - ``burns``, ``exposes``, ``deals`` [(index, seat|None, cards)]; ``misdeal_index``.
    - ``pots`` (main pot first, then side pots), ``pot_total`` (chips in plus ``Carried``
      and penalties, less withdrawals and returns), ``collections`` [(index, seat, X, pot)].
    - ``by_verb`` / ``actions_of(*verbs)``: the record's lines by verb, in log order.
    """

    def __init__(self, record: HandRecord) -> None:
        self.record = record
        dealt = {a.seat for a in record.actions if a.verb is Verb.DEALT}
        has_deal = bool(dealt)
        self.seats: dict[int, SeatState] = {
            s.seat: SeatState(s.seat, s.player_id, s.stack, (s.seat in dealt) or not has_deal)
            for s in record.seats
        }
        numbers = sorted(self.seats)
        after = [n for n in numbers if n > record.button]
        self.order: tuple[int, ...] = (*after, *(n for n in numbers if n <= record.button))
        # Clockwise successor of each occupied seat.
        self._next = dict(zip(self.order, (*self.order[1:], *self.order[:1]), strict=True))
        self.unit_before = record.limit_small
        self.unit_after = record.limit_big
        self.steps: list[Step] = []
        #: The steps of the player lines that take a turn inside a betting round.
        self.betting: list[Step] = []
        self.opener: int | None = None
        self.original_opener: int | None = None
        self.opens_index: int | None = None
        self.opened_all_in = False
        self.pot_open = False
        self.declarations: list[tuple[int, int]] = []
        self.false_openers: list[tuple[int, int]] = []
        self.draw_index: int | None = None
        self.unmatched_at_draw: tuple[UnmatchedStake, ...] = ()
        self.draw_lines: list[tuple[int, int]] = []
        self.burns: list[tuple[int, tuple[str, ...]]] = []
        self.exposes: list[tuple[int, int | None, tuple[str, ...], Section]] = []
        self.deals: list[tuple[int, int | None, tuple[str, ...], Section]] = []
        self.collections: list[tuple[int, int, int, int]] = []
        self.misdeal_index: int | None = None
        self.penalties = 0
        # betting round state
        self._street: Street | None = None
        self._bet = 0
        self._level = 0
        self._multi = 0
        self._pending: set[int] = set()
        self._ptr = 0
        self._full_acted: set[int] = set()
        self._no_reraise: set[int] = set()
        self._seat_list = list(self.seats.values())
        self._contenders = 0
        self._round_start = -1
        self._unit = self.unit_before  # the after-draw unit from the draw on
        self._history = StepHistory(tuple(self.seats))
        self._run()
        self.pot_total = record.carried + self.penalties + sum(
            s.total for s in self.seats.values()
        )
        dead_money = record.carried + self.penalties
        self.pots: tuple[Pot, ...] = build_pots(self.seats.values(), dead_money)

    # ------------------------------------------------------------------ helpers for rules
    def seat(self, number: int | None) -> SeatState | None:
        """The state of seat ``number`` (None if the seat is not occupied)."""
        return self.seats.get(number) if number is not None else None

    def unit(self, street: Street) -> int:
        """The fixed-limit unit of a betting round, in cents."""
        return self.unit_before if street is Street.BEFORE_DRAW else self.unit_after

    def dealt_hand(self, number: int) -> tuple[str, ...] | None:
        """The cards dealt to seat ``number`` before the draw, rebuilt where the DEAL line
        has ``??``; None when the log cannot prove them (report unverifiable)."""
        seat = self.seats.get(number)
        return rebuild_dealt(seat) if seat is not None else None

    def final_hand(self, number: int) -> tuple[str, ...] | None:
        """Seat ``number``'s hand after the draw (shown, else replayed), None if unknown."""
        seat = self.seats.get(number)
        return final_hand(seat) if seat is not None else None

    @cached_property
    def by_verb(self) -> dict[Verb, list[Action]]:
        """The lines of each verb, in log order; built on first use. Do not mutate.

        Most rules look at a few verbs only: one shared pass spares each a scan of
        every line of the hand.
        """
        out: dict[Verb, list[Action]] = {}
        for a in self.record.actions:
            found = out.get(a.verb)
            if found is None:
                out[a.verb] = [a]
            else:
                found.append(a)
        return out

    def actions_of(self, *verbs: Verb) -> Sequence[Action]:
        """The lines with any of ``verbs``, in log order (read-only)."""
        by_verb = self.by_verb
        if len(verbs) == 1:
            return by_verb.get(verbs[0], ())
        found = [a for v in verbs for a in by_verb.get(v, ())]
        found.sort(key=_line_index)
        return found

    def live_seats(self) -> list[int]:
        """Seats holding a live hand at the showdown, clockwise from left of the button."""
        return [n for n in self.order if self.seats[n].live]

    def in_hand_seats(self) -> list[int]:
        """Seats dealt in, not folded and not dead, clockwise from left of the button."""
        return [n for n in self.order if self.seats[n].in_hand]

    # ------------------------------------------------------------------ the pass
    def _run(self) -> None:
        pos = -1
        for action in self.record.actions:
            sec_pos = _POSITION[action.section]
            if sec_pos != pos:
                self._enter(action)
                pos = sec_pos
            self._apply(action)

    def _enter(self, action: Action) -> None:
        """Start a section: open a betting round, or note where the draw began."""
        section = action.section
        # The draw begins with the first DRAW line, or with AFTER DRAW if nobody drew.
        if self.draw_index is None and section in (Section.DRAW, Section.AFTER_DRAW):
            self._draw_begins(action.index)
        street = _STREET.get(section)
        self._street = street
        if street is Street.AFTER_DRAW or self.draw_index is not None:
            self._unit = self.unit_after
        if street is None:
            return
        self._bet = 0
        self._level = 0
        self._multi = 0
        self._full_acted = set()
        self._no_reraise = set()
        for s in self._seat_list:
            s.stake = 0
        self._round_start = action.index
        if street is Street.BEFORE_DRAW:
            # Before the pot opens an all-in-for-the-ante seat may still declare.
            self._pending = {n for n in self.order if self.seats[n].in_hand}
            self._ptr = self.order[0] if self.order else 0
        else:
            self._pending = {n for n in self.order if self.seats[n].can_bet}
            if len(self._pending) < 2:
                self._pending = set()
            self._ptr = self._after_draw_first()

    def _after_draw_first(self) -> int:
        # A dead (false) opener with no declarer still fixes where the action starts.
        start = self.opener if self.opener is not None else self.original_opener
        if start is None:
            start = self.order[0]
        numbers = self.order
        i = numbers.index(start) if start in numbers else 0
        for k in range(len(numbers)):
            n = numbers[(i + k) % len(numbers)]
            if self.seats[n].can_bet:
                return n
        return start

    def _draw_begins(self, index: int) -> None:
        self.draw_index = index
        if not self.pot_open:
            return
        # The current bet, unless no seat still in the hand reached it (a dead false
        # opener's raise); a full unit behind an opener all-in for the antes (R-DH 12).
        target = min(self._bet, max((s.stake for s in self._seat_list if s.in_hand), default=0))
        if self.opened_all_in:
            target = max(target, self.unit_before)
        self.unmatched_at_draw = tuple(
            UnmatchedStake(n, s.stake, target)
            for n in self.order
            if (s := self.seats[n]).can_bet and s.stake < target
        )

    def _turn(self, actor: int | None) -> int | None:
        """The next seat clockwise from the pointer (inclusive) that still has to act.

        A seat all-in for its ante may still declare before the pot opens, but a log
        need not write its pass: unless it is the one acting, it is passed over.
        """
        pending = self._pending
        if not pending:
            return None
        seats = self.seats
        n = self._ptr if self._ptr in self._next else self.order[0]
        for _ in range(len(self.order)):
            if n in pending and (n == actor or not seats[n].all_in):
                return n
            n = self._next[n]
        return None

    def _apply(self, a: Action) -> None:
        seat = self.seats.get(a.seat) if a.seat is not None else None
        street = self._street
        betting = street is not None and a.actor is Actor.SEAT and a.verb in _TURN
        if betting:
            turn = self._turn(a.seat)
            self._contenders = sum(
                1 for s in self._seat_list
                if s.dealt_in and not (s.folded or s.dead or s.all_in)
            )
        else:
            turn = None
        if seat is None:
            step = Step(a.index, a, street, turn, False, False, False, self._bet, 0,
                        self._level, self._multi, self._contenders, False, self.pot_open,
                        self.opener, self._unit, 0, 0, 0, self._round_start, self._history)
            self._dealer_or_floor(a)  # a line without a seated seat moves no chips
        else:
            number = seat.seat
            in_turn = betting and turn == number
            in_hand = seat.dealt_in and not (seat.folded or seat.dead)  # SeatState.in_hand
            step = Step(a.index, a, street, turn, in_turn, in_hand, seat.all_in, self._bet,
                        seat.stake, self._level, self._multi, self._contenders,
                        number not in self._no_reraise, self.pot_open, self.opener,
                        self._unit, 0, 0, 0, self._round_start, self._history)
            step.chips = self._effect(a, seat, step)
            if betting:
                if in_turn:
                    self._ptr = self._next[number]
                self._pending.discard(number)
                self._full_acted.add(number)
                if a.verb is Verb.FOLDS and sum(1 for s in self._seat_list if s.in_hand) < 2:
                    self._pending = set()
        step.level_after = self._level
        step.bet_after = self._bet
        self._history.record(a, step.chips)
        self.steps.append(step)
        if betting:
            self.betting.append(step)

    # ------------------------------------------------------------------ effects
    def _put(self, seat: SeatState, chips: int, all_in: bool) -> int:
        seat.stack -= chips
        seat.total += chips
        seat.stake += chips
        if all_in or (seat.stack <= 0 and chips > 0):
            seat.all_in = True
        return chips

    def _effect(self, a: Action, seat: SeatState, step: Step) -> int:
        """Apply line ``a`` of a seated seat; return the chips it moved into the pot."""
        if a.actor is not Actor.SEAT:
            return self._dealer_or_floor(a, seat)
        verb = a.verb
        # Most frequent verbs first: this runs for every line of every hand.
        if verb is Verb.CALLS:
            return self._put(seat, a.amount or 0, a.all_in)
        if verb is Verb.FOLDS:
            seat.folded = True
            return 0
        if verb is Verb.CHECKS:
            return 0
        if verb is Verb.ANTES:
            chips = self._put(seat, a.amount or 0, a.all_in)
            seat.stake -= chips  # antes are not a stake in a betting round
            seat.ante += chips
            return chips
        if verb is Verb.DEALT:
            seat.dealt.extend(a.cards or ())
            return 0
        if verb is Verb.OPENS or (not self._bet and verb in (Verb.BETS, Verb.RAISES)):
            # The first bet of a round opens it, however the log words it (B108 judges).
            return self._open_or_bet(a, seat, step)
        if verb is Verb.RAISES or verb is Verb.BETS:
            amount = a.amount or 0
            target = a.to_amount if a.to_amount is not None else seat.stake + amount
            chips = self._put(seat, max(target - seat.stake, 0), a.all_in)
            self._raise_to(seat.seat, seat.stake, step.unit)
            return chips
        return self._other(a, seat, a.amount or 0)

    def _open_or_bet(self, a: Action, seat: SeatState, step: Step) -> int:
        amount = a.amount or 0
        if a.verb is Verb.OPENS:
            total = amount
        elif a.verb is Verb.RAISES and a.to_amount is not None:
            total = a.to_amount
        else:
            total = seat.stake + amount
        chips = self._put(seat, max(total - seat.stake, 0), a.all_in)
        if step.street is not Street.AFTER_DRAW and not self.pot_open:
            self.pot_open = True
            self.opener = self.original_opener = seat.seat
            self.opens_index = a.index
            self.opened_all_in = a.all_in and total < step.unit
        if a.verb is Verb.OPENS and a.all_in and total < step.unit:
            # An all-in opener for the antes sets a full unit for every caller (R-DH 12).
            self._bet = max(self._bet, step.unit)
            self._level = max(self._level, 1)
            self._reopen(seat.seat)
        else:
            self._raise_to(seat.seat, seat.stake, step.unit)
        return chips

    def _raise_to(self, seat: int, new_bet: int, unit: int) -> None:
        """Apply a bet or raise to ``new_bet``: full raises reopen the betting."""
        increase = new_bet - self._bet
        if increase <= 0:
            return
        if unit and increase * 2 < unit and self._bet > 0:
            # An all-in raise under half a unit: callers must match it, but seats that
            # already acted may not raise again (R-DH 1 as the catalogue reads it).
            self._no_reraise |= self._full_acted
            self._bet = new_bet
            self._pending |= {n for n in self.order if self.seats[n].can_bet} - {seat}
            return
        units = max(1, round(increase / unit)) if unit else 1
        self._bet = new_bet
        self._level += units
        self._reopen(seat)

    def _reopen(self, seat: int) -> None:
        self._full_acted = set()
        self._no_reraise = set()
        self._pending = {n for n in self.order if self.seats[n].can_bet} - {seat}
        if sum(1 for s in self._seat_list if s.can_bet) >= 3:
            self._multi = max(self._multi, self._level)
