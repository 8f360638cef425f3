"""A check by code written elsewhere: pokerkit replays our generated hands; treys ranks them.

Each joker-free generated hand (clean play and planted violations) is replayed in a
pokerkit fixed-limit draw ``State`` with antes, built as ``benchmarks/bench_audit.py``
builds it (two streets, a bet and four raises, the table's units and stacks, in cents).
Then, against the reference engine:

* every line pokerkit refuses (a bet or raise of the wrong size, a raise past its cap,
  a call of the wrong amount, a check facing a bet, an action out of turn, the draw
  before the bets are equal) must be a B finding of ours on that hand;
* every hand pokerkit plays to the end without complaint must have no B finding;
* where we report no P finding, each seat's winnings equal pokerkit's payoffs (less the
  carried chips and the rake, which pokerkit does not know, on the one collecting seat).

Where pokerkit's game and the seeds differ, the hand is skipped, with the reason
counted and printed (the skips must stay a minority):

* pokerkit has no openers: before the pot is open the seats "pass" (check) in turn, and
  the opener then acts first after the draw (R-DH intro). pokerkit opens each round by
  position, so the table is seated from the opener: the checks before the open are left
  out (they move no chips), which keeps every later turn in the seeds' order. A deal
  nobody opened is passed out by the seeds and played on by pokerkit: skipped.
* a seat may fold before the pot is open, and at any turn with nothing to call; pokerkit
  refuses a fold with nothing to call.
* a bet before the draw that is not an open is B108's in Jacks or Better; pokerkit,
  without openers, takes it as a bet.
* an all-in opener for the antes opens for nothing (R-DH 12), an open for two units is a
  bet and a raise in one line (R-DH intro); pokerkit has neither.
* floor and dealer rulings (false openers, dead or fouled hands, withdrawals, returns
  other than the uncalled bet, penalties, misdeals) have no pokerkit action.
* raising is unlimited heads-up (R-DH 1); pokerkit caps every round.
* a hand mucked at the showdown is out (rules.md); pokerkit shows every hand. A split
  pot with an odd chip, carried chips or rake: the seeds give the odd chip first left of
  the button, pokerkit by its own seat order (seated from the opener here).
* a deal past the house's limit of antes has no ante; pokerkit needs a forced bet.
* a seat whose ante is short (J507's question) or whose cards break the deck (D rules).
"""

from __future__ import annotations

import random
import warnings
from collections import Counter
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
from pokerkit import (
    Automation,
    BettingStructure,
    Deck,
    Opening,
    StandardHighHand,
    State,
    Street,
)
from treys import Card, Evaluator

from audit.engine import AuditResult, audit_records
from audit.evaluator import evaluate
from audit.profiles import BUILTIN, Profile
from audit.replay import Replay
from ingest.reader import ParsedHand, read_path
from openers.generator import GenerateConfig, generate
from openers.generator.generate import LOGS_DIR
from schemas.records import Action, Actor, Game, HandRecord, Section, Verb

AUTOMATIONS = (
    Automation.ANTE_POSTING, Automation.BET_COLLECTION, Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING, Automation.HOLE_CARDS_SHOWING_OR_MUCKING, Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING, Automation.CHIPS_PULLING,
)
#: The betting and money codes planted among clean play (the rest of the room is clean).
PLANTED = ("B101", "B102", "B103", "B104", "B105", "B106", "B107", "B108", "P401", "P402",
           "P403")
_BETTING = frozenset({Verb.CHECKS, Verb.OPENS, Verb.BETS, Verb.CALLS, Verb.RAISES, Verb.FOLDS})
_RULINGS = frozenset({Verb.FALSE_OPENERS, Verb.FOULED_HAND, Verb.PENALTY, Verb.POT_KILLED,
                      Verb.POT_PLAYS, Verb.MISDEAL, Verb.WITHDRAWS, Verb.DECLARES_OPENERS,
                      Verb.EXPOSES, Verb.RETRIEVES_HAND})


class Skip(Exception):
    """Where pokerkit's game and the seeds differ: the hand is not compared."""


class Refused(Exception):
    """pokerkit refused a line of the log."""


