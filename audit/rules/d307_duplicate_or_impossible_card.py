"""D307 duplicate-or-impossible-card."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from audit.cards import DECK
from audit.replay import Replay
from audit.rule import HandContext, Result, Rule
from audit.rules._draw import before_draw, received
from schemas.findings import Severity
from schemas.records import JOKER, UNKNOWN_CARD, Action, Verb

#: Where a card is after a line: held by a seat, discarded by a seat, burned or set aside.
HELD, DISCARDED, BURNED, ASIDE = "held", "discarded", "burned", "set aside"


@dataclass(slots=True)
class _Place:
    """Where one card is: its state, the seat that holds or threw it, and since which line."""

    state: str
    seat: int | None
    line: int


#: A card placed again: the card, where it already was, and what this line did with it.
_Dup = tuple[str, _Place, str]


#: Verbs that move cards without naming any: a folded or mucked hand, a burn as ``??``.
_CARDLESS_MOVES = frozenset({Verb.FOLDS, Verb.MUCKS, Verb.BURNS})


@dataclass(slots=True)
class _Deck:
    """The physical cards of one deal as its lines place them, in log order."""

    replay: Replay
    deck_size: int
    where: dict[str, _Place] = field(default_factory=dict)
    #: Cards that left the deck so far (``??`` included: each is one physical card).
    placed: int = 0
    #: Unrecorded cards each seat holds (a discard it did not visibly hold was one).
    hidden: dict[int, int] = field(default_factory=dict)
    #: Cards each seat was given, so a fold finds its hand without a search.
    holding: dict[int, list[str]] = field(default_factory=dict)

    def line(self, a: Action) -> list[_Dup]:
        """Apply line ``a``; return each card it placed that was already placed elsewhere."""
        dups: list[_Dup] = []
        if not a.cards and not a.drawn and a.verb not in _CARDLESS_MOVES:
            return dups  # a betting line moves no card: most lines of a hand
        if a.verb in (Verb.FOLDS, Verb.MUCKS) and a.seat is not None:
            # A hand thrown away joins the discards (a reshuffle may deal it again).
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

    def _placements(self, a: Action) -> list[tuple[str, str, bool]]:
        """(card, where it goes, it was drawn off the deck in the draw) for line ``a``."""
        if a.verb is Verb.BURNS:
            return [(c, BURNED, False) for c in a.cards or (UNKNOWN_CARD,)]
        if a.verb is Verb.EXPOSES:
            states = ((c, self._exposed(a, c)) for c in a.cards or ())
            return [(c, state, False) for c, state in states if state is not None]
        if a.verb in (Verb.DEALT, Verb.DEALS) and before_draw(a):
            return [(c, HELD, False) for c in a.cards or ()]
        return [(c, HELD, True) for c in received(a)]

    def _exposed(self, a: Action, card: str) -> str | None:
        """Where an exposed card goes as a card of its own, or None when it is the card
        its seat's lines then show it holding or being given (format spec, "Cards")."""
        seat = self.replay.seat(a.seat)
        if card == UNKNOWN_CARD:
            return None
        if seat is None:
            return ASIDE
        cards = seat.dealt if before_draw(a) else [*seat.drawn, *seat.fifth]
        if card in cards:
            return None
        # Among the seat's unrecorded cards it may well be held: never a second copy.
        return HELD if UNKNOWN_CARD in cards else ASIDE

    def _discard(self, a: Action, seat: int, card: str, dups: list[_Dup]) -> None:
        place = self.where.get(card)
        if place is not None and place.state == HELD and place.seat == seat:
            place.state, place.line = DISCARDED, a.line
        elif self.hidden.get(seat, 0) > 0:
            # One of the seat's ?? cards is revealed: it is a card of the deal like any.
            self.hidden[seat] -= 1
            if card != UNKNOWN_CARD:
                before = self._clash(card, seat, drawn=False)
                if before is not None:
                    dups.append((card, before, f"discarded by seat {seat}"))
                self.where[card] = _Place(DISCARDED, seat, a.line)

    def _place(self, a: Action, card: str, state: str, drawn: bool,
               dups: list[_Dup]) -> None:
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
            self.placed += 1  # an exposed card held among ?? cards is counted there

    def _clash(self, card: str, seat: int | None, *, drawn: bool) -> _Place | None:
        """Where ``card`` already is, if placing it now makes a second copy."""
        if card == JOKER and not self.replay.record.joker:
            return None  # reported once as impossible, not again as a duplicate
        before = self.where.get(card)
        if before is None:
            return None
        if drawn and before.state == DISCARDED and before.seat == seat:
            return None  # the seat's own discard back in its hand: D308
        # Once the stub is used up the discards, folded hands and burns are shuffled
        # and dealt again: a card out of play may then be drawn by another seat.
        exhausted = self.placed >= self.deck_size - 1
        if drawn and exhausted and before.state != HELD and before.seat != seat:
            return None
        return before


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

    def check(self, ctx: HandContext) -> Iterator[Result]:
        record = ctx.record
        replay = ctx.replay
        voided = replay.misdeal_index if replay.misdeal_index is not None else -1
        deck = _Deck(replay, len(DECK) if record.joker else len(DECK) - 1)
        joker_seen = record.joker
        for a in record.actions:
            dups = deck.line(a)
            if a.index < voided:
                continue
            if not joker_seen and (a.cards or a.drawn) and JOKER in (
                    *(a.cards or ()), *(a.drawn or ())):
                joker_seen = True
                yield ctx.finding("the joker Jk appears though the table plays without it "
                                  "(Joker: no)", action=a, evidence={"card": JOKER})
            if dups:
                # One finding per line, however many cards it placed twice.
                yield ctx.finding(
                    "; ".join(f"{card} {role}, but it was already {_where(before)}"
                              for card, before, role in dups),
                    action=a,
                    evidence={"cards": [card for card, _, _ in dups],
                              "earlier": [{"card": card, "state": before.state,
                                           "seat": before.seat, "line": before.line}
                                          for card, before, _ in dups]},
                )


def _where(p: _Place) -> str:
    """Where a card already was, for messages."""
    by = f" by seat {p.seat}" if p.seat is not None else ""
    return f"{p.state}{by} (line {p.line})"
