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
from audit.facts.rows import RowReader
from audit.facts.tables import ACTION, SEAT, Known
from ingest.scan.layout import ACTOR_CODE, SECTION_ORDER, VERBS
from schemas.records import CARD_CODES, SECTION_POSITION, Actor, Section, Verb

_ACTORS = {code: actor for actor, code in ACTOR_CODE.items()}
_POSITION = SECTION_POSITION
_DRAW = _POSITION[Section.DRAW]
# Codes to words by list position: a candidate hand's lines are built by the thousand.
_SECTIONS = list(SECTION_ORDER)
_ACTOR_OF = [_ACTORS.get(code) for code in range(max(_ACTORS) + 1)]
_VERBS = list(VERBS)
#: What a :class:`Line` reads of its actions row, in the row's order (the order in which
#: :attr:`HandView.lines` unpacks them).
_LINE_READER = RowReader(ACTION, (
    "index", "line", "section", "actor", "verb", "seat", "amount", "to_amount", "says_all_in",
    "side_pot", "cards_start", "cards_count", "drawn_start", "drawn_count", "street",
    "in_hand", "current_bet", "stake", "pot_open", "opener", "chips", "bet_after",
    "round_start", "received_start", "received_count"))
# A line's card ranges (start, count pairs: its cards, drawn and received) in what it reads.
_CARD_RANGES = tuple(_LINE_READER.names.index(f"{kind}_{end}")
                     for kind in ("cards", "drawn", "received") for end in ("start", "count"))
#: A seat's card lists, as :class:`SeatView` holds them (in this order).
_SEAT_CARDS = ("dealt", "discards", "drawn", "fifth", "dealt_hand", "final")
#: What a :class:`SeatView` reads of its seats row, in the row's order: its state, its
#: place clockwise (for :attr:`HandView.order`), its card lists (start, count pairs in
#: _SEAT_CARDS order, from ``_LISTS``) and its openers.
_SEAT_READER = RowReader(SEAT, (
    "seat", "position", "start_stack", "dealt_in", "folded", "dead", "all_in",
    "split_openers", "mucked", "ante", "total", "penalties", "collected", "shown_index",
    "at_draw", *(f"{kind}_{end}" for kind in _SEAT_CARDS for end in ("start", "count")),
    "had_openers", "proof", "kept_openers"))
_LISTS = _SEAT_READER.names.index("dealt_start")
_LISTS_END = _LISTS + 2 * len(_SEAT_CARDS)
_SHOWN = _SEAT_READER.names.index("shown_index")
_KNOWN = {int(k): k for k in Known}


def _names(cards: np.ndarray, low: int, high: int) -> tuple[str, ...]:
    """The names of cards ``low``..``high`` of a card array (a tuple: a slice of it is a
    card list as the views hold them)."""
    return tuple(map(CARD_CODES.__getitem__, cards[low:high].tolist())) if high > low else ()


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
        # Each seat's place clockwise from left of the button (``seats`` fills it).
        self._places: dict[int, int] = {}

    @cached_property
    def lines(self) -> list[Line]:
        """Every line of the hand, in log order."""
        first, count = self.row.action_start, self.row.action_count
        if not count:
            return []
        rows = _LINE_READER.rows(self.ctx.facts.actions, first, first + count)
        # The hand's line cards are one stretch of the card array: decode it once.
        low = rows[0][_CARD_RANGES[0]]
        high = max(max(r[k] + r[k + 1] for r in rows) for k in _CARD_RANGES[::2])
        names = _names(self.ctx.facts.cards, low, high)
        new = tuple.__new__
        return [
            new(Line, (first + i, index, line, _SECTIONS[section], _ACTOR_OF[actor],
                       _VERBS[verb], seat or None, None if amount < 0 else amount,
                       None if to_amount < 0 else to_amount, says_all_in, side_pot,
                       None if cc < 0 else names[cs - low:cs - low + cc],
                       None if dc < 0 else names[ds - low:ds - low + dc],
                       in_hand, pot_open, opener or None, street, chips, current_bet,
                       bet_after, stake, round_start,
                       names[rs - low:rs - low + rc] if rc > 0 else ()))
            for i, (index, line, section, actor, verb, seat, amount, to_amount, says_all_in,
                    side_pot, cs, cc, ds, dc, street, in_hand, current_bet, stake, pot_open,
                    opener, chips, bet_after, round_start, rs, rc)
            in enumerate(rows)
        ]

    @cached_property
    def seats(self) -> dict[int, SeatView]:
        """The seated seats by number (header order)."""
        first, count = self.row.seat_start, self.row.seat_count
        if not count:
            return {}
        picked = _SEAT_READER.rows(self.ctx.facts.seats, first, first + count)
        # A hand's seat lists are one stretch of the card array: decode it once.
        ranges = [(b, n) for p in picked for b, n in zip(p[_LISTS:_LISTS_END:2],
                                                         p[_LISTS + 1:_LISTS_END:2],
                                                         strict=True) if n > 0]
        low = min((b for b, _ in ranges), default=0)
        high = max((b + n for b, n in ranges), default=0)
        names = _names(self.ctx.facts.cards, low, high)
        lines = self.lines if any(p[_SHOWN] >= 0 for p in picked) else []
        out = {}
        new = tuple.__new__  # the named tuple's own __new__ is a Python call per seat
        for i, p in enumerate(picked):
            dealt, discards, drawn, fifth, dealt_hand, final = (
                None if n < 0 else names[b - low:b - low + n]
                for b, n in zip(p[_LISTS:_LISTS_END:2], p[_LISTS + 1:_LISTS_END:2],
                                strict=True))
            (number, position, stack, dealt_in, folded, dead, all_in, split_openers, mucked,
             ante, total, penalties, collected, shown_index, at_draw) = p[:_LISTS]
            had_openers, proof, kept_openers = p[_LISTS_END:]
            shown = None if shown_index < 0 else (lines[shown_index].cards or ())
            self._places[number] = position
            out[number] = new(SeatView, (
                first + i, number, stack, dealt_in, folded, dead, all_in, mucked,
                split_openers, ante, total, penalties, collected, at_draw, dealt or (),
                discards or (), drawn or (), fifth or (), shown, dealt_hand, final,
                _KNOWN[had_openers], _KNOWN[proof], _KNOWN[kept_openers]))
        return out

    @cached_property
    def order(self) -> list[int]:
        """The seated seats clockwise from the first left of the button."""
        return [n for _, n in sorted((self._places[n], n) for n in self.seats)]

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
