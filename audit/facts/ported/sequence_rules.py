"""J501-J508 over the deal tables (scratch: moves into audit/rules/ with the migration)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from audit.facts.context import Result, money
from audit.facts.ported._meta import like
from audit.facts.sequence import Run, SequenceRule
from audit.profiles import PassedOutButton
from audit.rules import (
    j501_ante_limit_exceeded,
    j502_button_wrong_after_passed_out,
    j503_wrong_openers_requirement,
    j504_carried_chips_lost_or_invented,
    j505_seat_change_with_antes_carried,
    j506_ineligible_player_dealt_in,
    j507_missing_ante_or_fattener,
    j508_unproven_opener_not_penalised,
)
from ingest.scan.layout import GAME_JACKS_OR_BETTER, OPENERS_ABSENT, OPENERS_CODE
from schemas.records import Game

_OPENERS = {code: openers for openers, code in OPENERS_CODE.items()}


def _before(ctx: Run) -> np.ndarray:
    """Each deal's previous deal's row, 0 where there is none (mask with ``previous >= 0``)."""
    return np.maximum(ctx.previous, 0)


@like(j501_ante_limit_exceeded.AnteLimitExceeded)
class AnteLimitExceeded(SequenceRule):
    def check(self, ctx: Run) -> Iterator[Result]:
        limit = ctx.profile.ante_limit
        if limit is None:
            return
        d = ctx.deals
        flagged = ctx.in_sequence & (d.jackpot > limit) & (d.antes_count > 0)
        for row in np.flatnonzero(flagged).tolist():
            deal = ctx.deal(row)
            seats = [deal.antes_seats >> (4 * k) & 15 for k in range(min(deal.antes_count, 16))]
            previous = int(ctx.previous[row])
            yield ctx.finding(
                row,
                f"deal {deal.jackpot} of an unopened pot took {money(deal.antes_total)} in "
                f"antes from {len(seats)} seats; the house antes only the first {limit} deals",
                line=deal.first_ante_line, index=deal.first_ante_index,
                seat=deal.first_ante_seat or None,
                evidence={"jackpot": deal.jackpot, "ante_limit": limit, "seats": seats,
                          "antes": deal.antes_total,
                          "previous": ctx.labels.hand_id(previous) if previous >= 0 else None},
            )


@like(j502_button_wrong_after_passed_out.ButtonWrongAfterPassedOut)
class ButtonWrongAfterPassedOut(SequenceRule):
    def check(self, ctx: Run) -> Iterator[Result]:
        d, before = ctx.deals, _before(ctx)
        after = (ctx.previous >= 0) & d.passed_out[before]
        moves = ctx.profile.passed_out_button is PassedOutButton.MOVES
        if moves:
            flagged = after & (d.button == d.button[before])
        else:
            seated = ((d.seat_mask >> d.button[before].astype(np.int64)) & 1) != 0
            flagged = after & (d.button != d.button[before]) & seated
        for row in np.flatnonzero(flagged).tolist():
            deal, prev = ctx.deal(row), ctx.deal(int(ctx.previous[row]))
            previous = ctx.labels.hand_id(int(ctx.previous[row]))
            if moves:
                message = (f"the button stayed on seat {deal.button} after passed-out deal "
                           f"{previous}; the house moves it")
            else:
                message = (f"the button moved from seat {prev.button} to seat {deal.button} "
                           f"after passed-out deal {previous}; the house deals off the jack")
            yield ctx.finding(
                row, message, seat=deal.button, line=deal.first_line or None,
                evidence={"button": deal.button, "previous_button": prev.button,
                          "previous": previous,
                          "house": ctx.profile.passed_out_button.value},
            )


@like(j503_wrong_openers_requirement.WrongOpenersRequirement)
class WrongOpenersRequirement(SequenceRule):
    def check(self, ctx: Run) -> Iterator[Result]:
        d = ctx.deals
        profile = ctx.profile
        jackpots = np.unique(d.jackpot)
        codes = {int(j): OPENERS_CODE[profile.openers_for(int(j), Game.JACKS_OR_BETTER)]
                 for j in jackpots.tolist()}
        expected = np.array([codes[int(j)] for j in jackpots.tolist()], dtype=np.int64)
        want = expected[np.searchsorted(jackpots, d.jackpot)] if len(d) else d.openers
        flagged = (ctx.in_sequence & (d.game == GAME_JACKS_OR_BETTER)
                   & (d.openers != OPENERS_ABSENT) & (d.openers != want))
        for row in np.flatnonzero(flagged).tolist():
            deal = ctx.deal(row)
            openers, wanted = _OPENERS[deal.openers], _OPENERS[codes[deal.jackpot]]
            yield ctx.finding(
                row,
                f"deal {deal.jackpot} of the pot was played with Openers {openers.value}; "
                f"the house ({profile.name}) requires {wanted.value}",
                line=deal.first_line or None,
                evidence={"jackpot": deal.jackpot, "openers": openers.value,
                          "expected": wanted.value, "profile": profile.name},
            )


@like(j504_carried_chips_lost_or_invented.CarriedChipsLostOrInvented)
class CarriedChipsLostOrInvented(SequenceRule):
    def check(self, ctx: Run) -> Iterator[Result]:
        d, before = ctx.deals, _before(ctx)
        flagged = (ctx.previous >= 0) & (d.carried != d.carried_forward[before])
        for row in np.flatnonzero(flagged).tolist():
            deal, prev = ctx.deal(row), ctx.deal(int(ctx.previous[row]))
            previous = ctx.labels.hand_id(int(ctx.previous[row]))
            left = prev.carried_forward
            how = "lost" if deal.carried < left else "invented"
            if prev.misdealt:
                why = f"misdealt deal {previous} carried {money(left)}"
            elif prev.carried_out >= 0:
                why = f"passed-out deal {previous} left {money(left)}"
            else:
                why = f"the previous deal {previous} was played out and left nothing"
            yield ctx.finding(
                row,
                f"Carried is {money(deal.carried)} but {why}: "
                f"{money(abs(deal.carried - left))} {how}",
                line=deal.first_line or None,
                evidence={"carried": deal.carried, "expected": left,
                          "difference": deal.carried - left, "previous": previous},
            )


def _anchor(ctx: Run, deal: object, seat: object) -> tuple[int | None, int | None]:
    """(line, index) a finding about a seat points to: its first line, else the hand's."""
    if seat is not None and seat.anchor_index >= 0:  # type: ignore[attr-defined]
        return seat.anchor_line, seat.anchor_index  # type: ignore[attr-defined]
    return deal.first_line or None, None  # type: ignore[attr-defined]


