"""D307-D308 over the fact tables (scratch: moves into audit/rules/ with the migration)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from audit.cards import DECK
from audit.facts.context import Batch, IntArray, Result, cards_text
from audit.facts.ported._meta import like
from audit.facts.rule import Rule
from audit.facts.view import HandView, Line
from audit.rules import d307_duplicate_or_impossible_card, d308_discard_taken_back
from ingest.scan.layout import (
    JOKER_CODE,
    SEC_DRAW,
    UNKNOWN_CODE,
    V_DEALS,
    V_DISCARDS,
    V_MUCKS,
    V_SHOWS,
)
from schemas.records import JOKER, UNKNOWN_CARD, Actor, Verb

HELD, DISCARDED, BURNED, ASIDE = "held", "discarded", "burned", "set aside"
_CARDLESS_MOVES = frozenset({Verb.FOLDS, Verb.MUCKS, Verb.BURNS})
_PLACING = (Verb.BURNS, Verb.EXPOSES, Verb.DEALT, Verb.DEALS, Verb.DISCARDS, Verb.DRAWS_FIFTH)


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
    named = ((a.cards_mask | a.drawn_mask) & joker) != 0
    impossible = np.unique(a.hand[named & ~h.joker[a.hand]])
    exposes = ctx.rows(Verb.EXPOSES)
    seat = ctx.seat_rows(a.hand[exposes], a.seat[exposes])
    held = np.where(a.section[exposes] < SEC_DRAW, s.dealt_mask[seat],
                    s.drawn_mask[seat] | s.fifth_mask[seat])
    aside = (seat < 0) | ((a.cards_mask[exposes] & ~held & ~unknown) != 0)
    aside &= (a.cards_mask[exposes] & ~unknown) != 0
    return np.union1d(np.union1d(np.flatnonzero(h.cards_repeated > 0), impossible),
                      a.hand[exposes[aside]])


@like(d307_duplicate_or_impossible_card.DuplicateOrImpossibleCard)
class DuplicateOrImpossibleCard(Rule):
    def check(self, ctx: Batch) -> Iterator[Result]:
        for hand in _deck_candidates(ctx).tolist():
            yield from self._hand(ctx, HandView(ctx, hand))

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


def _where(p: _Place) -> str:
    by = f" by seat {p.seat}" if p.seat is not None else ""
    return f"{p.state}{by} (line {p.line})"


_FINAL = frozenset({Verb.SHOWS, Verb.MUCKS})
_MATTER = (Verb.DISCARDS, Verb.DRAWS_FIFTH, Verb.DEALS, *_FINAL)


def _own(a: Line) -> bool:
    return (a.actor is Actor.SEAT or a.verb is Verb.DEALS) and a.seat is not None


@like(d308_discard_taken_back.DiscardTakenBack)
class DiscardTakenBack(Rule):
    def check(self, ctx: Batch) -> Iterator[Result]:
        a = ctx.actions
        rows = ctx.rows(*_MATTER)
        rows = rows[(a.actor[rows] == 0) | (a.verb[rows] == V_DEALS)]
        keys = a.hand[rows].astype(np.int64) * 16 + a.seat[rows]
        verb = a.verb[rows]
        final = (verb == V_SHOWS) | (verb == V_MUCKS)
        received = np.where(verb == V_DISCARDS, a.drawn_mask[rows],
                            np.where((verb == V_DEALS) & (a.section[rows] < SEC_DRAW), 0,
                                     a.cards_mask[rows]).astype(np.uint64))
        thrown = np.zeros(len(ctx) * 16, dtype=np.uint64)
        back = np.zeros(len(ctx) * 16, dtype=np.uint64)
        named = np.zeros(len(ctx) * 16, dtype=bool)
        discarding = verb == V_DISCARDS
        np.bitwise_or.at(thrown, keys[discarding], a.cards_mask[rows[discarding]])
        np.bitwise_or.at(back, keys, np.where(final, a.cards_mask[rows], received))
        named[keys[final & (a.cards_count[rows] > 0)]] = True
        unknown = np.uint64(1) << np.uint64(UNKNOWN_CODE)
        suspects = ((thrown & back & ~unknown) != 0) | (((thrown & unknown) != 0) & named)
        for hand in np.unique(np.flatnonzero(suspects) // 16).tolist():
            yield from self._hand(ctx, HandView(ctx, hand))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        if not any(a.cards for a in view.lines_of(Verb.DISCARDS)):
            return
        lines: dict[int, list[Line]] = {}
        for a in view.lines_of(*_MATTER):
            if _own(a):
                lines.setdefault(a.seat, []).append(a)  # type: ignore[arg-type]  # _own
        first: dict[int, int] = {}
        for a in view.lines:
            if a.seat in lines and a.seat not in first and _own(a):
                first[a.seat] = a.index
        for seat in sorted(lines, key=first.__getitem__):
            yield from self._seat(ctx, view, seat, lines[seat])

    def _seat(self, ctx: Batch, view: HandView, seat: int, own: list[Line]
              ) -> Iterator[Result]:
        discarded: list[str] = []
        hidden = False
        seen_drawn: list[str] = []
        reported: set[str] = set()
        for a in own:
            if a.verb is Verb.DISCARDS:
                discarded.extend(c for c in a.cards or () if c != UNKNOWN_CARD)
                hidden = hidden or UNKNOWN_CARD in (a.cards or ())
            if a.verb in _FINAL:
                hand = a.cards or ()
                back = [c for c in hand if c in discarded and c not in reported]
                if not back and hidden and any(
                        c not in seen_drawn for c in hand if c != UNKNOWN_CARD):
                    yield ctx.unverifiable(
                        view.hand, f"seat {seat} discarded ?? cards; its final hand cannot be "
                        "checked", seat=seat)
                    continue
            else:
                hand = a.received
                seen_drawn.extend(hand)
                back = [c for c in hand if c in discarded]
            if back:
                reported.update(back)
                yield ctx.finding(
                    view.hand,
                    f"seat {seat} discarded {cards_text(back)} and "
                    + ("holds it again in its final hand " if a.verb in _FINAL
                       else "was dealt it again in ") + cards_text(hand),
                    action=a.row, seat=seat, evidence={"cards": back, "hand": list(hand),
                                                       "discarded": list(discarded)},
                )


RULES = (DuplicateOrImpossibleCard, DiscardTakenBack)
