"""J506 ineligible-player-dealt-in."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import numpy.typing as npt

from audit.facts.context import Result, money
from audit.facts.sequence import Run
from audit.rule import SequenceRule
from audit.rules._sequence import previous_row, seat_anchor
from schemas.findings import Severity


class _Pots:
    """What J506 follows back along a table's carried pots, as plain values, read deal by
    deal: the deals of a run are many, the deals it looks at few (those
    :meth:`IneligiblePlayerDealtIn._ineligible` finds)."""

    def __init__(self, ctx: Run) -> None:
        self.ctx = ctx
        self._seats: dict[int, tuple[list[int], list[bool], list[bool], list[int]]] = {}

    def forfeited(self, deal: int) -> int:
        """The money forfeited to the pot in ``deal``."""
        return int(self.ctx.deals.forfeited[deal])

    def carried(self, row: int) -> list[int]:
        """The earlier deals of the pot carried into ``row``, latest first."""
        chain: list[int] = []
        previous, carried_forward = self.ctx.previous, self.ctx.deals.carried_forward
        p = int(previous[row])
        while p >= 0 and carried_forward[p] != 0:
            chain.append(p)
            p = int(previous[p])
        return chain

    def seats(self, deal: int) -> tuple[list[int], list[bool], list[bool], list[int]]:
        """A deal's seats in header order: their players, dealt in or not, ruled false
        openers or not, and the line where each opened or declared all-in (-1: none)."""
        got = self._seats.get(deal)
        if got is None:
            d, s = self.ctx.deals, self.ctx.seats
            first = int(d.seat_start[deal])
            rows = slice(first, first + int(d.seat_count[deal]))
            got = self._seats[deal] = (s.player[rows].tolist(), s.dealt_in[rows].tolist(),
                                       s.false_opener[rows].tolist(),
                                       s.all_in_declaration_line[rows].tolist())
        return got


class IneligiblePlayerDealtIn(SequenceRule):
    """Flags a player dealt into a carried pot it has no right to play.

    What it does:
        Two cases, judged against every earlier deal of the pot the table carries: the
        deals before this one, back to the last pot that was won. A player who falsely
        opened in one of them while all-in (for the ante) is barred until the pot is
        won: dealing it in now is flagged. And while forfeited money is in the carried
        pot (a false opener's chips, a penalty, the bets of a hand ruled dead), a player
        who was not dealt into the deal it was forfeited in (a newcomer, or one who sat
        it out) may not join, however many deals later. A carried pot of antes alone
        bars nobody: a newcomer may pay the ante and be dealt in, and once the pot is
        won everyone may play again. One finding per deal, on the first line of the
        first ineligible seat, listing them all.

    Why it matters:
        Forfeited money belongs to the players of the hand it was lost in; an outsider
        who buys in for one ante takes a share of money it never risked, and an
        all-in false opener who comes back gets a free second try at a pot it
        forfeited.

    Example:
        Deal 1: seat 1 opens without openers, the floor rules it false, the pot is
        killed and carried with its opening bet; deal 2 deals in a new player in seat
        5: J506. Had deal 1 simply passed out (antes only), seat 5 would be clean.

    Source:
        R-JB 5: "If you are all in and falsely declare the pot open, you will lose the
        ante money and may not continue to play on any subsequent deals until a winner
        is determined."
        R-DH 11: "You have the right to pay the ante (whether single or multiple) at any
        time and receive a hand, unless there is any additional money in the pot that
        has been forfeited during a hand in which you were not involved."
    """

    code = "J506"
    name = "ineligible-player-dealt-in"
    severity = Severity.MAJOR
    source = "R-JB 5, R-DH 11"
    summary = "A barred all-in false opener, or a newcomer to forfeited money, was dealt in."

    def check(self, ctx: Run) -> Iterator[Result]:
        d, s = ctx.deals, ctx.seats
        before = previous_row(ctx)
        carried = (ctx.previous >= 0) & (d.carried_forward[before] != 0)
        # A deal whose pot carries what bars a player: forfeited money, or an all-in
        # false opener. Carried forward along the table's deals until a pot is won.
        barring = s.false_opener & (s.all_in_declaration_line >= 0)
        bars = np.zeros(len(d), dtype=np.bool_)
        bars[s.deal[barring]] = True
        source = (d.forfeited > 0) | bars
        live = carried & source[before]
        while True:
            more = carried & (source[before] | live[before])
            if (more == live).all():
                break
            live = more
        pots = _Pots(ctx)
        for row in np.flatnonzero(self._ineligible(ctx, live, barring)).tolist():
            yield from self._deal(ctx, row, pots)

    @staticmethod
    def _ineligible(ctx: Run, live: npt.NDArray[np.bool_], barring: npt.NDArray[np.bool_]
                    ) -> npt.NDArray[np.bool_]:
        """Per deal: one of its seats is dealt in though its player is barred by, or was
        not dealt into a forfeiting deal of, the pot carried into a ``live`` deal (the
        seats ``barring``: all-in false openers). Most live deals seat nobody ineligible:
        their seats are followed back along the carried pot in columns, one earlier deal
        a step for every seat at once, and each compared with every seat of that deal
        (at most ten, one column at a time); only the deals found go to :meth:`_deal`."""
        d, s = ctx.deals, ctx.seats
        rows = np.flatnonzero(live[s.deal] & s.dealt_in)
        player = s.player[rows]
        flagged = np.zeros(len(rows), dtype=np.bool_)
        pending = np.arange(len(rows))
        earlier = ctx.previous[s.deal[rows]]
        while True:
            # The seats still clean whose carried pot goes back to an earlier deal.
            going = earlier >= 0
            going[going] = d.carried_forward[earlier[going]] != 0
            going &= ~flagged[pending]
            pending, earlier = pending[going], earlier[going]
            if not len(pending):
                break
            who = player[pending]
            first, count = d.seat_start[earlier], d.seat_count[earlier]
            dealt = np.zeros(len(pending), dtype=np.bool_)
            barred = np.zeros(len(pending), dtype=np.bool_)
            for k in range(int(count.max())):
                there = np.where(k < count, first + k, 0)
                same = (k < count) & (s.player[there] == who)
                dealt |= same & s.dealt_in[there]
                barred |= same & barring[there]
            flagged[pending] = barred | ((d.forfeited[earlier] > 0) & ~dealt)
            earlier = ctx.previous[earlier]
        out = np.zeros(len(d), dtype=np.bool_)
        out[s.deal[rows[flagged]]] = True
        return out

    @classmethod
    def _deal(cls, ctx: Run, row: int, pots: _Pots) -> Iterator[Result]:
        chain = pots.carried(row)
        prev_row = chain[0]
        barred: dict[int, int] = {}  # player -> the line where it falsely opened all-in
        forfeiting: list[tuple[int, set[int]]] = []  # (deal, its players dealt in)
        for earlier in chain:
            players, dealt_in, false_opener, declared_at = pots.seats(earlier)
            for who, false, declared in zip(players, false_opener, declared_at, strict=True):
                if false and declared >= 0:
                    barred.setdefault(who, declared)
            if pots.forfeited(earlier) > 0:
                forfeiting.append((earlier, {p for p, x in zip(players, dealt_in, strict=True)
                                             if x}))
        lost = sum(pots.forfeited(e) for e in chain)
        found: list[tuple[int, str]] = []  # (position in the header, why)
        for k, (who, dealt) in enumerate(zip(*pots.seats(row)[:2], strict=True)):
            if not dealt:
                continue
            if who in barred:
                found.append((k, "falsely opened all-in"))
                continue
            missed = [e for e, involved in forfeiting if who not in involved]
            if missed:
                found.append((k, "was not in that deal" if missed[0] == prev_row else
                              f"was not in deal {ctx.labels.hand_id(missed[0])}, where "
                              f"{money(int(ctx.deals.forfeited[missed[0]]))} was forfeited"))
        if not found:
            return
        seats = ctx.seats_of(row)
        offenders = [(seats[k], why) for k, why in found]
        deal, prev = ctx.deal(row), ctx.deal(prev_row)
        player = ctx.labels.player_id
        named = [(s.seat, player(row, s.seat), why) for s, why in offenders]
        listed = ", ".join(f"seat {n} ({p}, {why})" for n, p, why in named)
        previous = ctx.labels.hand_id(prev_row)
        line, index = seat_anchor(ctx, deal, offenders[0][0])
        own = [seat_anchor(ctx, deal, s)[0] for s, _ in offenders]
        carried = prev.carried_forward
        yield ctx.finding(
            row, f"dealt in while {money(carried)} from deal {previous} was carried"
            + (f" ({money(lost)} of it forfeited)" if lost else "") + f": {listed}",
            line=line, index=index, seat=named[0][0], lines=own,
            evidence={"seats": [n for n, _, _ in named], "players": [p for _, p, _ in named],
                      "reasons": [why for _, _, why in named],
                      "carried_cents": carried, "forfeited_cents": lost, "previous": previous,
                      "false_open_lines": sorted({barred[s.player] for s, _ in offenders
                                                  if s.player in barred})},
        )
