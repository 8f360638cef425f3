"""P401 pot-awarded-to-wrong-hand."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import numpy as np

from audit.evaluator import describe_strength
from audit.facts.context import Batch, Result, money
from audit.facts.view import HandView, hand_view
from audit.rule import Rule
from audit.rules._openers import collections
from audit.rules._pots import fair_splits, paid_rows, pot_label
from schemas.findings import Severity


class PotAwardedToWrongHand(Rule):
    """Flags chips of a pot collected by a seat that does not hold the best live hand for it.

    What it does:
        For the main pot and each side pot, takes the live hands contesting it (seats
        that did not fold, were not ruled dead or fouled, and did not muck; an all-in
        seat only contests the pots its chips reached), ranks their final hands with
        the joker as R-JK says, and checks every ``collects`` line of that pot: the
        collector must hold the best hand. When the best hands tie, the collected
        chips must be split evenly, the odd chip going to the first winning seat
        clockwise from the button (one each, in that order, if more are left; the
        log does not name the chip, so whole cents and whole chips of 0.05 to 1 are
        both fair). One finding per wrong collection line, or one per pot for a
        wrong split. A collection by a seat that folded or was ruled dead (a false
        opener found at the showdown) is B104's; a collector with a fouled hand is
        D302's; a misdeal's refunds are not awards. Unverifiable when a contending
        hand is unknown; an uncontested pot needs no cards.

    Why it matters:
        The money went to the wrong player: the single most expensive error a dealer
        can make, and the one a cheating dealer and a partner would make on purpose.

    Example:
        Seat 3 shows ``[Kd Kc Jk 7s 2h]`` (kings with an ace kicker), seat 5 shows
        ``[Qd Qc Qh 4s 2c]`` (three queens) and ``Seat 3: collects 40``: the joker
        does not make three kings, so seat 5 should have won; P401 on the collection.

    Source:
        R-JK 2: "The joker may be used only as an ace, or to complete a straight, flush, or
        straight flush. (Thus it is not a completely wild card.)"
        R-JK 3: "If the joker is used to make a flush, it will be the highest card of the
        flush not present in the hand."
        R-JK 4: "Five aces is the best possible hand (four aces and joker)."
        The format spec's odd-chip rule for split pots.
    """

    code = "P401"
    name = "pot-awarded-to-wrong-hand"
    severity = Severity.CRITICAL
    source = "R-JK 2-4"
    summary = "A pot's chips went to a seat that does not hold the best live hand for it."

    def check(self, ctx: Batch) -> Iterator[Result]:
        a, h, p, s = ctx.actions, ctx.hands, ctx.pots, ctx.seats
        rows = paid_rows(ctx)
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
            yield from self._hand(ctx, hand_view(ctx, one))

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
            evidence={"pot": number, "amount_cents": amount, "collector_hand": hand,
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
            evidence={"pot": number, "total_cents": total, "collected_cents": dict(got),
                      "due_cents": due,
                      "winners": list(winners), "best": best},
        )
