"""O201-O211 over the fact tables (scratch: moves into audit/rules/ with the migration)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from audit.cards import RANK_CHAR
from audit.evaluator import describe, describe_strength
from audit.facts.context import Batch, IntArray, Result, cards_text, money
from audit.facts.ported._meta import like
from audit.facts.ported.openers_help import (
    PotQuestion,
    after_before_draw,
    before_draw_complete,
    collections,
    dealt_text,
    declarations,
    false_openers,
    ineligible,
    openers_shown,
    opening_lines,
    pot_question,
    required,
    ruled_false_after,
)
from audit.facts.rule import Rule
from audit.facts.tables import Known
from audit.facts.view import HandView, Line
from audit.openers_test import MINIMUM_PAIR, could_have_held_openers, holds_openers, openers_cards
from audit.profiles import DiscardsSetAside, FalseOpenerStyle
from audit.replay.cards import known
from audit.rules import (
    o201_false_openers_not_caught,
    o202_unproven_opener_paid,
    o203_illegal_opener_withdrawal,
    o204_ineligible_declarer,
    o205_pot_killed_against_rule,
    o206_wrong_refund_after_false_opener,
    o207_split_openers_not_declared,
    o208_impossible_split_paid,
    o209_refund_to_weak_caller,
    o210_opener_folded_unproven,
    o211_abandoned_without_penalty,
)
from audit.rules._pots import strength
from ingest.scan.layout import ACTOR_SEAT, SEC_BEFORE_DRAW, V_FOLDS
from schemas.records import Actor, Verb

_WAGERS = frozenset({Verb.OPENS, Verb.BETS, Verb.CALLS, Verb.RAISES})
_SETS_BET = frozenset({Verb.BETS, Verb.RAISES})
_MINIMUM_PAIR_CHAR = {openers: RANK_CHAR[rank] for openers, rank in MINIMUM_PAIR.items()}
_YES = int(Known.YES)


def _hands(ctx: Batch, rows: IntArray) -> IntArray:
    """The judged hands among those of action ``rows``."""
    hands = np.unique(ctx.actions.hand[rows]).astype(np.int64)
    return hands[ctx.judged[hands]]


def _opener_rows(ctx: Batch, which: IntArray) -> IntArray:
    """The seats-table row of each hand's seat ``which[hand]`` (-1 when none)."""
    s = ctx.seats
    rows = np.full(len(ctx), -1, dtype=np.int64)
    match = s.seat == which[s.hand]
    rows[s.hand[match]] = np.flatnonzero(match)
    return rows


@like(o201_false_openers_not_caught.FalseOpenersNotCaught)
class FalseOpenersNotCaught(Rule):
    def check(self, ctx: Batch) -> Iterator[Result]:
        opener = _opener_rows(ctx, ctx.hands.original_opener)
        held = np.where(opener >= 0, ctx.seats.had_openers[np.maximum(opener, 0)], _YES)
        doubtful = np.flatnonzero(ctx.judged & (ctx.hands.opens_index >= 0) & (held != _YES))
        declared = _hands(ctx, ctx.rows(Verb.DECLARES_OPENERS))
        for hand in np.union1d(doubtful, declared).tolist():
            yield from self._hand(ctx, HandView(ctx, hand))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        lines = view.lines
        minimum = required(view).value
        for index, seat in opening_lines(view):
            if ruled_false_after(view, seat, index) is not None:
                continue
            opened = lines[index]
            how = "declared openers" if opened.verb is Verb.DECLARES_OPENERS else "opened"
            held = view.seats[seat].had_openers
            if held is Known.UNKNOWN:
                yield ctx.unverifiable(view.hand, f"seat {seat} {how} with unrecorded cards",
                                       seat=seat)
                continue
            if held is Known.YES:
                continue
            went_on = next((a for a in lines[index + 1:] if after_before_draw(a)), None)
            yield ctx.finding(
                view.hand,
                f"seat {seat} {how} without {minimum} (dealt {dealt_text(view, seat)}) "
                f"and no false-openers ruling followed",
                seat=seat,
                action=went_on.row if went_on is not None else None,
                line=None if went_on is not None else view.result_line,
                evidence={"dealt": list(view.seats[seat].dealt_hand or ()), "openers": minimum,
                          "opened_line": opened.line},
            )


