"""D301-D306 over the fact tables (scratch: moves into audit/rules/ with the migration)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np
import numpy.typing as npt

from audit.facts.context import Batch, IntArray, Result, cards_text, money
from audit.facts.ported._meta import like
from audit.facts.rule import Rule
from audit.facts.view import HandView, Line
from audit.rules import (
    d301_misdeal_not_called,
    d302_fouled_hand_played,
    d303_five_card_draw_dealt_wrongly,
    d304_draw_out_of_order,
    d305_discards_and_draws_differ,
    d306_exposed_card_mishandled,
)
from ingest.scan.layout import SEC_DRAW, UNKNOWN_CODE
from schemas.records import UNKNOWN_CARD, Actor, Verb

HAND_SIZE = 5
MAX_AT_ONCE = 4
_SEATS = 16  # a (hand, seat) key: hand * 16 + seat
_LINES = 1 << 20  # a (hand, line) key: hand * _LINES + index
_DRAW_TURNS = (Verb.DISCARDS, Verb.STANDS_PAT)
_DRAW_LINES = frozenset({Verb.DISCARDS, Verb.STANDS_PAT, Verb.DRAWS_FIFTH})
_PLAYS = frozenset({Verb.CHECKS, Verb.OPENS, Verb.BETS, Verb.CALLS, Verb.RAISES,
                    Verb.SHOWS, Verb.MUCKS, Verb.COLLECTS})
_RECEIVING = (Verb.DISCARDS, Verb.DRAWS_FIFTH, Verb.DEALS)


def _per_seat(ctx: Batch, rows: IntArray, weights: IntArray) -> IntArray:
    """Sums of ``weights`` over action ``rows`` by (hand, seat) key."""
    a = ctx.actions
    keys = a.hand[rows].astype(np.int64) * _SEATS + a.seat[rows]
    return np.bincount(keys, weights=weights, minlength=len(ctx) * _SEATS).astype(np.int64)


def _hands(keys: IntArray) -> list[int]:
    return np.unique(keys // _SEATS).tolist()


def _seats_at_draw(view: HandView) -> list[int]:
    return [n for n in view.order if view.seats[n].at_draw]


@like(d301_misdeal_not_called.MisdealNotCalled)
class MisdealNotCalled(Rule):
    def check(self, ctx: Batch) -> Iterator[Result]:
        a, hands = ctx.actions, ctx.hands
        rows = ctx.rows(Verb.DEALT, Verb.DEALS)
        h = a.hand[rows]
        limit = np.where(hands.first_play >= 0, hands.first_play, hands.action_count)[h]
        early = rows[a.index[rows] < limit]
        held = _per_seat(ctx, early, np.maximum(a.cards_count[early], 0))
        deals = ctx.rows(Verb.DEALT)
        dealt = _per_seat(ctx, deals, np.ones(len(deals), dtype=np.int64)) > 0
        wrong = np.flatnonzero(dealt & (held != HAND_SIZE))
        for hand in _hands(wrong):
            if hands.misdeal_index[hand] < 0:
                yield from self._hand(ctx, HandView(ctx, hand))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        lines = view.lines
        first = view.row.first_play
        start = lines[first] if first >= 0 else None
        limit = start.index if start is not None else len(lines)
        deal_lines = view.lines_of(Verb.DEALT, Verb.DEALS)
        counts = _counts(a for a in deal_lines if a.index < limit)
        later = _counts(a for a in deal_lines
                        if a.index >= limit and a.before_draw and a.verb is Verb.DEALS)
        dealt = {a.seat for a in view.lines_of(Verb.DEALT)}
        button = view.row.button
        wrong = {
            seat: n for seat, n in counts.items()
            if seat in dealt and n != HAND_SIZE and not (
                seat == button and n == HAND_SIZE - 1 and later.get(seat, 0) == 1)
        }
        if not wrong:
            return
        order = view.order
        seats = sorted(wrong, key=lambda s: order.index(s) if s in order else len(order) + s)
        described = ", ".join(f"seat {s} had {wrong[s]}" for s in seats)
        line = start.line if start is not None else view.result_line
        yield ctx.finding(
            view.hand, f"{described} cards when play began, and no misdeal was called",
            action=start.row if start is not None else None, seat=seats[0], line=line,
            evidence={"cards_held": {str(s): wrong[s] for s in seats}},
        )


def _counts(lines: Iterable[Line]) -> dict[int, int]:
    counts: dict[int, int] = {}
    for a in lines:
        if a.seat is not None and a.verb in (Verb.DEALT, Verb.DEALS):
            counts[a.seat] = counts.get(a.seat, 0) + len(a.cards or ())
    return counts


@like(d302_fouled_hand_played.FouledHandPlayed)
class FouledHandPlayed(Rule):
    def check(self, ctx: Batch) -> Iterator[Result]:
        s = ctx.seats
        held = s.dealt_count - s.discards_count + s.drawn_count + s.fifth_count
        fouled = np.flatnonzero(s.at_draw & (held != HAND_SIZE))
        for hand in np.unique(s.hand[fouled]).tolist():
            yield from self._hand(ctx, HandView(ctx, hand))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        lines = view.lines
        for n in _seats_at_draw(view):
            seat = view.seats[n]
            held = len(seat.dealt) - len(seat.discards) + len(seat.drawn) + len(seat.fifth)
            if held == HAND_SIZE:
                continue
            ruled = any(a.verb is Verb.FOULED_HAND and a.seat == n for a in lines)
            last = view.row.draw_index - 1
            for a in lines:
                if a.seat == n and (a.verb in _DRAW_LINES or a.received):
                    last = max(last, a.index)
            line = _first_play(lines, n, last, collections_only=ruled)
            if line is None:
                continue
            if ruled:
                message = (f"seat {n} held {held} cards after the draw, was ruled fouled, "
                           f"and still collected {money(line.amount or 0)}")
            else:
                message = (f"seat {n} held {held} cards after the draw and played on "
                           f"({line.verb.value}) without a fouled-hand ruling")
            yield ctx.finding(view.hand, message, action=line.row, seat=n, evidence={
                "cards_held": held, "ruled_fouled": ruled, "dealt": len(seat.dealt),
                "discarded": len(seat.discards), "received": len(seat.drawn) + len(seat.fifth),
            })


def _first_play(lines: list[Line], seat: int, after: int, *, collections_only: bool
                ) -> Line | None:
    for a in lines[after + 1:]:
        if a.actor is not Actor.SEAT or a.seat != seat:
            continue
        if a.verb is Verb.COLLECTS and (a.amount or 0) > 0:
            return a
        if not collections_only and a.verb in _PLAYS and a.verb is not Verb.COLLECTS:
            return a
    return None


@like(d303_five_card_draw_dealt_wrongly.FiveCardDrawDealtWrongly)
class FiveCardDrawDealtWrongly(Rule):
    def check(self, ctx: Batch) -> Iterator[Result]:
        a = ctx.actions
        many = ctx.rows(*_RECEIVING)
        many = many[a.received_count[many] > MAX_AT_ONCE]
        fifth = ctx.rows(Verb.DRAWS_FIFTH)
        doubtful = np.concatenate((many, fifth[self._doubtful_fifths(ctx, fifth)]))
        for hand in np.unique(a.hand[doubtful]).tolist():
            yield from self._hand(ctx, HandView(ctx, hand))

    @staticmethod
    def _doubtful_fifths(ctx: Batch, fifth: IntArray) -> npt.NDArray[np.bool_]:
        """The fifth cards that may be early: a seat in the hand drew after it, or no burn
        came since the seat's last cards."""
        a = ctx.actions
        key = a.hand.astype(np.int64) * _LINES + a.index
        turns = ctx.rows(*_DRAW_TURNS)
        turns = turns[a.in_hand[turns]]
        last_turn = np.full(len(ctx), -1, dtype=np.int64)
        np.maximum.at(last_turn, a.hand[turns], a.index[turns])
        later = last_turn[a.hand[fifth]] > a.index[fifth]
        got = ctx.rows(*_RECEIVING)
        got = got[a.received_count[got] > 0]
        seat_key = (a.hand[got].astype(np.int64) * _SEATS + a.seat[got]) * _LINES + a.index[got]
        order = np.argsort(seat_key)
        mine = (a.hand[fifth].astype(np.int64) * _SEATS + a.seat[fifth]) * _LINES + a.index[fifth]
        at = np.searchsorted(seat_key[order], mine) - 1
        found = at >= 0
        previous = seat_key[order][np.maximum(at, 0)]
        found &= previous // _LINES == mine // _LINES
        burns = np.sort(key[ctx.rows(Verb.BURNS)])
        since = np.where(found, key[fifth] - (mine - previous), key[fifth])
        burned = np.searchsorted(burns, key[fifth]) - np.searchsorted(burns, since, side="right")
        # Another seat's cards in between keep the fifth apart as well as a burn.
        others = np.sort(key[got])
        between = np.searchsorted(others, key[fifth]) - np.searchsorted(others, since,
                                                                         side="right")
        return later | (found & (burned == 0) & (between == 0))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        for a in view.lines_of(*_RECEIVING):
            cards = a.received
            if len(cards) > MAX_AT_ONCE:
                yield ctx.finding(
                    view.hand,
                    f"seat {a.seat} was given {len(cards)} cards at once {cards_text(cards)}; "
                    f"at most {MAX_AT_ONCE} may be dealt in one go",
                    action=a.row, evidence={"cards": list(cards), "at_once": len(cards)},
                )
            elif a.verb is Verb.DRAWS_FIFTH:
                yield from self._fifth(ctx, view, a)

    def _fifth(self, ctx: Batch, view: HandView, fifth: Line) -> Iterator[Result]:
        lines = view.lines
        later = next((a for a in lines[fifth.index + 1:]
                      if a.verb in _DRAW_TURNS and a.seat != fifth.seat and a.in_hand), None)
        evidence: dict[str, object] = {"fifth": list(fifth.cards or ())}
        if later is not None:
            evidence["later_draw"] = {"seat": later.seat, "line": later.line}
            yield ctx.finding(
                view.hand, f"seat {fifth.seat}'s fifth card was dealt before seat {later.seat} "
                f"drew (line {later.line})", action=fifth.row, evidence=evidence,
            )
            return
        four = next((a for a in reversed(lines[:fifth.index])
                     if a.seat == fifth.seat and a.received), None)
        if four is None:
            return
        between = lines[four.index + 1:fifth.index]
        if any(a.verb is Verb.BURNS or (a.received and a.seat != fifth.seat) for a in between):
            return
        evidence["four_cards_line"] = four.line
        yield ctx.finding(
            view.hand, f"seat {fifth.seat} drew last and got its fifth card "
            f"{cards_text(fifth.cards or ())} with no burn before it", action=fifth.row,
            evidence=evidence,
        )