@like(j505_seat_change_with_antes_carried.SeatChangeWithAntesCarried)
class SeatChangeWithAntesCarried(SequenceRule):
    def check(self, ctx: Run) -> Iterator[Result]:
        d, s = ctx.deals, ctx.seats
        before = _before(ctx)
        carried = (ctx.previous >= 0) & (d.carried_forward[before] != 0)
        # Seats of those deals whose player sat elsewhere in the deal before.
        rows = np.flatnonzero(carried[s.deal])
        mine = _pair_keys(before[s.deal[rows]], s.player[rows])
        theirs = _pair_keys(s.deal, s.player)
        order = np.argsort(theirs)
        at = np.clip(np.searchsorted(theirs[order], mine), 0, max(len(order) - 1, 0))
        match = order[at] if len(order) else at
        moved = ((theirs[match] == mine) & (s.player[match] == s.player[rows])
                 & (s.seat[match] != s.seat[rows])) if len(order) else np.zeros(0, bool)
        for row in np.unique(s.deal[rows[moved]]).tolist():
            yield from self._deal(ctx, row)

    @staticmethod
    def _deal(ctx: Run, row: int) -> Iterator[Result]:
        prev_row = int(ctx.previous[row])
        deal, prev = ctx.deal(row), ctx.deal(prev_row)
        old = {s.player: s.seat for s in ctx.seats_of(prev_row)}
        seats = ctx.seats_of(row)
        moves = [(s, old[s.player]) for s in seats if s.player in old and old[s.player] != s.seat]
        if not moves:
            return
        player = ctx.labels.player_id
        named = [(player(row, s.seat), was, s.seat) for s, was in moves]
        listed = ", ".join(f"{p} from seat {a} to seat {b}" for p, a, b in named)
        previous = ctx.labels.hand_id(prev_row)
        line, index = _anchor(ctx, deal, moves[0][0])
        yield ctx.finding(
            row, f"{listed} while {money(prev.carried_forward)} was carried from deal {previous}",
            line=line, index=index, seat=moves[0][0].seat,
            evidence={"moves": [{"player": p, "from": a, "to": b} for p, a, b in named],
                      "carried": prev.carried_forward, "previous": previous},
        )