@like(o202_unproven_opener_paid.UnprovenOpenerPaid)
class UnprovenOpenerPaid(Rule):
    def check(self, ctx: Batch) -> Iterator[Result]:
        opener = _opener_rows(ctx, ctx.hands.opener)
        safe = np.maximum(opener, 0)
        doubtful = ((opener >= 0) & (ctx.seats.proof[safe] != _YES)
                    & (ctx.seats.collected[safe] != 0) & ctx.judged)
        for hand in np.flatnonzero(doubtful).tolist():
            yield from self._hand(ctx, HandView(ctx, hand))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        seat = view.row.opener
        paid = [(i, amount) for i, s, amount, _ in collections(view) if s == seat and amount > 0]
        if not paid:
            return
        shown = view.seats[seat].proof
        if shown is Known.YES:
            return
        minimum = required(view).value
        if shown is Known.UNKNOWN:
            yield ctx.unverifiable(view.hand, f"seat {seat}'s proof of openers has unrecorded "
                                   "cards", seat=seat)
            return
        first, _ = paid[0]
        total = sum(amount for _, amount in paid)
        yield ctx.finding(
            view.hand,
            f"opener seat {seat} collected {money(total)} without showing {minimum} or better",
            action=view.lines[first].row,
            evidence={"collected": total, "openers": minimum,
                      "openers_shown": openers_shown(view, seat)},
        )


@like(o203_illegal_opener_withdrawal.IllegalOpenerWithdrawal)
class IllegalOpenerWithdrawal(Rule):
    def check(self, ctx: Batch) -> Iterator[Result]:
        for hand in _hands(ctx, ctx.rows(Verb.WITHDRAWS)).tolist():
            if ctx.hands.original_opener[hand]:
                yield from self._hand(ctx, HandView(ctx, hand))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        opener = view.row.original_opener
        openers = {opener, *(s for _, s in declarations(view))}
        first_bet = view.lines[max(view.row.opens_index, 0)].chips
        forfeits = ctx.profile.false_opener is not FalseOpenerStyle.DEAD_HAND_REFUND
        false_seats = {s for _, s in false_openers(view)}
        complete = before_draw_complete(view)
        bets = dict.fromkeys(openers, 0)
        for a in view.lines:
            if a.seat not in openers or a.actor is not Actor.SEAT:
                continue
            if a.verb in _WAGERS:
                bets[a.seat] += a.chips
            if a.verb is not Verb.WITHDRAWS:
                continue
            taken = -a.chips
            bets[a.seat] -= taken
            if forfeits and a.seat in false_seats:
                why = "a false opener forfeits every chip it put in"
            elif a.index >= complete:
                why = "the action before the draw was complete"
            elif a.seat == opener and bets[a.seat] < first_bet:
                why = f"its opening bet of {money(first_bet)} stays in the pot"
            else:
                continue
            yield ctx.finding(
                view.hand, f"opener seat {a.seat} withdrew {money(taken)}: {why}", action=a.row,
                evidence={"withdrawn": taken, "opening_bet": first_bet,
                          "bets_left": bets[a.seat]},
            )


@like(o204_ineligible_declarer.IneligibleDeclarer)
class IneligibleDeclarer(Rule):
    def check(self, ctx: Batch) -> Iterator[Result]:
        declared = _hands(ctx, ctx.rows(Verb.DECLARES_OPENERS))
        ruled = _hands(ctx, ctx.rows(Verb.FALSE_OPENERS))
        for hand in np.intersect1d(declared, ruled).tolist():
            yield from self._hand(ctx, HandView(ctx, hand))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        rulings = false_openers(view)
        for index, seat in declarations(view):
            if not any(i < index for i, _ in rulings):
                continue
            verdict = ineligible(view, ctx.profile, seat)
            if verdict is Known.UNKNOWN:
                yield ctx.unverifiable(
                    view.hand, f"seat {seat} passed and declared openers with unrecorded cards",
                    seat=seat)
            elif verdict is Known.YES:
                yield ctx.finding(
                    view.hand,
                    f"seat {seat} passed with openers (dealt {dealt_text(view, seat)}) "
                    "and may not declare the pot open after a false opener",
                    action=view.lines[index].row,
                    evidence={"dealt": list(view.seats[seat].dealt_hand or ()),
                              "openers": required(view).value},
                )


