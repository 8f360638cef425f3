"""P401 pot-awarded-to-wrong-hand."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from audit.replay import Pot, Replay
from audit.rule import HandContext, Result, Rule, money
from audit.rules._pots import (
    Collection,
    Showdown,
    collections_of,
    fair_splits,
    pot_label,
    showdown,
)
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

    def check(self, ctx: HandContext) -> Iterator[Result]:
        replay = ctx.replay
        if replay.misdeal_index is not None:
            return
        unverifiable: set[int] = set()
        for pot in replay.pots:
            # A collection by a seat out of the hand is B104's finding, not an award.
            paid = [c for c in collections_of(replay, pot.number)
                    if (s := replay.seat(c.seat)) is not None and s.in_hand]
            if not paid:
                continue
            result = showdown(replay, pot)
            if not result.contenders or any(c.seat in result.fouled for c in paid):
                continue
            strangers = [c for c in paid if c.seat not in result.contenders]
            for c in strangers:
                yield self._wrong_seat(ctx, pot, c, result)
            if strangers:
                continue
            if not result.winners:
                for n in result.unknown:
                    if n not in unverifiable:
                        unverifiable.add(n)
                        yield ctx.unverifiable(
                            f"seat {n}'s final hand is not known ({pot_label(pot.number)})",
                            seat=n)
                continue
            losers = [c for c in paid if c.seat not in result.winners]
            for c in losers:
                yield self._wrong_seat(ctx, pot, c, result)
            if not losers:
                yield from self._wrong_split(ctx, replay, pot, paid, result)

    @staticmethod
    def _wrong_seat(ctx: HandContext, pot: Pot, c: Collection, result: Showdown) -> Result:
        replay = ctx.replay
        hand = replay.final_hand(c.seat)
        shown = " ".join(hand) if hand else "unknown cards"
        if c.seat not in result.contenders:
            why = ("it mucked its hand" if replay.seats[c.seat].mucked
                   else "it did not put in enough to contest that pot")
        else:
            seats = " and ".join(str(n) for n in result.winners)
            why = f"seat {seats} holds the best hand ({result.best})"
        return ctx.finding(
            f"seat {c.seat} collected {money(c.amount)} from {pot_label(pot.number)} "
            f"with [{shown}], but {why}",
            action=replay.steps[c.index].action,
            evidence={"pot": pot.number, "amount_cents": c.amount, "collector_hand": hand,
                      "winners": list(result.winners), "best": result.best,
                      "contenders": list(result.contenders)},
        )

    @staticmethod
    def _wrong_split(ctx: HandContext, replay: Replay, pot: Pot, paid: list[Collection],
                     result: Showdown) -> Iterator[Result]:
        got: Counter[int] = Counter()
        for c in paid:
            got[c.seat] += c.amount
        total = sum(got.values())
        fair = fair_splits(total, result.winners)
        if any(all(got[n] == due[n] for n in result.winners) for due in fair):
            return
        due = fair[0]
        seat = next(n for n in result.winners if got[n] != due[n])
        line = next((c for c in paid if c.seat == seat), paid[0])
        shares = ", ".join(f"seat {n} {money(got[n])} (due {money(due[n])})"
                           for n in result.winners)
        yield ctx.finding(
            f"{pot_label(pot.number)} ({money(total)}) is split wrongly between tied hands "
            f"({result.best}): {shares}",
            action=replay.steps[line.index].action,
            seat=seat,
            evidence={"pot": pot.number, "total_cents": total, "collected_cents": dict(got),
                      "due_cents": due, "winners": list(result.winners), "best": result.best},
        )
