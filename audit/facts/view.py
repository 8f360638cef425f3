"""One hand of a batch, line by line, for a rule that must be procedural on it.

A rule states what it can over the columns of the whole batch; where the rule
follows a hand's lines in order (a deck of cards, a seat's discards, the draw's
rotation), it picks the few candidate hands with the columns and reads each one
through a :class:`HandView`: its lines as :class:`Line` objects (the line's words
as enums and card names, and the replay's state before it), its seats by number
as :class:`SeatView` objects (their final state and card lists), in clockwise order.
"""

from __future__ import annotations

from functools import cached_property
from typing import NamedTuple

import numpy as np

from audit.facts.context import Batch
from audit.facts.tables import Known
from ingest.scan.layout import ACTOR_CODE, SECTION_ORDER, VERBS
from schemas.records import CARD_CODES, SECTION_POSITION, Actor, Section, Verb

_ACTORS = {code: actor for actor, code in ACTOR_CODE.items()}
_POSITION = SECTION_POSITION
_DRAW = _POSITION[Section.DRAW]


class Line(NamedTuple):
    """One line of the hand: what it says, and the replay's state just before it.

    A named tuple: a candidate hand's thirty lines are built in microseconds.
    """

    row: int  # its row in the batch's actions table
    index: int  # type: ignore[assignment]  # a field named like tuple.index
    line: int
    section: Section
    actor: Actor
    verb: Verb
    seat: int | None
    amount: int | None
    to_amount: int | None
    all_in: bool
    side_pot: int
    cards: tuple[str, ...] | None
    drawn: tuple[str, ...] | None
    # the replay before the line
    in_hand: bool
    pot_open: bool
    opener: int | None
    street: int
    chips: int
    current_bet: int
    bet_after: int
    stake: int
    round_start: int
    #: Cards the line hands its seat off the deck in the draw or later.
    received: tuple[str, ...]

    @property
    def before_draw(self) -> bool:
        """The line is in a section before DRAW."""
        return _POSITION[self.section] < _DRAW

    @property
    def after_draw(self) -> bool:
        """The line is in a section after DRAW."""
        return _POSITION[self.section] > _DRAW


class SeatView(NamedTuple):
    """One seat at the end of the hand, with its cards (names)."""

    row: int
    seat: int
    stack: int  # the header's stack, before the antes
    dealt_in: bool
    folded: bool
    dead: bool
    all_in: bool
    mucked: bool
    split_openers: bool
    ante: int
    total: int
    penalties: int
    collected: int
    at_draw: bool
    dealt: tuple[str, ...]
    discards: tuple[str, ...]
    drawn: tuple[str, ...]
    fifth: tuple[str, ...]
    shown: tuple[str, ...] | None
    dealt_hand: tuple[str, ...] | None
    final: tuple[str, ...] | None
    had_openers: Known
    proof: Known
    kept_openers: Known

    @property
    def in_hand(self) -> bool:
        """Dealt in, not folded, not ruled dead."""
        return self.dealt_in and not self.folded and not self.dead

    @property
    def live(self) -> bool:
        """A live hand at the showdown: in the hand and not mucked."""
        return self.in_hand and not self.mucked