def _ruled_before_draw(ctx: Batch) -> IntArray:
    a = ctx.actions
    rows = ctx.rows(Verb.FALSE_OPENERS, Verb.FOULED_HAND)
    return _hands(ctx, rows[a.section[rows] == SEC_BEFORE_DRAW])


@like(o205_pot_killed_against_rule.PotKilledAgainstRule)
class PotKilledAgainstRule(Rule):
    def check(self, ctx: Batch) -> Iterator[Result]:
        for hand in _ruled_before_draw(ctx).tolist():
            yield from self._hand(ctx, HandView(ctx, hand))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        q = pot_question(view)
        if q is None or not q.others_in:
            return
        style = ctx.profile.false_opener if q.false_opener else FalseOpenerStyle.DEAD_HAND_REFUND
        declarer = self._eligible_declarer(view, ctx, q)
        if style is FalseOpenerStyle.DEAD_HAND_REFUND:
            must_play = q.must_play + ((f"seat {declarer} declared openers",) if declarer else ())
            not_play = ("nobody raised, fewer than two seats called, the action was open and "
                        "no eligible seat declared")
        elif style is FalseOpenerStyle.FORFEIT_PLAY_ON:
            must_play = ("the house plays on after a false opener (Foster's second way)",)
            not_play = ""
        elif style is FalseOpenerStyle.FORFEIT_REDEAL:
            must_play = ()
            not_play = "the house deals afresh after a false opener (Foster's third way)"
        else:
            return
        lines = view.lines
        evidence = {"ruled_seat": q.seat, "ruling_line": lines[q.ruling].line,
                    "reasons": list(must_play)}
        if must_play and q.killed:
            where = q.killed_line if q.killed_line is not None else q.ruling
            yield ctx.finding(
                view.hand,
                f"pot killed after seat {q.seat}'s dead hand although " + "; ".join(must_play),
                action=lines[where].row, seat=q.seat, evidence=evidence,
            )
            return
        went_on = q.plays_line if q.plays_line is not None else q.played_at
        if not must_play and not q.killed and went_on is not None:
            yield ctx.finding(
                view.hand, f"pot played after seat {q.seat}'s dead hand although {not_play}",
                action=lines[went_on].row, seat=q.seat, evidence=evidence,
            )

    @staticmethod
    def _eligible_declarer(view: HandView, ctx: Batch, q: PotQuestion) -> int | None:
        ruled = {s for _, s in false_openers(view)}
        for _, seat in q.declarations:
            if seat not in ruled and ineligible(view, ctx.profile, seat) is not Known.YES:
                return seat
        return None


