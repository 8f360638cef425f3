"""D307 duplicate-or-impossible-card."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from audit.cards import DECK
from audit.facts.context import Batch, IntArray, Result
from audit.facts.view import HandView, Line, hand_view
from audit.rule import Rule
from ingest.scan.layout import (
    JOKER_CODE,
    SEC_DRAW,
    UNKNOWN_CODE,
)
from schemas.findings import Severity
from schemas.records import JOKER, UNKNOWN_CARD, Verb

_CARDLESS_MOVES = frozenset({Verb.FOLDS, Verb.MUCKS, Verb.BURNS})
#: The verbs whose lines place cards other than an exposed one (dealt, drawn, burned,
#: a discard that may reveal a ``??``).
_PLACING = (Verb.DEALT, Verb.DEALS, Verb.BURNS, Verb.DRAWS_FIFTH, Verb.DISCARDS)

HELD, DISCARDED, BURNED, ASIDE = "held", "discarded", "burned", "set aside"


@dataclass(slots=True)
class _Place:
    state: str
    seat: int | None
    line: int


_Dup = tuple[str, _Place, str]


@dataclass(slots=True)
class _Deck:
    """The physical cards of one deal as its lines place them, in log order."""

    view: HandView
    deck_size: int
    where: dict[str, _Place] = field(default_factory=dict)
    placed: int = 0
    hidden: dict[int, int] = field(default_factory=dict)
    holding: dict[int, list[str]] = field(default_factory=dict)

    def line(self, a: Line) -> list[_Dup]:
        dups: list[_Dup] = []
        if not a.cards and not a.drawn and a.verb not in _CARDLESS_MOVES:
            return dups
        if a.verb in (Verb.FOLDS, Verb.MUCKS) and a.seat is not None:
            for card in self.holding.pop(a.seat, ()):
                place = self.where[card]
                if place.state == HELD and place.seat == a.seat:
                    place.state = DISCARDED
        if a.verb is Verb.DISCARDS and a.seat is not None:
            for card in a.cards or ():
                self._discard(a, a.seat, card, dups)
        for card, state, drawn in self._placements(a):
            self._place(a, card, state, drawn, dups)
        return dups

    def _placements(self, a: Line) -> list[tuple[str, str, bool]]:
        if a.verb is Verb.BURNS:
            return [(c, BURNED, False) for c in a.cards or (UNKNOWN_CARD,)]
        if a.verb is Verb.EXPOSES:
            states = ((c, self._exposed(a, c)) for c in a.cards or ())
            return [(c, state, False) for c, state in states if state is not None]
        if a.verb in (Verb.DEALT, Verb.DEALS) and a.before_draw:
            return [(c, HELD, False) for c in a.cards or ()]
        return [(c, HELD, True) for c in a.received]

    def _exposed(self, a: Line, card: str) -> str | None:
        seat = self.view.seat(a.seat)
        if card == UNKNOWN_CARD:
            return None
        if seat is None:
            return ASIDE
        cards = seat.dealt if a.before_draw else (*seat.drawn, *seat.fifth)
        if card in cards:
            return None
        return HELD if UNKNOWN_CARD in cards else ASIDE

    def _discard(self, a: Line, seat: int, card: str, dups: list[_Dup]) -> None:
        place = self.where.get(card)
        if place is not None and place.state == HELD and place.seat == seat:
            place.state, place.line = DISCARDED, a.line
        elif self.hidden.get(seat, 0) > 0:
            self.hidden[seat] -= 1
            if card != UNKNOWN_CARD:
                before = self._clash(card, seat, drawn=False)
                if before is not None:
                    dups.append((card, before, f"discarded by seat {seat}"))
                self.where[card] = _Place(DISCARDED, seat, a.line)

    def _place(self, a: Line, card: str, state: str, drawn: bool, dups: list[_Dup]) -> None:
        seat = a.seat if state == HELD else None
        if card == UNKNOWN_CARD:
            if seat is not None:
                self.hidden[seat] = self.hidden.get(seat, 0) + 1
        else:
            before = self._clash(card, seat, drawn=drawn)
            if before is not None:
                role = (f"exposed to seat {a.seat}" if a.verb is Verb.EXPOSES else "burned"
                        if state == BURNED else f"drawn by seat {seat}" if drawn
                        else f"dealt to seat {seat}")
                dups.append((card, before, role))
            self.where[card] = _Place(state, seat, a.line)
            if seat is not None:
                self.holding.setdefault(seat, []).append(card)
        if not (a.verb is Verb.EXPOSES and state == HELD):
            self.placed += 1

    def _clash(self, card: str, seat: int | None, *, drawn: bool) -> _Place | None:
        if card == JOKER and not self.view.row.joker:
            return None
        before = self.where.get(card)
        if before is None:
            return None
        if drawn and before.state == DISCARDED and before.seat == seat:
            return None
        exhausted = self.placed >= self.deck_size - 1
        if drawn and exhausted and before.state != HELD and before.seat != seat:
            return None
        return before


def _deck_candidates(ctx: Batch) -> IntArray:
    """Hands where a card may be placed twice: a known card named again by a line that
    deals, draws or burns cards (``hands.cards_repeated``), or exposed without being the
    card its seat holds or is given; and hands naming ``Jk`` at a table without it."""
    a, h, s = ctx.actions, ctx.hands, ctx.seats
    joker = np.uint64(1) << np.uint64(JOKER_CODE)
    unknown = np.uint64(1) << np.uint64(UNKNOWN_CODE)
    named = a.hand[np.flatnonzero(((a.cards_mask | a.drawn_mask) & joker) != 0)]
    impossible = np.unique(named[~h.joker[named]])
    exposes = ctx.rows(Verb.EXPOSES)
    seat = ctx.seat_rows(a.hand[exposes], a.seat[exposes])
    held = np.where(a.section[exposes] < SEC_DRAW, s.dealt_mask[seat],
                    s.drawn_mask[seat] | s.fifth_mask[seat])
    aside = (seat < 0) | ((a.cards_mask[exposes] & ~held & ~unknown) != 0)
    aside &= (a.cards_mask[exposes] & ~unknown) != 0
    # An exposed card of its own is a duplicate only if another line names it too (or
    # the hand exposes more than one card).
    placing = ctx.rows(*_PLACING)
    exposing = np.zeros(len(ctx), dtype=bool)  # only the hands that expose a card matter
    exposing[a.hand[exposes]] = True
    placing = placing[exposing[a.hand[placing]]]
    named_elsewhere = np.zeros(len(ctx), dtype=np.uint64)
    np.bitwise_or.at(named_elsewhere, a.hand[placing],
                     a.cards_mask[placing] | a.drawn_mask[placing])
    several = (np.bincount(a.hand[exposes], minlength=len(ctx)) > 1)[a.hand[exposes]]
    aside &= (((a.cards_mask[exposes] & named_elsewhere[a.hand[exposes]]) != 0) | several
              | (a.cards_count[exposes] > 1))
    return np.union1d(np.union1d(np.flatnonzero(h.cards_repeated > 0), impossible),
                      a.hand[exposes[aside]])


def _where(p: _Place) -> str:
    by = f" by seat {p.seat}" if p.seat is not None else ""
    return f"{p.state}{by} (line {p.line})"


class DuplicateOrImpossibleCard(Rule):
    """Flags a card placed twice in one deal, or the joker in a deck without it.

    What it does:
        Follows every physical card in log order: dealt (DEAL lines, ``Dealer:
        deals``), drawn (``draws``, ``draws fifth``), burned, and exposed. A card
        named by ``exposes`` is the card its seat then holds or is given, not a
        second copy; only a refused exposed card is one of its own. A card placed
        while it is already held, burned or set aside is a duplicate (one finding
        per line, naming the cards). A seat's own discard drawn back is D308's; a
        discard, folded card or burn drawn by another seat once the deck ran out (all
        but its last card dealt) is a reshuffle. A discard that reveals one of the
        seat's ``??`` cards counts as that card. With ``Joker: no``, the first line
        naming ``Jk`` is flagged. ``??`` never duplicates. Lines before a ``Dealer:
        misdeal`` are not judged: the deal was voided.

    Why it matters:
        Two copies of a card mean a foul deck or a card brought into the game:
        the integrity of every hand at the table is in doubt.

    Example:
        ``Seat 2: [Kd Kc 7s 7h 2d]`` and in the draw ``Dealer: burns [Kd]``: D307 at
        the burn line.

    Source:
        No seed sentence: deck integrity (a deck has one of each card, and the joker
        only where the table plays with it).
    """

    code = "D307"
    name = "duplicate-or-impossible-card"
    severity = Severity.CRITICAL
    source = "— (deck integrity)"
    summary = "A card appears twice in one deal, or the joker appears when Joker: no."

    def check(self, ctx: Batch) -> Iterator[Result]:
        for hand in _deck_candidates(ctx).tolist():
            yield from self._hand(ctx, hand_view(ctx, hand))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        joker = view.row.joker
        voided = view.row.misdeal_index
        deck = _Deck(view, len(DECK) if joker else len(DECK) - 1)
        joker_seen = joker
        for a in view.lines:
            dups = deck.line(a)
            if a.index < voided:
                continue
            if not joker_seen and (a.cards or a.drawn) and JOKER in (
                    *(a.cards or ()), *(a.drawn or ())):
                joker_seen = True
                yield ctx.finding(view.hand, "the joker Jk appears though the table plays "
                                  "without it (Joker: no)", action=a.row,
                                  evidence={"card": JOKER})
            if dups:
                yield ctx.finding(
                    view.hand,
                    "; ".join(f"{card} {role}, but it was already {_where(before)}"
                              for card, before, role in dups),
                    action=a.row,
                    evidence={"cards": [card for card, _, _ in dups],
                              "earlier": [{"card": card, "state": before.state,
                                           "seat": before.seat, "line": before.line}
                                          for card, before, _ in dups]},
                )