def _pair_keys(rows: np.ndarray, players: np.ndarray) -> np.ndarray:
    """One 64-bit key per (deal row, player): equal pairs give equal keys."""
    with np.errstate(over="ignore"):
        return (rows.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
                ^ players.astype(np.uint64))


@like(j507_missing_ante_or_fattener.MissingAnteOrFattener)
class MissingAnteOrFattener(SequenceRule):
    def check(self, ctx: Run) -> Iterator[Result]:
        profile = ctx.profile
        limit, fattening = profile.ante_limit, profile.fattening
        d, s = ctx.deals, ctx.seats
        before = _before(ctx)
        judged = ctx.in_sequence.copy()
        if limit is not None:
            judged &= d.jackpot <= limit
        fattened = (fattening is not None) & (ctx.previous >= 0) & d.passed_out[before]
        due = np.where(fattened, np.maximum(d.ante, fattening or 0), d.ante)
        owing = np.maximum(d.ante, fattening or 0)
        deal = s.deal
        short = s.dealt_in & (s.ante < np.minimum(due[deal], s.stack)) & (due[deal] > 0)
        unsure = (s.dealt_in & (s.ante < np.minimum(owing[deal], s.stack)) & (owing[deal] > 0)
                  & (ctx.previous[deal] == -1) & (d.jackpot[deal] > 1))
        if fattening is None:
            unsure[:] = False
        rows = np.union1d(deal[short], deal[unsure])
        for row in rows[judged[rows]].tolist():
            yield from self._deal(ctx, row, int(due[row]), bool(fattened[row]))

    @staticmethod
    def _deal(ctx: Run, row: int, due: int, fattened: bool) -> Iterator[Result]:
        deal = ctx.deal(row)
        fattening = ctx.profile.fattening
        seats = sorted((s for s in ctx.seats_of(row) if s.dealt_in), key=lambda s: s.seat)

        def short_of(amount: int) -> list[object]:
            if amount <= 0:
                return []
            return [s for s in seats if s.ante < min(amount, s.stack)]

        short = short_of(due)
        prev_row = int(ctx.previous[row])
        if not short:
            if prev_row < 0 and fattening is not None and deal.jackpot > 1:
                owing = short_of(max(deal.ante, fattening))
                if owing:
                    yield ctx.unverifiable(
                        row, f"deal {deal.jackpot} of the pot is the table's first in the input: "
                        f"whether seats {', '.join(str(s.seat) for s in owing)} owed the "  # type: ignore[attr-defined]
                        f"{money(fattening)} fattener needs the previous deal",
                        seat=owing[0].seat)  # type: ignore[attr-defined]
            return
        where = next((s for s in short if s.ante_index >= 0), None)  # type: ignore[attr-defined]
        what = "fattener" if fattened else "ante"
        listed = ", ".join(f"seat {s.seat} {money(s.ante)}" for s in short)  # type: ignore[attr-defined]
        if where is not None:
            line, index = where.ante_line, where.ante_index  # type: ignore[attr-defined]
        elif deal.after_antes_index >= 0:
            line, index = deal.after_antes_line, deal.after_antes_index
        else:
            line, index = deal.first_line or None, None
        yield ctx.finding(
            row, f"{what} of {money(due)} not paid in full: {listed}",
            line=line, index=index, seat=short[0].seat,  # type: ignore[attr-defined]
            evidence={"due": due, "fattened": fattened,
                      "seats": [s.seat for s in short],  # type: ignore[attr-defined]
                      "paid": {s.seat: s.ante for s in short},  # type: ignore[attr-defined]
                      "previous": ctx.labels.hand_id(prev_row) if prev_row >= 0 else None},
        )