def new_state(record: HandRecord, stacks: list[int], house: Profile) -> State:
    """Fixed-limit five-card draw with antes, as the benchmark builds it."""
    cap = 1 + (house.cap_raises if house.cap_raises is not None else 1000)
    return State(
        AUTOMATIONS, Deck.STANDARD, (StandardHighHand,),
        (Street(False, (False,) * 5, 0, False, Opening.POSITION, record.limit_small, cap),
         Street(False, (), 0, True, Opening.POSITION, record.limit_big, cap)),
        BettingStructure.FIXED_LIMIT, True, record.ante, (0,), 0, stacks, len(stacks),
    )


class Replayer:
    """Feed one hand record to pokerkit, seated clockwise from the opener (from the
    button's left when nobody opened)."""

    def __init__(self, record: HandRecord, house: Profile) -> None:
        self.record = record
        self.house = house
        opens = [a for a in record.actions if a.verb is Verb.OPENS]
        if record.ante == 0:
            raise Skip("an unanted deal past the limit of antes (pokerkit needs a forced bet)")
        seats = sorted(s.seat for s in record.seats)
        if opens:
            opener = opens[0]
            if opener.all_in and not opener.amount:
                raise Skip("all-in opener for the antes opens for nothing (R-DH 12)")
            if (opener.amount or 0) > record.limit_small:
                raise Skip("an open for two units is a bet and a raise in one line")
            start = seats.index(opener.seat or 0)
            self.opened_at = opener.index
        else:
            # Nobody opened: every pass is a turn in position, from the button's left.
            # pokerkit then waits for a draw the seeds do not hold (the deal is passed out).
            start = next((k for k, n in enumerate(seats) if n > record.button), 0)
            self.opened_at = -1
        if any(a.verb in _RULINGS or (a.verb is Verb.RETURNS and a.section is not Section.RESULT)
               for a in record.actions):
            raise Skip("a floor or dealer ruling has no pokerkit action")
        self.order = seats[start:] + seats[:start]
        self.index = {seat: i for i, seat in enumerate(self.order)}
        stack = {s.seat: s.stack for s in record.seats}
        antes = Counter({a.seat: a.amount or 0 for a in record.actions if a.verb is Verb.ANTES})
        if any(antes[n] != min(record.ante, stack[n]) for n in seats):
            raise Skip("a short or missing ante (J507's question)")
        self.state = new_state(record, [stack[n] for n in self.order], house)
        for n in self.order:
            dealt = [a for a in record.actions if a.verb is Verb.DEALT and a.seat == n]
            cards = dealt[0].cards if dealt else None
            if not cards or len(cards) != 5 or len(dealt) != 1:
                raise Skip("a dealt hand that is not five known cards (D rules)")
            self.state.deal_hole("".join(cards))
        self.drawn = False
        #: Lines pokerkit is not shown (the passes before the open).
        self.unseen: set[int] = set()

    def play(self) -> None:
        """Every line in log order; raises :class:`Refused` at the first line refused."""
        for a in self.record.actions:
            if a.verb in _BETTING and a.actor is Actor.SEAT:
                if a.section is Section.BEFORE_DRAW and a.index < self.opened_at:
                    if a.verb is Verb.CHECKS:
                        self.unseen.add(a.line)
                        continue  # a pass before the open moves no chips
                    raise Skip("a fold before the pot is open")
                if a.section is Section.AFTER_DRAW and not self.drawn:
                    self.draw()
                self.bet(a)
            elif (not self.drawn
                  and a.section in (Section.DRAW, Section.AFTER_DRAW, Section.SHOWDOWN)
                  and a.verb in (Verb.DISCARDS, Verb.STANDS_PAT, Verb.DRAWS_FIFTH, Verb.SHOWS)):
                self.draw()

    def bet(self, a: Action) -> None:
        state = self.state
        if (a.verb is Verb.BETS and a.section is Section.BEFORE_DRAW
                and self.record.game is Game.JACKS_OR_BETTER):
            raise Skip("a bet before the draw that is not an open (B108: pokerkit has no "
                       "openers)")
        seat = self.index.get(a.seat or 0)
        if seat is None or state.actor_index != seat:
            raise Refused(f"line {a.line}: seat {a.seat} acts, pokerkit's turn is "
                          f"{state.actor_index}")
        owed = state.checking_or_calling_amount or 0
        if a.verb is Verb.FOLDS:
            if not state.can_fold():
                raise Skip("a fold with nothing to call (legal; pokerkit refuses it)")
            state.fold()
        elif a.verb is Verb.CHECKS:
            if owed:
                raise Refused(f"line {a.line}: a check facing {owed}")
            state.check_or_call()
        elif a.verb is Verb.CALLS:
            if (a.amount or 0) != owed and not (a.all_in and (a.amount or 0) < owed):
                raise Refused(f"line {a.line}: calls {a.amount}, pokerkit calls {owed}")
            state.check_or_call()
        else:
            top = max(state.bets)
            to = a.to_amount if a.to_amount is not None else top + (a.amount or 0)
            if a.verb is Verb.RAISES and (a.amount or 0) != to - top:
                raise Refused(f"line {a.line}: raises {a.amount} to {to} over {top}")
            if a.verb is not Verb.RAISES and top:
                raise Refused(f"line {a.line}: {a.verb.value} facing a bet")
            contenders = sum(1 for s, st in zip(state.statuses, state.stacks, strict=True)
                             if s and st > 0)
            try:
                state.verify_completion_betting_or_raising_to(to)
            except ValueError as exc:
                if not state.can_complete_bet_or_raise_to() and contenders <= 2:
                    raise Skip("heads-up raising is unlimited (R-DH 1)") from exc
                if a.all_in:
                    raise Skip("an all-in bet or raise for less (pokerkit asks the full "
                               "size)") from exc
                raise Refused(f"line {a.line}: {exc}") from exc
            state.complete_bet_or_raise_to(to)

    def draw(self) -> None:
        """The draw, in pokerkit's order, with each seat's cards from the log."""
        state, record = self.state, self.record
        if state.actor_index is not None:
            raise Refused("the draw began while a seat still had to act")
        self.drawn = True
        out: dict[int, list[str]] = {}
        new: dict[int, list[str]] = {}
        for a in record.actions:
            if a.seat is None:
                continue
            if a.verb is Verb.DISCARDS:
                out.setdefault(a.seat, []).extend(a.cards or ())
                new.setdefault(a.seat, []).extend(a.drawn or ())
            elif a.verb is Verb.DRAWS_FIFTH:
                new.setdefault(a.seat, []).extend(a.cards or ())
        drawers = {a.seat for a in record.actions
                   if a.verb in (Verb.DISCARDS, Verb.STANDS_PAT, Verb.DRAWS_FIFTH)}
        for seat in drawers:
            i = self.index.get(seat or 0)
            if i is None or not state.statuses[i]:
                raise Refused(f"seat {seat} draws, but pokerkit has it out of the hand")
        while state.can_stand_pat_or_discard():
            i = state.stand_patter_or_discarder_index
            assert i is not None
            seat = self.order[i]
            if len(out.get(seat, [])) != len(new.get(seat, [])) or "??" in new.get(seat, []):
                raise Skip("discards and draws differ (D305's question)")
            state.stand_pat_or_discard("".join(out.get(seat, [])))
        while state.can_deal_hole():
            i = state.hole_dealee_index
            assert i is not None
            state.deal_hole("".join(new[self.order[i]]))