@like(d304_draw_out_of_order.DrawOutOfOrder)
class DrawOutOfOrder(Rule):
    def check(self, ctx: Batch) -> Iterator[Result]:
        a = ctx.actions
        turns = ctx.rows(*_DRAW_TURNS)
        turns = turns[a.in_hand[turns] & (a.position[turns] >= 0)]
        h, position = a.hand[turns], a.position[turns]
        back = (h[1:] == h[:-1]) & (position[1:] < position[:-1])
        for hand in np.unique(h[1:][back]).tolist():
            yield from self._hand(ctx, HandView(ctx, hand))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        position = {n: i for i, n in enumerate(view.order)}
        turns: list[tuple[Line, int]] = []
        seen: set[int] = set()
        for a in view.lines_of(*_DRAW_TURNS):
            if a.seat in position and a.seat not in seen and a.in_hand:
                seen.add(a.seat)
                turns.append((a, position[a.seat]))
        for k, (a, pos) in enumerate(turns):
            skipped = [b.seat for b, later in turns[k + 1:] if later < pos]
            if skipped:
                yield ctx.finding(
                    view.hand,
                    f"seat {a.seat} was served the draw before seat "
                    f"{' and seat '.join(map(str, skipped))}, which "
                    f"{'comes' if len(skipped) == 1 else 'come'} first clockwise from the button",
                    action=a.row, evidence={"skipped": skipped,
                                            "order": [b.seat for b, _ in turns]},
                )


