"""The J-rule certifier against the reference J rules, and its deal pairing.

A certificate must mean the reference J rules (J501-J508, run on the same pair of
deals under the same profile) report nothing for the later deal. Checked on
generated rooms of every built-in profile, and on pairs mutated one header, line or
seat at a time, where many mutants break a J rule.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta
from functools import cache

import numpy as np
import pytest

from audit.engine import sequence_pairs
from audit.fast.certify_sequence import certify_sequence, pair_deals
from audit.fast.layout import (
    H_STATUS,
    H_TABLE_HASH,
    H_TIME,
    HandArrays,
    from_records,
    profile_knobs,
)
from audit.profiles import PassedOutButton, Profile
from audit.registry import sequence_rules
from audit.replay import Replay
from audit.rule import SequenceContext
from schemas.records import Action, Actor, HandRecord, Openers, Seat, Section, Verb
from tests.audit.fast.corpus import corpus, profile

PROFILES = ("robert", "house23", "foster", "laws")
HANDS = 3000
TABLES = 8
MUTATED_PAIRS = 60
Pair = tuple[HandRecord | None, HandRecord]


def reference_clean(previous: HandRecord | None, current: HandRecord, house: Profile,
                    replays: Mapping[str, Replay] | None = None) -> bool:
    """The reference J rules report no finding, nothing unverifiable, no error on ``current``."""
    ctx = SequenceContext(previous, current, house, replays)
    for rule in sequence_rules(house):
        ctx.rule = rule
        try:
            if list(rule.check(ctx)):
                return False
        except Exception:  # the engine files a crash as an error: not clean
            return False
    return True


def certify_pairs(pairs: Sequence[Pair], house: Profile) -> np.ndarray:
    """Certify ``pairs`` from the arrays of their deals (each previous deal its own row)."""
    records: list[HandRecord] = []
    order, previous = [], []
    for before, deal in pairs:
        if before is None:
            previous.append(-1)
        else:
            previous.append(len(records))
            records.append(before)
        order.append(len(records))
        records.append(deal)
    arrays = from_records(records)
    knobs, progression = profile_knobs(house)
    return certify_sequence(arrays.hands, arrays.seats, arrays.events, arrays.cards, knobs,
                            progression, np.array(order, np.int64), np.array(previous, np.int64))


@cache
def room(name: str) -> tuple[tuple[HandRecord, ...], HandArrays]:
    """The generated room of profile ``name`` and its arrays (cached: tests share them)."""
    records = corpus(name, HANDS, 11, 0.05, 0.05, tables=TABLES).records
    return records, from_records(records)


def reference_order(records: Sequence[HandRecord]) -> dict[int, int]:
    """Row of each deal -> row of the deal before it (-1), by ``sequence_pairs``."""
    row = {id(r): i for i, r in enumerate(records)}
    return {row[id(deal)]: -1 if before is None else row[id(before)]
            for before, deal in sequence_pairs(records)}


@pytest.mark.parametrize("name", PROFILES)
def test_certified_pairs_are_reference_clean(name: str) -> None:
    records, arrays = room(name)
    house = profile(name)
    pairs = sequence_pairs(records)
    row = {id(r): i for i, r in enumerate(records)}
    order = np.array([row[id(d)] for _, d in pairs], np.int64)
    previous = np.array([-1 if b is None else row[id(b)] for b, _ in pairs], np.int64)
    knobs, progression = profile_knobs(house)
    certified = certify_sequence(arrays.hands, arrays.seats, arrays.events, arrays.cards, knobs,
                                 progression, order, previous).astype(bool)
    assert len({r.hand_id for r in records}) == len(records)  # replays are found by hand id
    replays = {r.hand_id: Replay(r) for r in records}
    clean = np.array([reference_clean(b, d, house, replays) for b, d in pairs])
    wrong = [(b.hand_id if b else None, d.hand_id) for (b, d), c, ok
             in zip(pairs, certified, clean, strict=True) if c and not ok]
    assert not wrong, f"certified pairs the reference J rules flag: {wrong[:10]}"
    assert (~clean).sum() >= 10, "the corpus should plant J faults"
    share = certified[clean].mean()
    print(f"{name}: {certified.sum()}/{clean.sum()} J-clean deals certified ({share:.1%})")
    assert share >= 0.95


@pytest.mark.parametrize("name", PROFILES)
def test_pair_deals_matches_sequence_pairs(name: str) -> None:
    records, arrays = room(name)
    order, previous, ambiguous = pair_deals(arrays.hands)
    assert sorted(order.tolist()) == list(range(len(records)))
    expected = reference_order(records)
    got = dict(zip(order.tolist(), previous.tolist(), strict=True))
    mismatched = [k for k in range(len(order))
                  if not ambiguous[k] and got[int(order[k])] != expected[int(order[k])]]
    assert not mismatched
    assert ambiguous.mean() < 0.01


def test_pair_deals_flags_equal_times() -> None:
    hands = room("robert")[1].hands.copy()
    order, _, _ = pair_deals(hands)
    a, b, c = (int(x) for x in order[10:13])
    assert hands[a, H_TABLE_HASH] == hands[b, H_TABLE_HASH] == hands[c, H_TABLE_HASH]
    hands[b, H_TIME] = hands[a, H_TIME]  # a tie: the reference orders by hand id
    order, previous, ambiguous = pair_deals(hands)
    position = {int(row): k for k, row in enumerate(order)}
    assert ambiguous[position[a]] and ambiguous[position[b]] and ambiguous[position[c]]
    assert ambiguous.sum() == 3
    first = int(order[0])
    assert previous[position[first]] == -1


def test_rejected_rows_are_not_certified() -> None:
    arrays = room("robert")[1]
    arrays = HandArrays(arrays.hands.copy(), arrays.seats, arrays.events, arrays.cards)
    knobs, progression = profile_knobs(profile("robert"))
    order, previous, _ = pair_deals(arrays.hands)
    base = certify_sequence(arrays.hands, arrays.seats, arrays.events, arrays.cards, knobs,
                            progression, order, previous)
    k = int(np.flatnonzero(base & (previous >= 0))[0])
    arrays.hands[previous[k], H_STATUS] = 1
    again = certify_sequence(arrays.hands, arrays.seats, arrays.events, arrays.cards, knobs,
                             progression, order, previous)
    assert again[k] == 0
    arrays.hands[previous[k], H_STATUS] = 0
    arrays.hands[order[k], H_STATUS] = 2
    again = certify_sequence(arrays.hands, arrays.seats, arrays.events, arrays.cards, knobs,
                             progression, order, previous)
    assert again[k] == 0


# ---- mutations ---------------------------------------------------------------------
Deals = tuple[HandRecord, HandRecord]  # (previous, current), both present


def _header(deal: HandRecord, **changes: object) -> HandRecord:
    return deal.model_copy(update=changes)


def _with_actions(record: HandRecord, actions: Sequence[Action]) -> HandRecord:
    renumbered = tuple(a.model_copy(update={"index": i}) for i, a in enumerate(actions))
    return record.model_copy(update={"actions": renumbered})


def _insert_before_result(record: HandRecord, extra: Sequence[Action]) -> HandRecord:
    lines = [a for a in record.actions if a.section is not Section.RESULT]
    rest = [a for a in record.actions if a.section is Section.RESULT]
    return _with_actions(record, [*lines, *extra, *rest])


def _carry(before: HandRecord, deal: HandRecord, stays: bool, amount: int = 300) -> Deals:
    """The previous deal passed out ``amount``; the current one is its next jack-pot, its
    button where the house puts it (``stays``: on the same seat, Foster)."""
    seats = deal.seat_numbers()
    button = before.button if stays else next((n for n in seats if n > before.button), seats[0])
    return (_header(before, carried_out=amount),
            _header(deal, carried=amount, jackpot=before.jackpot + 1, button=button))


def _next_button(deal: HandRecord) -> HandRecord:
    seats = deal.seat_numbers()
    return _header(deal, button=next((n for n in seats if n > deal.button), seats[0]))


def _next_openers(openers: Openers | None) -> Openers:
    cycle = [Openers.JJ, Openers.QQ, Openers.KK, Openers.AA, Openers.ANY]
    return Openers.QQ if openers is None else cycle[(cycle.index(openers) + 1) % len(cycle)]


def _seat_swap(deal: HandRecord) -> HandRecord:
    first, second, *rest = deal.seats
    return _header(deal, seats=(first.model_copy(update={"player_id": second.player_id}),
                                second.model_copy(update={"player_id": first.player_id}), *rest))


def _newcomer(deal: HandRecord) -> HandRecord:
    return _header(deal, seats=(deal.seats[0].model_copy(update={"player_id": "P-NEWCOMER"}),
                                *deal.seats[1:]))


def _extra_seat(deal: HandRecord) -> HandRecord:
    free = next((n for n in range(1, 11) if n not in deal.seat_numbers()), None)
    if free is None:
        return _newcomer(deal)
    seats = tuple(sorted((*deal.seats, Seat(seat=free, player_id="P-EXTRA", stack=5000)),
                         key=lambda s: s.seat))
    dealt = Action(index=0, line=0, section=Section.DEAL, actor=Actor.SEAT, verb=Verb.DEALT,
                   seat=free, cards=("??",) * 5)
    lines = list(deal.actions)
    at = next((i for i, a in enumerate(lines) if a.section is Section.DEAL), len(lines))
    return _with_actions(_header(deal, seats=seats), [*lines[:at], dealt, *lines[at:]])


def _short_ante(deal: HandRecord) -> HandRecord:
    lines = list(deal.actions)
    at = next((i for i, a in enumerate(lines) if a.verb is Verb.ANTES), None)
    if at is None:
        return _header(deal, ante=deal.ante + 100)
    lines[at] = lines[at].model_copy(update={"amount": max((lines[at].amount or 0) - 1, 0)})
    return _with_actions(deal, lines)


def _no_antes(deal: HandRecord) -> HandRecord:
    return _with_actions(deal, [a for a in deal.actions if a.verb is not Verb.ANTES])


def _cheap_antes(deal: HandRecord) -> HandRecord:
    """Every ante (header and lines) one cent: short of any fattener."""
    lines = [a.model_copy(update={"amount": 1}) if a.verb is Verb.ANTES else a
             for a in deal.actions]
    return _with_actions(_header(deal, ante=1), lines)


def _antes_past_limit(deal: HandRecord) -> HandRecord:
    return _header(deal, jackpot=max(deal.jackpot, 4))


def _late_false_opener(before: HandRecord, penalty: int) -> HandRecord:
    seat = before.seats[0].seat
    extra = [Action(index=0, line=0, section=Section.SHOWDOWN, actor=Actor.FLOOR,
                    verb=Verb.FALSE_OPENERS, seat=seat)]
    if penalty:
        extra.append(Action(index=0, line=0, section=Section.SHOWDOWN, actor=Actor.FLOOR,
                            verb=Verb.PENALTY, seat=seat, amount=penalty))
    return _insert_before_result(before, extra)


def _opener_ruled_false(before: HandRecord, all_in_line: bool, broke: bool) -> HandRecord:
    """The deal's first opener (else its first seat) ruled a false opener, who opened
    all-in (``all_in_line``) or spent its whole stack on the ante (``broke``)."""
    opens = next((a for a in before.actions if a.verb is Verb.OPENS and a.seat), None)
    seat = opens.seat if opens is not None and opens.seat else before.seats[0].seat
    lines = [a.model_copy(update={"all_in": True}) if a is opens and all_in_line else a
             for a in before.actions]
    ruled = _with_actions(before, lines)
    if broke:
        ante = sum(a.amount or 0 for a in before.actions
                   if a.verb is Verb.ANTES and a.seat == seat)
        ruled = _header(ruled, seats=tuple(s.model_copy(update={"stack": ante})
                                           if s.seat == seat else s for s in before.seats))
    return _insert_before_result(ruled, [Action(
        index=0, line=0, section=Section.BEFORE_DRAW, actor=Actor.FLOOR,
        verb=Verb.FALSE_OPENERS, seat=seat)])


def _misdealt(before: HandRecord) -> HandRecord:
    return _insert_before_result(before, [Action(index=0, line=0, section=Section.DEAL,
                                                 actor=Actor.DEALER, verb=Verb.MISDEAL)])


def mutants(before: HandRecord, deal: HandRecord, stays: bool) -> dict[str, Pair]:
    """One pair per mutation: headers, lines and seats of either deal, alone or on a carry,
    and the deal alone as a table's first."""
    carried_before, carried_deal = _carry(before, deal, stays)
    return {
        "jackpot+1": (before, _header(deal, jackpot=deal.jackpot + 1)),
        "jackpot+3": (before, _header(deal, jackpot=deal.jackpot + 3)),
        "antes-past-limit": (before, _antes_past_limit(deal)),
        "openers": (before, _header(deal, openers=_next_openers(deal.openers))),
        "openers-kk": (before, _header(deal, openers=Openers.KK)),
        "carried+1": (before, _header(deal, carried=deal.carried + 1)),
        "button-same": (before, _header(deal, button=before.button)),
        "button-next": (before, _next_button(deal)),
        "ante+100": (before, _header(deal, ante=deal.ante + 100)),
        "ante-line-short": (before, _short_ante(deal)),
        "ante-lines-dropped": (before, _no_antes(deal)),
        "player-swap": (before, _seat_swap(deal)),
        "player-new": (before, _newcomer(deal)),
        "seat-added": (before, _extra_seat(deal)),
        "prev-carried-out+100": (_header(before, carried_out=(before.carried_out or 0) + 100),
                                 deal),
        "prev-carried-out-none": (_header(before, carried_out=None), deal),
        "prev-misdeal": (_misdealt(before), deal),
        "prev-false-opener-penalised": (_late_false_opener(before, 2 * before.ante), deal),
        "time+1d": (before, _header(deal, time=deal.time + timedelta(1))),
        "carry": (carried_before, carried_deal),
        "carry+swap": (carried_before, _seat_swap(carried_deal)),
        "carry+newcomer": (carried_before, _newcomer(carried_deal)),
        "carry+seat-added": (carried_before, _extra_seat(carried_deal)),
        "carry+button-same": (carried_before, _header(carried_deal, button=before.button)),
        "carry+button-next": (carried_before, _next_button(carried_deal)),
        "carry+short-ante": (carried_before, _short_ante(carried_deal)),
        "carry+no-antes": (carried_before, _no_antes(carried_deal)),
        "carry+false-opener": (_late_false_opener(carried_before, 0), carried_deal),
        "carry+false-opener-penalised": (
            _late_false_opener(carried_before, 2 * before.ante), carried_deal),
        "carry+misdeal": (_misdealt(carried_before), carried_deal),
        "carry+opener-ruled-false": (_opener_ruled_false(carried_before, False, False),
                                     carried_deal),
        "carry+opener-ruled-false-all-in": (_opener_ruled_false(carried_before, True, False),
                                            carried_deal),
        "carry+opener-ruled-false-broke": (_opener_ruled_false(carried_before, False, True),
                                           carried_deal),
        "cheap-antes": (before, _cheap_antes(deal)),
        "carry+cheap-antes": (carried_before, _cheap_antes(carried_deal)),
        "first": (None, deal),
        "first+jackpot2": (None, _header(deal, jackpot=2)),
        "first+jackpot4": (None, _header(deal, jackpot=4)),
        "first+cheap-antes": (None, _cheap_antes(deal)),
        "first+jackpot2+cheap-antes": (None, _header(_cheap_antes(deal), jackpot=2)),
    }


@pytest.mark.parametrize("name", PROFILES)
def test_mutated_pairs_stay_sound(name: str) -> None:
    records, _ = room(name)
    house = profile(name)
    originals = [(b, d) for b, d in sequence_pairs(records) if b is not None][:MUTATED_PAIRS]
    pairs: list[Pair] = []
    labels: list[str] = []
    for before, deal in originals:
        stays = house.passed_out_button is PassedOutButton.STAYS
        for label, pair in mutants(before, deal, stays).items():
            pairs.append(pair)
            labels.append(label)
    certified = certify_pairs(pairs, house).astype(bool)
    clean = np.array([reference_clean(b, d, house) for b, d in pairs])
    wrong = sorted({lab for lab, c, ok in zip(labels, certified, clean, strict=True)
                    if c and not ok})
    assert not wrong, f"certified mutants the reference flags: {wrong}"
    assert (~clean).sum() > len(pairs) // 4, "most mutations should break a J rule"
    assert certified.sum() > len(pairs) // 10, "sound mutants should still be certified"