@like(o206_wrong_refund_after_false_opener.WrongRefundAfterFalseOpener)
class WrongRefundAfterFalseOpener(Rule):
    def check(self, ctx: Batch) -> Iterator[Result]:
        for hand in _ruled_before_draw(ctx).tolist():
            yield from self._hand(ctx, HandView(ctx, hand))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        q = pot_question(view)
        if q is None or not q.false_opener:
            return
        yield from self._returns(ctx, view, q)
        if ctx.profile.false_opener is FalseOpenerStyle.DEAD_HAND_REFUND and q.killed:
            yield from self._killed_pot(ctx, view, q)

    def _returns(self, ctx: Batch, view: HandView, q: PotQuestion) -> Iterator[Result]:
        first_bet = view.lines[max(view.row.opens_index, 0)].chips
        forfeits = ctx.profile.false_opener is not FalseOpenerStyle.DEAD_HAND_REFUND
        bets = 0
        for a in view.lines:
            if a.seat != q.seat:
                continue
            if (a.actor is Actor.SEAT and a.verb in _WAGERS) or a.verb is Verb.WITHDRAWS:
                bets += a.chips
            elif a.verb is Verb.RETURNS:
                bets += a.chips
                if forfeits and a.index > q.ruling:
                    why = "a false opener forfeits every chip it put in"
                elif bets < first_bet:
                    why = f"its first bet of {money(first_bet)} stays in the pot"
                else:
                    continue
                yield ctx.finding(
                    view.hand, f"{money(-a.chips)} returned to false opener seat {q.seat}: {why}",
                    action=a.row,
                    evidence={"returned": -a.chips, "first_bet": first_bet, "bets_left": bets},
                )

    def _killed_pot(self, ctx: Batch, view: HandView, q: PotQuestion) -> Iterator[Result]:
        first_bet = view.lines[max(view.row.opens_index, 0)].chips
        kept = {
            n: left for n in view.order
            if (left := view.seats[n].total - view.seats[n].ante
                - (first_bet if n == q.seat else 0)) > 0
        }
        if kept:
            parts = [f"seat {n} {money(left)}" + (" beyond its first bet" if n == q.seat else "")
                     for n, left in kept.items()]
            yield ctx.finding(
                view.hand,
                f"pot killed after seat {q.seat}'s false openers but bets were not returned: "
                + ", ".join(parts),
                seat=next(iter(kept)), line=view.result_line,
                evidence={"not_returned": {str(n): left for n, left in kept.items()},
                          "false_opener": q.seat, "first_bet": first_bet},
            )
        paid = next(((i, s, x) for i, s, x, _ in collections(view) if x > 0), None)
        if paid is not None and view.row.carried_out < 0:
            i, s, amount = paid
            yield ctx.finding(
                view.hand,
                f"pot killed after seat {q.seat}'s false openers but seat {s} collected "
                f"{money(amount)}; the antes and first bet carry to the next deal",
                action=view.lines[i].row,
                evidence={"collected": amount, "false_opener": q.seat},
            )


@like(o207_split_openers_not_declared.SplitOpenersNotDeclared)
class SplitOpenersNotDeclared(Rule):
    def check(self, ctx: Batch) -> Iterator[Result]:
        if ctx.profile.discards_set_aside is not DiscardsSetAside.WHEN_SPLITTING:
            return
        opener = _opener_rows(ctx, ctx.hands.opener)
        s, safe = ctx.seats, np.maximum(opener, 0)
        doubtful = ((opener >= 0) & ctx.judged & ~s.split_openers[safe]
                    & (s.discards_count[safe] > 0) & (s.kept_openers[safe] != _YES))
        for hand in np.flatnonzero(doubtful).tolist():
            yield from self._hand(ctx, HandView(ctx, hand))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        seat = view.row.opener
        state = view.seats[seat]
        if state.split_openers:
            return
        draws = [a for a in view.lines if a.seat == seat and a.verb is Verb.DISCARDS]
        if not draws or not state.discards:
            return
        minimum, bobtail = required(view), ctx.profile.bobtail
        if self._kept_openers(state.shown, state.drawn + state.fifth, minimum, bobtail):
            return
        dealt = state.dealt_hand
        if dealt is None or not known(state.discards):
            yield ctx.unverifiable(view.hand, f"opener seat {seat}'s dealt cards or discards "
                                   "unrecorded", seat=seat)
            return
        try:
            openers = openers_cards(dealt, minimum, bobtail=bobtail)
        except ValueError:
            return
        kept = list(dealt)
        for card in state.discards:
            if card not in kept:
                return
            kept.remove(card)
        if openers is None or holds_openers(kept, minimum, bobtail=bobtail):
            return
        broken = [c for c in state.discards if c in openers] or list(state.discards)
        yield ctx.finding(
            view.hand,
            f"opener seat {seat} discarded {cards_text(broken)} of its openers "
            f"{cards_text(openers)} without declaring a split",
            action=draws[0].row,
            evidence={"dealt": list(dealt), "discards": list(state.discards),
                      "kept": kept, "openers_cards": list(openers), "broken": broken},
        )

    @staticmethod
    def _kept_openers(shown: tuple[str, ...] | None, drawn: tuple[str, ...], minimum: object,
                      bobtail: bool) -> bool:
        if shown is None:
            return False
        kept = list(shown)
        for card in drawn:
            if card not in kept:
                return False
            kept.remove(card)
        try:
            return known(kept) and holds_openers(kept, minimum, bobtail=bobtail)  # type: ignore[arg-type]
        except ValueError:
            return False