def _receipts(view: HandView, seat: int) -> list[Line]:
    return [a for a in view.lines_of(*_RECEIVING) if a.seat == seat and a.received]


@like(d305_discards_and_draws_differ.DiscardsAndDrawsDiffer)
class DiscardsAndDrawsDiffer(Rule):
    def check(self, ctx: Batch) -> Iterator[Result]:
        a, s = ctx.actions, ctx.seats
        rows = ctx.rows(*_RECEIVING)
        got = _per_seat(ctx, rows, a.received_count[rows])
        got = got[s.hand.astype(np.int64) * _SEATS + s.seat]
        discarded, dealt = s.discards_count, s.dealt_count
        odd = s.at_draw & (got != discarded) & ~(
            (dealt < HAND_SIZE) & (got == discarded + HAND_SIZE - dealt))
        for hand in np.unique(s.hand[odd]).tolist():
            yield from self._hand(ctx, HandView(ctx, hand))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        lines_all = view.lines
        for n in _seats_at_draw(view):
            seat = view.seats[n]
            discarded = len(seat.discards)
            lines = _receipts(view, n)
            got = sum(len(a.received) for a in lines)
            allowed = {discarded}
            if len(seat.dealt) < HAND_SIZE:
                allowed.add(discarded + HAND_SIZE - len(seat.dealt))
            if got in allowed:
                continue
            evidence = {"discarded": discarded, "received": got,
                        "lines": [a.line for a in lines]}
            message = (f"seat {n} discarded {discarded} and received {got} "
                       f"card{'' if got == 1 else 's'}")
            if got > max(allowed):
                total = 0
                for a in lines:
                    total += len(a.received)
                    if total > max(allowed):
                        yield ctx.finding(view.hand, message, action=a.row, evidence=evidence)
                        break
                continue
            last = max([a.index for a in lines_all if a.seat == n and a.verb in _DRAW_LINES]
                       + [a.index for a in lines] + [max(view.row.draw_index, 0) - 1])
            went_on = next((a.line for a in lines_all[last + 1:] if a.after_draw),
                           view.result_line)
            yield ctx.finding(view.hand, message, seat=n, line=went_on, evidence=evidence)