def compare(record: HandRecord, result: AuditResult, house: Profile) -> tuple[str, str]:
    """``(outcome, detail)``: what pokerkit did with the hand and how it squares with ours."""
    codes = {f.code for f in result.findings}
    b_codes = {c for c in codes if c.startswith("B")}
    if any(c.startswith("D") for c in codes):
        raise Skip("a deal or draw fault (D rules): not a betting question")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        replay = Replayer(record, house)
        try:
            replay.play()
            if not replay.drawn and replay.state.status and replay.opened_at >= 0:
                replay.draw()
        except Refused as refused:
            assert b_codes, f"{record.hand_id}: pokerkit refused ({refused}); we report {codes}"
            return "refused", str(refused)
    state = replay.state
    if state.status:
        return "unfinished", ""
    seen = [f for f in result.findings if f.code in b_codes and f.line not in replay.unseen]
    if b_codes and not seen:
        raise Skip("a B finding on a pass before the open, a line pokerkit is not shown")
    assert not seen, f"{record.hand_id}: pokerkit played it through; we report {b_codes}"
    if any(c.startswith("P") for c in codes):
        return "played, P finding", ""
    ours = winnings(record)
    theirs = {seat: state.payoffs[i] for seat, i in replay.index.items()}
    extra = record.carried - (record.rake or 0)
    diff = {seat: ours[seat] - theirs[seat] for seat in replay.index if ours[seat] != theirs[seat]}
    if not diff:
        return "payoffs equal", ""
    collectors = {a.seat for a in record.actions if a.verb is Verb.COLLECTS}
    if len(collectors) == 1 and diff == {next(iter(collectors)): extra}:
        return "payoffs equal", "carried/rake"
    if any(a.verb is Verb.MUCKS for a in record.actions):
        raise Skip("a hand mucked at the showdown is out (rules.md); pokerkit shows it and "
                   "pays it where it is best")
    if len(collectors) > 1:
        raise Skip("a split pot: the odd chip, carried chips and rake go first left of the "
                   "button (pokerkit: by its own seat order)")
    raise AssertionError(f"{record.hand_id}: winnings {ours} vs pokerkit {theirs}")


