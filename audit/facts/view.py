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
from operator import add, itemgetter
from typing import NamedTuple

import numpy as np

from audit.facts.context import Batch
from audit.facts.tables import SEAT, Known
from ingest.scan.layout import ACTOR_CODE, SECTION_ORDER, VERBS
from schemas.records import CARD_CODES, SECTION_POSITION, Actor, Section, Verb

_ACTORS = {code: actor for actor, code in ACTOR_CODE.items()}
_POSITION = SECTION_POSITION
_DRAW = _POSITION[Section.DRAW]
# Codes to words by list position: a candidate hand's lines are built by the thousand.
_SECTIONS = list(SECTION_ORDER)
_ACTOR_OF = [_ACTORS.get(code) for code in range(max(_ACTORS) + 1)]
_VERBS = list(VERBS)
_LINE_COLUMNS = (
    "index", "line", "section", "actor", "verb", "seat", "amount", "to_amount", "says_all_in",
    "side_pot", "cards_start", "cards_count", "drawn_start", "drawn_count", "in_hand",
    "pot_open", "opener", "street", "chips", "current_bet", "bet_after", "stake", "round_start",
    "received_start", "received_count")
_SEAT_COLUMNS = (
    "seat", "start_stack", "dealt_in", "folded", "dead", "all_in", "mucked", "split_openers",
    "ante", "total", "penalties", "collected", "at_draw", "shown_index",
    "had_openers", "proof", "kept_openers")
#: A seat's card lists, as :class:`SeatView` holds them (in this order).
_SEAT_CARDS = ("dealt", "discards", "drawn", "fifth", "dealt_hand", "final")
_KNOWN = {int(k): k for k in Known}
#: A row of the seats table (a tuple) to the fields a SeatView is made of.
_SEAT_PICK = itemgetter(*((SEAT.names or ()).index(name) for name in (
    *_SEAT_COLUMNS, *(f"{kind}_{end}" for kind in _SEAT_CARDS for end in ("start", "count")))))
# A line's card ranges (start, count) among _LINE_COLUMNS; in a picked seat row, its
# shown line and its card lists (start, count pairs in _SEAT_CARDS order, after
# _SEAT_COLUMNS).
_CARD_RANGES = tuple(_LINE_COLUMNS.index(f"{kind}_{end}") for kind in ("cards", "drawn", "received")
                     for end in ("start", "count"))
_SHOWN = _SEAT_COLUMNS.index("shown_index")
_LISTS = len(_SEAT_COLUMNS)


def _names(cards: np.ndarray, low: int, high: int) -> list[str]:
    """The names of cards ``low``..``high`` of a card array."""
    return list(map(CARD_CODES.__getitem__, cards[low:high].tolist())) if high > low else []


def hand_view(ctx: Batch, hand: int) -> HandView:
    """Hand row ``hand`` of ``ctx`` read line by line, built once per batch: every rule that
    looks at the hand shares its lines and seats (and what they derive, ``view.memo``)."""
    views = ctx.memo.setdefault("views", {})
    view = views.get(hand)
    if view is None:
        view = views[hand] = HandView(ctx, hand)
    return view


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
        #: What the rules derive from the hand, kept for the next rule that asks.
        self.memo: dict[str, object] = {}

    @cached_property
    def lines(self) -> list[Line]:
        """Every line of the hand, in log order."""
        first, count = self.row.action_start, self.row.action_count
        if not count:
            return []
        a = self.ctx.actions
        rows = slice(first, first + count)
        columns = [getattr(a, name)[rows].tolist() for name in _LINE_COLUMNS]
        cs, cc, ds, dc, rs, rc = (columns[k] for k in _CARD_RANGES)
        # The hand's line cards are one stretch of the card array: decode it once.
        low = cs[0]
        high = max(max(map(add, cs, cc)), max(map(add, ds, dc)), max(map(add, rs, rc)))
        names = _names(self.ctx.facts.cards, low, high)
        new = tuple.__new__
        return [
            new(Line, (first + i, index, line, _SECTIONS[section], _ACTOR_OF[actor],
                       _VERBS[verb], seat or None, None if amount < 0 else amount,
                       None if to_amount < 0 else to_amount, says_all_in, side_pot,
                       None if cc < 0 else tuple(names[cs - low:cs - low + cc]),
                       None if dc < 0 else tuple(names[ds - low:ds - low + dc]),
                       in_hand, pot_open, opener or None, street, chips, current_bet,
                       bet_after, stake, round_start,
                       tuple(names[rs - low:rs - low + rc]) if rc > 0 else ()))
            for i, (index, line, section, actor, verb, seat, amount, to_amount, says_all_in,
                    side_pot, cs, cc, ds, dc, in_hand, pot_open, opener, street, chips,
                    current_bet, bet_after, stake, round_start, rs, rc)
            in enumerate(zip(*columns, strict=True))
        ]

    @cached_property
    def seats(self) -> dict[int, SeatView]:
        """The seated seats by number (header order)."""
        first, count = self.row.seat_start, self.row.seat_count
        if not count:
            return {}
        picked = list(map(_SEAT_PICK, self.ctx.facts.seats[first:first + count].tolist()))
        # A hand's seat lists are one stretch of the card array: decode it once.
        ranges = [(b, n) for p in picked for b, n in zip(p[_LISTS::2], p[_LISTS + 1::2],
                                                         strict=True) if n > 0]
        low = min((b for b, _ in ranges), default=0)
        high = max((b + n for b, n in ranges), default=0)
        names = _names(self.ctx.facts.cards, low, high)
        lines = self.lines if any(p[_SHOWN] >= 0 for p in picked) else []
        out = {}
        for i, p in enumerate(picked):
            dealt, discards, drawn, fifth, dealt_hand, final = (
                None if n < 0 else tuple(names[b - low:b - low + n])
                for b, n in zip(p[_LISTS::2], p[_LISTS + 1::2], strict=True))
            shown = None if p[_SHOWN] < 0 else (lines[p[_SHOWN]].cards or ())
            (number, stack, dealt_in, folded, dead, all_in, mucked, split_openers, ante, total,
             penalties, collected, at_draw, _, had_openers, proof, kept_openers) = p[:_LISTS]
            out[number] = SeatView(
                first + i, number, stack, dealt_in, folded, dead, all_in, mucked,
                split_openers, ante, total, penalties, collected, at_draw, dealt or (),
                discards or (), drawn or (), fifth or (), shown, dealt_hand, final,
                _KNOWN[had_openers], _KNOWN[proof], _KNOWN[kept_openers])
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