@like(d306_exposed_card_mishandled.ExposedCardMishandled)
class ExposedCardMishandled(Rule):
    def check(self, ctx: Batch) -> Iterator[Result]:
        a, s = ctx.actions, ctx.seats
        rows = ctx.rows(Verb.EXPOSES)
        rows = rows[a.status[rows] != 0]
        seat = ctx.seat_rows(a.hand[rows], a.seat[rows])
        unknown = np.uint64(1) << np.uint64(UNKNOWN_CODE)
        exposed = a.cards_mask[rows] & ~unknown
        dealt = s.dealt_mask[seat]
        received = s.drawn_mask[seat] | s.fifth_mask[seat]
        doubtful = np.where(a.section[rows] < SEC_DRAW,
                            ((exposed & ~dealt) != 0) | ((dealt & unknown) != 0),
                            ((exposed & received) != 0) | ((received & unknown) != 0))
        doubtful &= exposed != 0
        for hand in np.unique(a.hand[rows[doubtful]]).tolist():
            yield from self._hand(ctx, HandView(ctx, hand))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        for line in view.lines_of(Verb.EXPOSES):
            if line.seat is None or view.seat(line.seat) is None:
                continue
            for card in line.cards or ():
                if card == UNKNOWN_CARD:
                    continue
                if line.before_draw:
                    yield from self._kept(ctx, view, line, line.seat, card)
                else:
                    yield from self._refused(ctx, view, line, line.seat, card)

    def _kept(self, ctx: Batch, view: HandView, line: Line, seat: int, card: str
              ) -> Iterator[Result]:
        dealt = view.seats[seat].dealt
        if card in dealt:
            return
        if UNKNOWN_CARD in dealt:
            yield ctx.unverifiable(
                view.hand, f"seat {seat}'s dealt cards are ??; exposed {card} unchecked",
                seat=seat)
            return
        yield ctx.finding(
            view.hand, f"{card} was exposed to seat {seat} before the draw but seat {seat} did "
            f"not keep it: dealt {cards_text(dealt)}",
            action=line.row, evidence={"exposed": card, "dealt": list(dealt)},
        )

    def _refused(self, ctx: Batch, view: HandView, line: Line, seat: int, card: str
                 ) -> Iterator[Result]:
        given = _receipts(view, seat)
        for a in given:
            if card in a.received:
                yield ctx.finding(
                    view.hand, f"{card}, exposed to seat {seat} in the draw (line {line.line}), "
                    f"was given to seat {seat} in {cards_text(a.received)}",
                    action=a.row, seat=seat, evidence={"exposed": card, "exposed_line": line.line,
                                                       "received": list(a.received)},
                )
                return
        if not any(UNKNOWN_CARD in a.received for a in given):
            return
        state = view.seats[seat]
        final = state.shown
        if final is not None and UNKNOWN_CARD not in final:
            if card not in final:
                return
            if card not in state.dealt:
                a = next(a for a in given if UNKNOWN_CARD in a.received)
                yield ctx.finding(
                    view.hand, f"{card}, exposed to seat {seat} in the draw (line {line.line}), "
                    f"is in seat {seat}'s shown hand {cards_text(final)}",
                    action=a.row, seat=seat, evidence={"exposed": card, "exposed_line": line.line,
                                                       "shown": list(final)},
                )
                return
        yield ctx.unverifiable(view.hand, f"seat {seat} received ?? after {card} was exposed "
                               "to it", seat=seat)


RULES = (MisdealNotCalled, FouledHandPlayed, FiveCardDrawDealtWrongly, DrawOutOfOrder,
         DiscardsAndDrawsDiffer, ExposedCardMishandled)