@like(j506_ineligible_player_dealt_in.IneligiblePlayerDealtIn)
class IneligiblePlayerDealtIn(SequenceRule):
    def check(self, ctx: Run) -> Iterator[Result]:
        d, s = ctx.deals, ctx.seats
        before = _before(ctx)
        carried = (ctx.previous >= 0) & (d.carried_forward[before] != 0)
        rows = np.flatnonzero(carried[s.deal] & s.dealt_in)
        mine = _pair_keys(before[s.deal[rows]], s.player[rows])
        theirs = _pair_keys(s.deal, s.player)
        order = np.argsort(theirs)
        if len(order):
            at = np.clip(np.searchsorted(theirs[order], mine), 0, len(order) - 1)
            match = order[at]
            found = (theirs[match] == mine) & (s.player[match] == s.player[rows])
        else:
            match, found = np.zeros(len(rows), dtype=np.int64), np.zeros(len(rows), bool)
        involved = found & s.dealt_in[match]
        barred = found & s.false_opener[match] & (s.all_in_declaration_line[match] >= 0)
        for row in np.unique(s.deal[rows[~involved | barred]]).tolist():
            yield from self._deal(ctx, row)

    @staticmethod
    def _deal(ctx: Run, row: int) -> Iterator[Result]:
        prev_row = int(ctx.previous[row])
        deal, prev = ctx.deal(row), ctx.deal(prev_row)
        earlier = ctx.seats_of(prev_row)
        barred = {s.player for s in earlier
                  if s.false_opener and s.all_in_declaration_line >= 0}
        involved = {s.player for s in earlier if s.dealt_in}
        offenders = []
        for seat in ctx.seats_of(row):
            if not seat.dealt_in:
                continue
            if seat.player in barred:
                offenders.append((seat, "falsely opened all-in"))
            elif seat.player not in involved:
                offenders.append((seat, "was not in that deal"))
        if not offenders:
            return
        player = ctx.labels.player_id
        named = [(s.seat, player(row, s.seat), why) for s, why in offenders]
        listed = ", ".join(f"seat {n} ({p}, {why})" for n, p, why in named)
        previous = ctx.labels.hand_id(prev_row)
        line, index = _anchor(ctx, deal, offenders[0][0])
        yield ctx.finding(
            row, f"dealt in while {money(prev.carried_forward)} from deal {previous} was "
            f"carried: {listed}",
            line=line, index=index, seat=named[0][0],
            evidence={"seats": [n for n, _, _ in named], "players": [p for _, p, _ in named],
                      "reasons": [why for _, _, why in named],
                      "carried": prev.carried_forward, "previous": previous},
        )


@like(j508_unproven_opener_not_penalised.UnprovenOpenerNotPenalised)
class UnprovenOpenerNotPenalised(SequenceRule):
    def check(self, ctx: Run) -> Iterator[Result]:
        profile = ctx.profile
        if not profile.unproven_opener_penalty_antes and not profile.unproven_opener_rejackpot:
            return
        d = ctx.deals
        before = _before(ctx)
        found = (ctx.previous >= 0) & (d.found_unproven_index[before] >= 0)
        for row in np.flatnonzero(found).tolist():
            yield from self._deal(ctx, row)

    @staticmethod
    def _deal(ctx: Run, row: int) -> Iterator[Result]:
        profile = ctx.profile
        prev_row = int(ctx.previous[row])
        deal, prev = ctx.deal(row), ctx.deal(prev_row)
        seat = next((s for s in ctx.seats_of(prev_row) if s.seat == prev.original_opener), None)
        if seat is None:
            return
        due = profile.unproven_opener_penalty_antes * prev.ante
        faults = []
        if seat.penalties < due:
            faults.append(f"paid {money(seat.penalties)} of the {money(due)} penalty")
        carried_on = prev.carried_out >= 0 and deal.jackpot == prev.jackpot + 1
        if profile.unproven_opener_rejackpot and not carried_on:
            faults.append(f"this deal is Jackpot {deal.jackpot}, not the next jack-pot "
                          f"({prev.jackpot + 1}) of a carried pot")
        if not faults:
            return
        player = ctx.labels.player_id(prev_row, seat.seat)
        previous = ctx.labels.hand_id(prev_row)
        yield ctx.finding(
            row, f"seat {seat.seat} ({player}) was found without openers after the draw on "
            f"{previous}, and " + " and ".join(faults),
            line=deal.first_line or None,
            evidence={"previous": previous, "opener": seat.seat, "player": player,
                      "ruling_line": prev.found_unproven_line, "penalty_due": due,
                      "penalty_paid": seat.penalties, "carried_on": carried_on},
        )


RULES = (AnteLimitExceeded, ButtonWrongAfterPassedOut, WrongOpenersRequirement,
         CarriedChipsLostOrInvented, SeatChangeWithAntesCarried, IneligiblePlayerDealtIn,
         MissingAnteOrFattener, UnprovenOpenerNotPenalised)
