"""Fixed-limit betting rounds: before the draw (with the opening) and after it.

The mechanics follow the format spec's "Order of play": clockwise turns, a round
ends when every active seat that is not all-in has acted and matched the bet, the
house cap on raises in multihanded pots, and all-ins for less. Planter forces
bend one decision each; see :class:`~openers.generator.state.Forces`.
"""

from __future__ import annotations

import random

import openers.generator.falseopen as falseopen
import openers.generator.strategy as strategy
from audit.opening import is_openers, openers_cards
from openers.generator.handinfo import read_shape
from openers.generator.showdown import best_seats, strength_of
from openers.generator.state import DealState, SeatState
from openers.generator.strategy import Choice
from schemas.records import Actor, Section, Verb


def _put(st: DealState, s: SeatState, chips: int) -> bool:
    """Move ``chips`` from the seat's stack into the pot; True when that leaves it all-in."""
    s.stack -= chips
    s.total += chips
    s.round_bet += chips
    if s.stack == 0:
        s.all_in = True
    return s.all_in


def _contested(st: DealState) -> bool:
    """Whether two or more seats still contest the pot."""
    live = 0
    for s in st.seats:
        if not s.folded and not s.dead:
            live += 1
            if live > 1:
                return True
    return False


def has_openers(st: DealState, s: SeatState) -> bool:
    """Whether the seat's dealt hand opens under this deal's minimum."""
    return is_openers(s.dealt, st.setup.openers, bobtail=st.profile.bobtail)


def show_openers(st: DealState, s: SeatState, section: Section) -> None:
    """The opener proves openers (when folding, or taking the pot without a showdown)."""
    cards = openers_cards(s.dealt, st.setup.openers)
    if cards is None:  # a false opener has nothing to show
        return
    st.draft.add(section, Actor.SEAT, Verb.SHOWS_OPENERS, s.seat, cards=cards)