def winnings(record: HandRecord) -> dict[int, int]:
    """Each seat's chips after the hand less before, as our replay books them."""
    seats = Replay(record).seats
    return {n: s.collected - s.total - s.penalties for n, s in seats.items()}


@cache
def room(tmp: Path) -> list[HandRecord]:
    generate(GenerateConfig(hands=3000, tables=6, seed=17, joker_share=0.0, violations=0.12,
                            codes=PLANTED, draw_high_share=0.1), tmp)
    records: list[HandRecord] = []
    for path in sorted((tmp / LOGS_DIR).iterdir()):
        records.extend(i.record for i in read_path(path) if isinstance(i, ParsedHand))
    return records


def test_pokerkit_agrees_with_our_betting_and_payoffs(tmp_path_factory: pytest.TempPathFactory
                                                      ) -> None:
    house = BUILTIN["robert"]
    records = room(tmp_path_factory.mktemp("pokerkit"))
    assert len(records) >= 2900
    assert not any(r.joker for r in records)
    outcomes: Counter[str] = Counter()
    skips: Counter[str] = Counter()
    for record, result in zip(records, audit_records(records, house, sequences=False),
                              strict=True):
        try:
            outcome, _ = compare(record, result, house)
        except Skip as skip:
            skips[str(skip)] += 1
            continue
        outcomes[outcome] += 1
    compared = sum(outcomes.values())
    print(f"\n{len(records)} hands: {compared} compared with pokerkit {dict(outcomes)}")
    for reason, count in skips.most_common():
        print(f"  skipped {count:5d}: {reason}")
    assert compared >= 2000
    assert sum(skips.values()) < compared  # the skips stay a minority
    assert outcomes["refused"] >= 20  # planted betting faults are there, and pokerkit sees them
    assert outcomes["payoffs equal"] >= 1000


@pytest.mark.parametrize("seed", [1, 2])
def test_hand_ranking_agrees_with_treys(seed: int) -> None:
    """Joker-free hands: our evaluator orders random five-card hands as treys does."""
    rng = random.Random(seed)
    deck = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    judge = Evaluator()
    treys: Callable[[list[str]], int] = lambda cards: judge.evaluate(  # noqa: E731
        [Card.new(c) for c in cards[:2]], [Card.new(c) for c in cards[2:]])
    for _ in range(6000):
        a, b = rng.sample(deck, 5), rng.sample(deck, 5)
        ours = (evaluate(a) > evaluate(b)) - (evaluate(a) < evaluate(b))
        theirs = (treys(a) < treys(b)) - (treys(a) > treys(b))  # treys: lower is better
        assert ours == theirs, (a, b)