@like(o208_impossible_split_paid.ImpossibleSplitPaid)
class ImpossibleSplitPaid(Rule):
    def check(self, ctx: Batch) -> Iterator[Result]:
        s = ctx.seats
        split = np.flatnonzero(s.split_openers & (s.collected != 0))
        hands = np.unique(s.hand[split])
        for hand in hands[ctx.judged[hands]].tolist():
            yield from self._hand(ctx, HandView(ctx, hand))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        minimum, bobtail = required(view), ctx.profile.bobtail
        paid_all = collections(view)
        for n in view.order:
            state = view.seats[n]
            paid = [(i, x) for i, s, x, _ in paid_all if s == n and x > 0]
            if not state.split_openers or not paid:
                continue
            final = state.final
            if final is None or not known(state.discards):
                yield ctx.unverifiable(view.hand, f"seat {n} split openers; final hand or "
                                       "discards unrecorded", seat=n)
                continue
            try:
                possible = could_have_held_openers(final, state.discards, minimum,
                                                   bobtail=bobtail)
            except ValueError:
                continue
            if possible:
                continue
            total = sum(x for _, x in paid)
            yield ctx.finding(
                view.hand,
                f"seat {n} split openers and collected {money(total)}, but final hand "
                f"{cards_text(final)} with discards {cards_text(state.discards)} could not "
                f"have held {minimum.value}",
                action=view.lines[paid[0][0]].row,
                evidence={"final": list(final), "discards": list(state.discards),
                          "collected": total, "openers": minimum.value},
            )


@like(o209_refund_to_weak_caller.RefundToWeakCaller)
class RefundToWeakCaller(Rule):
    def check(self, ctx: Batch) -> Iterator[Result]:
        for hand in _hands(ctx, ctx.rows(Verb.RETURNS)).tolist():
            if ctx.hands.opener[hand] or ctx.hands.original_opener[hand]:
                yield from self._hand(ctx, HandView(ctx, hand))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        opener = view.row.opener or view.row.original_opener
        callers: dict[int, int] = {}
        bettor: int | None = None
        for a in view.lines:
            if a.street == 2 and a.actor is Actor.SEAT:
                if a.verb in _SETS_BET:
                    bettor = a.seat
                elif a.verb is Verb.CALLS and bettor == opener and a.seat is not None:
                    callers.setdefault(a.seat, a.index)
            if a.verb is not Verb.RETURNS or a.seat not in callers or a.index < callers[a.seat]:
                continue
            yield from self._judge(ctx, view, opener, a.seat, -a.chips, a)

    def _judge(self, ctx: Batch, view: HandView, opener: int, seat: int, amount: int,
               line: Line) -> Iterator[Result]:
        final = view.seats[seat].final
        bar = self._openers_bar(view, opener)
        if final is None or bar is None:
            yield ctx.unverifiable(view.hand, f"refund to seat {seat}: its final hand or the "
                                   "opener's openers are unrecorded", seat=seat)
            return
        cards, what = bar
        mine, openers = strength(final), strength(cards)
        if mine is None or openers is None:
            return
        if mine > openers:
            return
        yield ctx.finding(
            view.hand,
            f"seat {seat} got {money(amount)} back after calling the opener, but its "
            f"{cards_text(final)} ({describe_strength(mine)}) does not beat {what}",
            action=line.row,
            evidence={"returned": amount, "final": list(final), "openers": list(cards),
                      "opener": opener},
        )

    @staticmethod
    def _openers_bar(view: HandView, opener: int) -> tuple[tuple[str, ...], str] | None:
        held = view.seats[opener].had_openers
        dealt = view.seats[opener].dealt_hand
        if held is Known.NO:
            rank = _MINIMUM_PAIR_CHAR[required(view)]
            weakest = (f"{rank}c", f"{rank}d", "4h", "3s", "2c")
            return weakest, f"the minimum openers of the table ({describe(weakest)})"
        if held is Known.YES and dealt is not None:
            return dealt, f"seat {opener}'s openers {dealt_text(view, opener)}"
        return None