class HandView:
    """Hand row ``hand`` of a batch, read line by line (see the module docstring)."""

    def __init__(self, ctx: Batch, hand: int) -> None:
        self.ctx = ctx
        self.hand = hand
        self.row = ctx.hand(hand)

    @cached_property
    def lines(self) -> list[Line]:
        """Every line of the hand, in log order."""
        a = self.ctx.actions
        first = self.row.action_start
        rows = slice(first, first + self.row.action_count)
        # The hand's line cards are one stretch of the card array: decode it once.
        low = int(a.cards_start[first]) if self.row.action_count else 0
        high = int(max((a.drawn_start[rows] + np.maximum(a.drawn_count[rows], 0)).max(),
                       (a.cards_start[rows] + np.maximum(a.cards_count[rows], 0)).max())
                   ) if self.row.action_count else 0
        names = [CARD_CODES[c] for c in self.ctx.facts.cards[low:high].tolist()]

        def cards(start: int, count: int) -> tuple[str, ...] | None:
            return None if count < 0 else tuple(names[start - low:start - low + count])

        columns = zip(
            a.index[rows].tolist(), a.line[rows].tolist(), a.section[rows].tolist(),
            a.actor[rows].tolist(), a.verb[rows].tolist(), a.seat[rows].tolist(),
            a.amount[rows].tolist(), a.to_amount[rows].tolist(), a.says_all_in[rows].tolist(),
            a.side_pot[rows].tolist(), a.cards_start[rows].tolist(), a.cards_count[rows].tolist(),
            a.drawn_start[rows].tolist(), a.drawn_count[rows].tolist(), a.in_hand[rows].tolist(),
            a.pot_open[rows].tolist(), a.opener[rows].tolist(), a.street[rows].tolist(),
            a.chips[rows].tolist(), a.current_bet[rows].tolist(), a.bet_after[rows].tolist(),
            a.stake[rows].tolist(), a.round_start[rows].tolist(),
            a.received_start[rows].tolist(), a.received_count[rows].tolist(), strict=True)
        return [
            Line(first + i, index, line, SECTION_ORDER[section], _ACTORS[actor], VERBS[verb],
                 seat or None, None if amount < 0 else amount,
                 None if to_amount < 0 else to_amount, all_in, side_pot,
                 cards(cs, cc), cards(ds, dc), in_hand, pot_open, opener or None, street, chips,
                 bet, bet_after, stake, round_start, cards(rs, rc) or ())
            for i, (index, line, section, actor, verb, seat, amount, to_amount, all_in, side_pot,
                    cs, cc, ds, dc, in_hand, pot_open, opener, street, chips, bet, bet_after,
                    stake, round_start, rs, rc) in enumerate(columns)
        ]

    @cached_property
    def seats(self) -> dict[int, SeatView]:
        """The seated seats by number (header order)."""
        ctx = self.ctx
        out = {}
        first = self.row.seat_start
        for r in range(first, first + self.row.seat_count):
            s = ctx.seat(r)
            shown = None
            if s.shown_index >= 0:
                shown = self.lines[s.shown_index].cards or ()
            out[s.seat] = SeatView(
                r, s.seat, s.start_stack, s.dealt_in, s.folded, s.dead, s.all_in, s.mucked,
                s.split_openers, s.ante, s.total, s.penalties, s.collected, s.at_draw,
                ctx.cards(s.dealt_start, s.dealt_count) or (),
                ctx.cards(s.discards_start, s.discards_count) or (),
                ctx.cards(s.drawn_start, s.drawn_count) or (),
                ctx.cards(s.fifth_start, s.fifth_count) or (), shown,
                ctx.cards(s.dealt_hand_start, s.dealt_hand_count),
                ctx.cards(s.final_start, s.final_count),
                Known(s.had_openers), Known(s.proof), Known(s.kept_openers),
            )
        return out

    @cached_property
    def order(self) -> list[int]:
        """The seated seats clockwise from the first left of the button."""
        position = self.ctx.seats.position
        return [n for _, n in sorted((int(position[s.row]), n) for n, s in self.seats.items())]

    @cached_property
    def _moves(self) -> list[tuple[int | None, int, bool]]:
        # Per line: its seat, the chips it moved into the pot (a penalty is dead money,
        # not the seat's), and whether it is an ante (:class:`audit.replay.state.StepHistory`).
        return [(a.seat, 0 if a.verb is Verb.PENALTY else a.chips, a.verb is Verb.ANTES)
                for a in self.lines]

    def _sums(self, start: int, stop: int, with_antes: bool) -> dict[int, int]:
        out = dict.fromkeys(self.seats, 0)
        for seat, chips, ante in self._moves[start:stop]:
            if chips and seat is not None and seat in out and (with_antes or not ante):
                out[seat] += chips
        return out

    def totals(self, index: int) -> dict[int, int]:
        """Every seat's chips in the pot before line ``index`` (:attr:`Step.totals`)."""
        return self._sums(0, index, with_antes=True)

    def stakes(self, index: int) -> dict[int, int]:
        """Every seat's chips in the betting round before line ``index`` (``Step.stakes``)."""
        start = self.lines[index].round_start
        if start < 0:
            return dict.fromkeys(self.seats, 0)
        return self._sums(start, index, with_antes=False)

    def seat(self, number: int | None) -> SeatView | None:
        """Seat ``number``'s state (None if not seated)."""
        return self.seats.get(number) if number is not None else None

    def lines_of(self, *verbs: Verb) -> list[Line]:
        """The lines with any of ``verbs``, in log order."""
        return [a for a in self.lines if a.verb in verbs]

    @property
    def result_line(self) -> int:
        """The RESULT ``Pot`` line."""
        return self.ctx.labels.result_line(self.hand)