class Round:
    """One betting round."""

    def __init__(self, st: DealState, rng: random.Random, section: Section) -> None:
        self.st = st
        self.rng = rng
        self.section = section
        self.before = section is Section.BEFORE_DRAW
        self.unit = st.table.small if self.before else st.table.big
        self.current = 0
        self.count = 0  # a bet and its raises, this round
        self.capped = False
        self.no_more_raises = False
        self.raised_after_open = False
        self._bettor: int | None = None
        for s in st.seats:
            s.round_bet = 0
            s.acted = False

    # -- helpers -------------------------------------------------------------------
    def needs(self, s: SeatState) -> bool:
        """Whether ``s`` still has to act this round."""
        if self.before and self.st.opener is None and s.in_hand and not s.acted:
            return True  # before the open, a seat all-in for its ante may still declare
        return s.can_act and (not s.acted or s.round_bet < self.current)

    def _multihanded(self) -> bool:
        return sum(1 for s in self.st.seats if s.can_act) >= 3

    def _can_raise(self, s: SeatState) -> bool:
        if self.no_more_raises or s.stack < self.current - s.round_bet + self.unit:
            return False
        cap = self.st.profile.cap_raises
        if cap is None:
            return self.count < 8  # realism: nobody raises forever without a cap
        if self.capped:
            return False
        return self.count < 1 + cap or not self._multihanded()

    def _after_raise(self) -> None:
        cap = self.st.profile.cap_raises
        if cap is not None and self.count >= 1 + cap and self._multihanded():
            self.capped = True

    def _add(self, s: SeatState, verb: Verb, amount: int | None = None,
             to_amount: int | None = None, all_in: bool = False) -> None:
        self.st.draft.add(self.section, Actor.SEAT, verb, s.seat, amount=amount,
                          to_amount=to_amount, all_in=all_in)

    # -- actions -------------------------------------------------------------------
    def check(self, s: SeatState) -> None:
        self._add(s, Verb.CHECKS)

    def fold(self, s: SeatState) -> None:
        s.folded = True
        self._add(s, Verb.FOLDS)
        if s.seat == self.st.opener:
            show_openers(self.st, s, self.section)

    def bet(self, s: SeatState, amount: int, verb: Verb) -> None:
        all_in = _put(self.st, s, amount) or s.all_in
        self._add(s, verb, amount, all_in=all_in)
        # "opens 0 and is all-in": the current bet is still one full unit.
        self.current = max(s.round_bet, self.unit)
        self.count += max(amount // self.unit, 1) if verb is Verb.OPENS else 1
        self._after_raise()

    def call(self, s: SeatState) -> None:
        chips = min(self.current - s.round_bet, s.stack)
        all_in = _put(self.st, s, chips)
        self._add(s, Verb.CALLS, chips, all_in=all_in)
        if (not self.before and self.st.opener is not None
                and self.count == 1 and self._bettor == self.st.opener):
            self.st.after_draw_callers.add(s.seat)

    def raise_(self, s: SeatState) -> None:
        by = self.unit
        target = self.current + by
        all_in = _put(self.st, s, target - s.round_bet)
        self._add(s, Verb.RAISES, by, target, all_in=all_in)
        self.current = target
        self.count += 1
        self.raised_after_open = True
        self._after_raise()

    # -- the round -----------------------------------------------------------------
    def run(self, first: int) -> None:
        """Play the round, first to act at seat ``first``."""
        st = self.st
        order = [st.by_seat(first), *[s for s in st.clockwise_from(first) if s.seat != first]]
        n = len(order)
        needs = self.needs
        skip_closing = st.forces.skip_closing_call
        i = 0
        # Seats are visited in turn; nothing changes while seats are passed over, so a
        # full turn of seats that need not act ends the round (no rescan per visit).
        idle = 0
        contested = _contested(st)
        while contested:
            s = order[i % n]
            i += 1
            if not needs(s):
                idle += 1
                if idle >= n:
                    break
                continue
            idle = 0
            if skip_closing and self._skip_closing_call(s, order):
                return
            self._act(s)
            s.acted = True
            if falseopen.maybe_rule(st, self.before, self.count, needs):
                return
            contested = _contested(st)

    def _skip_closing_call(self, s: SeatState, order: list[SeatState]) -> bool:
        pending = [x for x in order if self.needs(x)]
        if (self.before and self.st.opener is not None
                and len(pending) == 1 and s.seat != self.st.opener
                and 0 < self.current - s.round_bet < s.stack and s.acted):
            self.st.events.add("skip_closing_call")
            self.st.unmatched = s.seat
            return True
        return False

    def _act(self, s: SeatState) -> None:
        if self.before and self.st.opener is None:
            self._pre_open(s)
        elif self.current == 0:
            self._unbet(s)
        else:
            self._facing(s)

    def _pre_open(self, s: SeatState) -> None:
        st, f, rng = self.st, self.st.forces, self.rng
        shape = read_shape(tuple(s.hand))
        openers = has_openers(st, s)
        if s.all_in:  # all-in for the ante: declare with "opens 0", or pass
            blocked = f.no_open or f.false_opener
            if openers and not blocked and (f.all_in_opener or strategy.wants_open(
                    rng, s.player.style, shape)):
                st.events.add("all_in_open")
                self._open(s, 0)
            else:
                self.check(s)
            return
        if f.false_opener and not openers and st.false_opener is None and s.stack >= self.unit:
            st.false_opener = s.seat
            st.events.add("false_opener")
            self._open(s, 1)
            return
        if f.fold_before_open and not openers and "fold_before_open" not in st.events:
            st.events.add("fold_before_open")
            self.fold(s)
            return
        blocked = f.no_open or (f.false_opener and st.false_opener is None) or (
            f.all_in_opener and "all_in_open" not in st.events)
        if openers and not blocked and s.stack >= 2 * self.unit and strategy.wants_open(
                rng, s.player.style, shape) and not (
                    st.cheats is not None and st.cheats.passes_openers(st, s)):
            self._open(s, strategy.open_size(rng, s.player.style, shape))
            return
        if openers:
            st.passed_with_openers.add(s.seat)
        penalty = st.profile.abandon_penalty
        if (f.abandon_paid and not openers and penalty and s.stack >= penalty
                and "abandon_paid" not in st.events):
            st.events.add("abandon_paid")
            self._abandon(s, penalty)
            return
        if not openers and shape.level == 0 and not shape.drawing and rng.random() < 0.015 and (
                penalty is None or s.stack >= penalty):
            self._abandon(s, penalty)
            return
        self.check(s)

    def _abandon(self, s: SeatState, penalty: int | None) -> None:
        """A fold before the pot is open, with the house's penalty where it has one."""
        st = self.st
        self.fold(s)
        if penalty:
            s.stack -= penalty
            st.dead_money += penalty
            st.draft.add(self.section, Actor.FLOOR, Verb.PENALTY, s.seat, amount=penalty)

    def _open(self, s: SeatState, units: int) -> None:
        self.st.opener = s.seat
        self._bettor = s.seat
        self.bet(s, units * self.unit, Verb.OPENS)

    def _unbet(self, s: SeatState) -> None:
        st, f = self.st, self.st.forces
        if s.seat == st.opener and f.opener_folds_after_draw:
            st.events.add("opener_folds_after_draw")
            self.fold(s)
            return
        strength = strength_of(s.hand)
        choice = strategy.after_draw_open(self.rng, s.player.style, *strength)
        if s.seat == st.false_opener:
            choice = Choice.CHECK
        if st.cheats is not None:
            choice = st.cheats.unbet(st, s, self.section, choice)
        forced_bet = (f.wrong_bet_size or (f.refund_weak_caller and s.seat == st.opener))
        if forced_bet and s.stack >= self.unit and s.seat != st.false_opener:
            choice = Choice.BET
        if choice is Choice.BET and s.stack >= self.unit:
            amount = self.unit
            if f.wrong_bet_size and "wrong_bet_size" not in st.events:
                amount = st.table.small
                st.events.add("wrong_bet_size")
            self._bettor = s.seat
            all_in = _put(st, s, amount)
            self._add(s, Verb.BETS, amount, all_in=all_in)
            self.current = s.round_bet
            self.count = 1
            return
        self.check(s)

    def _facing(self, s: SeatState) -> None:
        st, f = self.st, self.st.forces
        if s.seat in (st.false_opener, st.declarer):
            self.call(s)
            return
        if f.over_cap and self.before and self._force_over_cap(s):
            return
        if self.before and s.seat != st.opener and st.opener is not None:
            if f.opener_wins_alone:
                self.fold(s)
                return
            if f.opener_withdraws and not self.raised_after_open and self._can_raise(s):
                self.raise_(s)
                return
        if self.before and s.seat == st.opener and f.opener_withdraws and self.raised_after_open:
            self._opener_withdraws(s)
            return
        if not self.before and f.short_call and self._short_call(s):
            return
        if f.all_in_opener and self.before and self._short_all_in_call(s):
            return
        self._decide_facing(s)

    def _decide_facing(self, s: SeatState) -> None:
        can_raise = self._can_raise(s)
        if self.before:
            choice = strategy.before_draw(self.rng, s.player.style, read_shape(tuple(s.hand)),
                                          self.count, can_raise)
        else:
            choice = strategy.after_draw_facing(self.rng, s.player.style, *strength_of(s.hand),
                                                self.count, can_raise)
        if self.st.cheats is not None:
            choice = self.st.cheats.facing(self.st, s, self.section, choice, can_raise)
        if choice is Choice.RAISE and can_raise:
            self.raise_(s)
        elif choice in (Choice.CALL, Choice.RAISE):
            self.call(s)
        else:
            self.fold(s)

    def _force_over_cap(self, s: SeatState) -> bool:
        st = self.st
        if "over_cap" in st.events:
            self.call(s)
            return True
        if self._can_raise(s):
            self.raise_(s)
            return True
        cap = st.profile.cap_raises
        if (cap is not None and self.capped and self._multihanded()
                and s.stack >= self.current - s.round_bet + self.unit * 2):
            st.events.add("over_cap")
            self.raise_(s)
            return True
        self.call(s)
        return True

    def _opener_withdraws(self, s: SeatState) -> None:
        st = self.st
        opening = next(r.amount for r in st.draft.find(Verb.OPENS, s.seat))
        assert opening is not None
        self.fold(s)
        s.stack += opening
        s.total -= opening
        st.draft.add(self.section, Actor.SEAT, Verb.WITHDRAWS, s.seat, amount=opening)
        st.events.add("opener_withdraws")

    def _short_call(self, s: SeatState) -> bool:
        st = self.st
        owed = self.current - s.round_bet
        if "short_call" in st.events or s.stack <= owed or owed < 2:
            return False
        if s.seat in best_seats(st) or any(x.all_in for x in st.seats if x.in_hand):
            return False
        chips = owed // 2
        s.stack -= chips
        s.total += chips
        s.round_bet = self.current  # the table treated it as a call
        self._add(s, Verb.CALLS, chips)
        self.no_more_raises = True
        st.events.add("short_call")
        st.short_caller = s.seat
        return True

    def _short_all_in_call(self, s: SeatState) -> bool:
        """Forced B107: the first caller of an all-in opener puts in half a unit."""
        st = self.st
        if ("all_in_open" not in st.events or "short_all_in_call" in st.events
                or s.round_bet or s.stack <= self.unit or self.count != 1):
            return False
        chips = self.unit // 2
        s.stack -= chips
        s.total += chips
        s.round_bet = self.current  # the table let it stand as a call
        self._add(s, Verb.CALLS, chips)
        self.no_more_raises = True  # a later raise would make its next call ambiguous
        st.events.add("short_all_in_call")
        st.short_caller = s.seat
        return True