@like(o210_opener_folded_unproven.OpenerFoldedUnproven)
class OpenerFoldedUnproven(Rule):
    def check(self, ctx: Batch) -> Iterator[Result]:
        a = ctx.actions
        folds = ctx.rows(Verb.FOLDS)
        folds = folds[a.actor[folds] == ACTOR_SEAT]
        hand = a.hand[folds]
        seat = ctx.seat_rows(hand, a.seat[folds])
        unproven = (seat >= 0) & (ctx.seats.proof[np.maximum(seat, 0)] != _YES)
        by_opener = ((a.seat[folds] == ctx.hands.original_opener[hand])
                     & (a.index[folds] >= ctx.hands.opens_index[hand]))
        declared = _hands(ctx, ctx.rows(Verb.DECLARES_OPENERS))
        doubtful = unproven & (by_opener | np.isin(hand, declared))
        for one in _hands(ctx, folds[doubtful]).tolist():
            yield from self._hand(ctx, HandView(ctx, one))

    def _hand(self, ctx: Batch, view: HandView) -> Iterator[Result]:
        ruled = {s for _, s in false_openers(view)}
        opened_at = {seat: index for index, seat in reversed(opening_lines(view))}
        minimum = required(view).value
        for a in view.lines:
            seat = a.seat
            if (a.verb is not Verb.FOLDS or a.actor is not Actor.SEAT or seat not in opened_at
                    or a.index < opened_at[seat] or seat in ruled):
                continue
            del opened_at[seat]
            shown = view.seats[seat].proof
            if shown is Known.UNKNOWN:
                yield ctx.unverifiable(view.hand, f"opener seat {seat}'s proof has unrecorded "
                                       "cards", seat=seat)
            elif shown is Known.NO:
                yield ctx.finding(
                    view.hand, f"opener seat {seat} folded and never showed {minimum} or better",
                    action=a.row, evidence={"openers": minimum,
                                            "openers_shown": openers_shown(view, seat)},
                )


@like(o211_abandoned_without_penalty.AbandonedWithoutPenalty)
class AbandonedWithoutPenalty(Rule):
    def check(self, ctx: Batch) -> Iterator[Result]:
        penalty = ctx.profile.abandon_penalty
        if not penalty:
            return
        a = ctx.actions
        folds = ctx.rows(Verb.FOLDS)
        folds = folds[(a.actor[folds] == ACTOR_SEAT) & ~a.pot_open[folds]
                      & (a.street[folds] == 1) & (a.verb[folds] == V_FOLDS)]
        for hand in _hands(ctx, folds).tolist():
            yield from self._hand(ctx, HandView(ctx, hand), penalty)

    def _hand(self, ctx: Batch, view: HandView, penalty: int) -> Iterator[Result]:
        lines = view.lines
        for a in lines:
            if (a.verb is not Verb.FOLDS or a.actor is not Actor.SEAT or a.pot_open
                    or a.street != 1):
                continue
            paid = [p.amount or 0 for p in lines[a.index + 1:]
                    if p.verb is Verb.PENALTY and p.seat == a.seat]
            if penalty in paid:
                continue
            other = f" (penalty paid: {', '.join(map(money, paid))})" if paid else ""
            yield ctx.finding(
                view.hand,
                f"seat {a.seat} abandoned its hand before the pot was opened and no penalty "
                f"of {money(penalty)} followed{other}",
                action=a.row, evidence={"penalty": penalty, "paid": paid},
            )


RULES = (FalseOpenersNotCaught, UnprovenOpenerPaid, IllegalOpenerWithdrawal, IneligibleDeclarer,
         PotKilledAgainstRule, WrongRefundAfterFalseOpener, SplitOpenersNotDeclared,
         ImpossibleSplitPaid, RefundToWeakCaller, OpenerFoldedUnproven, AbandonedWithoutPenalty)


