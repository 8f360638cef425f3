"""P401-P404 over the fact tables (scratch: moves into audit/rules/ with the migration)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import numpy as np

from audit.evaluator import HandCategory, category, describe_strength
from audit.facts.context import Batch, Result, money
from audit.facts.ported._meta import like
from audit.facts.ported.openers_help import collections
from audit.facts.rule import Rule
from audit.facts.tables import UNKNOWN, seats_of
from audit.facts.view import HandView
from audit.rules import (
    p401_pot_awarded_to_wrong_hand,
    p402_chips_not_conserved,
    p403_side_pot_misdistributed,
    p404_hand_misread,
)
from audit.rules._pots import fair_splits, pot_label
from ingest.scan.layout import ACTOR_SEAT
from schemas.records import Verb

_CATEGORY = tuple(HandCategory)


def _paid_rows(ctx: Batch) -> np.ndarray:
    """The ``collects`` lines of seated seats."""
    a = ctx.actions
    rows = ctx.rows(Verb.COLLECTS)
    return rows[(a.actor[rows] == ACTOR_SEAT) & (a.status[rows] != 0)]


@like(p401_pot_awarded_to_wrong_hand.PotAwardedToWrongHand)
class PotAwardedToWrongHand(Rule):
    def check(self, ctx: Batch) -> Iterator[Result]:
        a, h, p, s = ctx.actions, ctx.hands, ctx.pots, ctx.seats
        rows = _paid_rows(ctx)
        hand = a.hand[rows]
        seat = ctx.seat_rows(hand, a.seat[rows])  # the collector, seated: its final state
        in_hand = s.dealt_in[seat] & ~(s.folded[seat] | s.dead[seat])
        number = a.side_pot[rows]
        has_pot = number < h.pot_count[hand]
        pot = np.where(has_pot, h.pot_start[hand] + number, 0)
        bit = np.left_shift(1, a.seat[rows].astype(np.int64))
        winners = p.winners[pot]
        doubtful = ((p.contenders[pot] & bit) == 0) | (winners == 0) | ((winners & bit) == 0)
        doubtful |= (winners & (winners - 1)) != 0  # a split pot: are the shares fair?
        doubtful &= has_pot & in_hand & (h.misdeal_index[hand] < 0)
        for one in np.unique(hand[doubtful]).tolist():
            yield from self._hand(ctx, HandView(ctx, one))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        every = collections(view)
        unverifiable: set[int] = set()
        order = view.order
        for k in range(view.row.pot_count):
            pot = ctx.pot(view.row.pot_start + k)
            paid = [c for c in every if c[3] == pot.number
                    and (st := view.seat(c[1])) is not None and st.in_hand]
            if not paid:
                continue
            contenders = [n for n in order if pot.contenders >> n & 1]
            winners = [n for n in order if pot.winners >> n & 1]
            unknown = [n for n in order if pot.unknown >> n & 1]
            fouled = {n for n in order if pot.fouled >> n & 1}
            best = describe_strength(pot.best) if pot.best >= 0 else None
            if not contenders or any(c[1] in fouled for c in paid):
                continue
            strangers = [c for c in paid if c[1] not in contenders]
            for c in strangers:
                yield self._wrong_seat(ctx, view, pot.number, c, contenders, winners, best)
            if strangers:
                continue
            if not winners:
                for n in unknown:
                    if n not in unverifiable:
                        unverifiable.add(n)
                        yield ctx.unverifiable(
                            view.hand,
                            f"seat {n}'s final hand is not known ({pot_label(pot.number)})",
                            seat=n)
                continue
            losers = [c for c in paid if c[1] not in winners]
            for c in losers:
                yield self._wrong_seat(ctx, view, pot.number, c, contenders, winners, best)
            if not losers:
                yield from self._wrong_split(ctx, view, pot.number, paid, winners, best)

    @staticmethod
    def _wrong_seat(ctx: Batch, view: HandView, number: int, c: tuple[int, int, int, int],
                    contenders: list[int], winners: list[int], best: str | None) -> Result:
        index, seat, amount, _ = c
        hand = view.seats[seat].final
        shown = " ".join(hand) if hand else "unknown cards"
        if seat not in contenders:
            why = ("it mucked its hand" if view.seats[seat].mucked
                   else "it did not put in enough to contest that pot")
        else:
            seats = " and ".join(str(n) for n in winners)
            why = f"seat {seats} holds the best hand ({best})"
        return ctx.finding(
            view.hand,
            f"seat {seat} collected {money(amount)} from {pot_label(number)} with [{shown}], "
            f"but {why}",
            action=view.lines[index].row,
            evidence={"pot": number, "amount": amount, "collector_hand": hand,
                      "winners": list(winners), "best": best, "contenders": list(contenders)},
        )

    @staticmethod
    def _wrong_split(ctx: Batch, view: HandView, number: int,
                     paid: list[tuple[int, int, int, int]], winners: list[int],
                     best: str | None) -> Iterator[Result]:
        got: Counter[int] = Counter()
        for _, seat, amount, _ in paid:
            got[seat] += amount
        total = sum(got.values())
        fair = fair_splits(total, winners)
        if any(all(got[n] == due[n] for n in winners) for due in fair):
            return
        due = fair[0]
        seat = next(n for n in winners if got[n] != due[n])
        line = next((c for c in paid if c[1] == seat), paid[0])
        shares = ", ".join(f"seat {n} {money(got[n])} (due {money(due[n])})" for n in winners)
        yield ctx.finding(
            view.hand,
            f"{pot_label(number)} ({money(total)}) is split wrongly between tied hands "
            f"({best}): {shares}",
            action=view.lines[line[0]].row, seat=seat,
            evidence={"pot": number, "total": total, "collected": dict(got), "due": due,
                      "winners": list(winners), "best": best},
        )


@like(p402_chips_not_conserved.ChipsNotConserved)
class ChipsNotConserved(Rule):
    def check(self, ctx: Batch) -> Iterator[Result]:
        h, a = ctx.hands, ctx.actions
        rows = _paid_rows(ctx)
        paid = np.bincount(a.hand[rows], weights=np.maximum(a.amount[rows], 0),
                           minlength=len(ctx)).astype(np.int64)
        paid_out = paid + h.rake + np.maximum(h.carried_out, 0)
        flagged = np.flatnonzero((h.pot_total != h.pot) | (paid_out != h.pot))
        for hand in flagged.tolist():
            row = ctx.hand(hand)
            collected, out = int(paid[hand]), int(paid_out[hand])
            carried_out = None if row.carried_out < 0 else row.carried_out
            problems = []
            if row.pot_total != row.pot:
                problems.append(f"the chips put in come to {money(row.pot_total)}")
            if out != row.pot:
                parts = [f"collections {money(collected)}"]
                if row.rake:
                    parts.append(f"rake {money(row.rake)}")
                if carried_out is not None:
                    parts.append(f"carried {money(carried_out)}")
                paid_text = " + ".join(parts) if len(parts) > 1 else "the collections"
                problems.append(f"{paid_text} come to {money(out)}")
            yield ctx.finding(
                hand, f"Pot is {money(row.pot)} but " + " and ".join(problems),
                line=ctx.labels.result_line(hand) or None,
                evidence={"recorded_pot": row.pot, "put_in": row.pot_total,
                          "collected": collected, "rake": row.rake, "carried_out": carried_out,
                          "paid_out": out, "carried_in": row.carried,
                          "penalties": row.penalties},
            )


@like(p403_side_pot_misdistributed.SidePotMisdistributed)
class SidePotMisdistributed(Rule):
    def check(self, ctx: Batch) -> Iterator[Result]:
        s = ctx.seats
        rows = np.flatnonzero(s.all_in & (s.collected != 0))
        hands = np.unique(s.hand[rows])
        for hand in hands[ctx.hands.misdeal_index[hands] < 0].tolist():
            yield from self._hand(ctx, HandView(ctx, hand))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        dead_money = view.row.carried + view.row.penalties
        eligible = {}
        for k in range(view.row.pot_count):
            pot = ctx.pot(view.row.pot_start + k)
            eligible[pot.number] = set(seats_of(pot.eligible))
        every = collections(view)
        for seat in view.seats.values():
            if not seat.all_in or not seat.collected:
                continue
            most = dead_money + sum(min(o.total, seat.total) for o in view.seats.values())
            if seat.collected <= most:
                continue
            mine = [c for c in every if c[1] == seat.seat]
            if not mine:
                continue
            where = next((c for c in mine if seat.seat not in eligible.get(c[3], ())), mine[-1])
            yield ctx.finding(
                view.hand,
                f"seat {seat.seat}, all-in for {money(seat.total)}, collected "
                f"{money(seat.collected)} but could win at most {money(most)} "
                f"(it took {money(where[2])} from {pot_label(where[3])})",
                action=view.lines[where[0]].row,
                evidence={"pot": where[3], "all_in_total": seat.total,
                          "collected": seat.collected, "max_winnable": most,
                          "excess": seat.collected - most},
            )


@like(p404_hand_misread.HandMisread)
class HandMisread(Rule):
    def check(self, ctx: Batch) -> Iterator[Result]:
        a = ctx.actions
        rows = ctx.rows(Verb.SHOWS)
        rows = rows[(a.reading[rows] >= 0) & (a.cards_count[rows] > 0)]
        value = a.strength[rows]
        unknown = value == UNKNOWN
        wrong = (value >= 0) & ((value >> 20) != a.reading[rows])
        for r in rows[unknown | wrong].tolist():
            row = ctx.action(r)
            if row.strength == UNKNOWN:
                yield ctx.unverifiable(row.hand, f"seat {row.seat} shows unknown cards",
                                       seat=row.seat)
                continue
            cards = ctx.line_cards(r) or ()
            reading = ctx.labels.reading(row.hand, row.index)
            named = _CATEGORY[row.reading]
            actual = describe_strength(row.strength)
            yield ctx.finding(
                row.hand,
                f"seat {row.seat} shows [{' '.join(cards)}] read as {reading!r}, "
                f"but the cards make {actual}",
                action=r,
                evidence={"cards": list(cards), "reading": reading, "named": named.value,
                          "actual": category(row.strength).value, "actual_reading": actual},
            )


RULES = (PotAwardedToWrongHand, ChipsNotConserved, SidePotMisdistributed, HandMisread)
