"""The openers test: did a hand hold what the table required to open the pot?

``../shared/spec/rules.md`` "What counts as openers": for a minimum of pair-of-R, the
five cards *dealt* before the draw rank two pair or better, or are one pair of rank R or
higher. The joker pairs only as an ace (ace–joker is a pair of aces, jack–joker is not a
pair of jacks; R-JB 10, R-JK 2). Where the house allows bobtail openers (Foster), four
cards to a flush or to an open-ended straight also open. ``Openers: ANY`` (Draw High)
opens on anything.

Decisions where the texts are silent (each is tested in ``tests/audit/test_opening.py``):

* Bobtail and the joker: the joker stands for any one card, as it would in the completed
  flush or straight. ``Jk`` with three spades is four to a flush; ``Jk 5 6 8`` is four to
  an open-ended straight (the joker as the seven). "Open-ended" means four consecutive
  ranks that a card at either end completes, 2-3-4-5 (ace or six) up to T-J-Q-K (nine or
  ace); A-2-3-4 and J-Q-K-A are one-ended and ``Jk 5 7 9`` is a double gutshot, not
  open-ended.
* Retaining openers (R-JB 10, "you are not splitting openers if you retain openers") is a
  question about the cards kept, not about the combination the dealt hand ranked as: an
  ace-high straight A-Jk-K-Q-T that throws the ten keeps ace–joker, a pair of aces, so it
  did not split. :func:`holds_openers` answers it for any part of a hand.
* The split-openers check (R-JB 9, "when your final hand is compared with your
  discards") does not trust the log's kept cards: :func:`could_have_held_openers` tries
  every choice of kept cards from the final hand, as a dealer holding only the final hand
  and the discards would.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations

from audit.cards import ACE, check_cards, rank_of
from audit.evaluator import HandCategory, category, evaluate, ranks
from schemas.records import JOKER, Openers

#: The lowest pair that opens, by the ``Openers`` header.
MINIMUM_PAIR: dict[Openers, int] = {
    Openers.JJ: 11,
    Openers.QQ: 12,
    Openers.KK: 13,
    Openers.AA: 14,
}
_TWO_PAIR_LEVEL = HandCategory.TWO_PAIR.level
_ONE_PAIR_LEVEL = HandCategory.ONE_PAIR.level
#: Categories made by groups of equal ranks, and how many groups make the openers.
_GROUPS: dict[HandCategory, int] = {
    HandCategory.ONE_PAIR: 1,
    HandCategory.TWO_PAIR: 2,
    HandCategory.THREE_OF_A_KIND: 1,
    HandCategory.FOUR_OF_A_KIND: 1,
}
#: Lowest card of a four-card open-ended run: 2-3-4-5 (ace or six) up to T-J-Q-K.
_OPEN_ENDED_LOWS = range(2, 11)


def is_openers(cards: Sequence[str], minimum: Openers, *, bobtail: bool = False) -> bool:
    """Whether five dealt cards are openers for ``minimum`` (``bobtail``: the house allows them).

    ``Openers.ANY`` is always true, even for unknown cards. Otherwise raises ``ValueError``
    unless ``cards`` are five distinct known cards (a rule meeting ``??`` is unverifiable).
    """
    if minimum is Openers.ANY:
        return True
    strength = evaluate(cards)
    level = category(strength).level
    if level >= _TWO_PAIR_LEVEL:
        return True
    if level == _ONE_PAIR_LEVEL and ranks(strength)[0] >= MINIMUM_PAIR[minimum]:
        return True
    return bobtail and _bobtail_cards(tuple(cards)) is not None


def openers_cards(
    cards: Sequence[str], minimum: Openers, *, bobtail: bool = False
) -> tuple[str, ...] | None:
    """The dealt cards that make the openers, in the hand's order, or None if not openers.

    One pair: the pair (``Ac Jk`` for ace–joker); two pair, three and four of a kind: the
    cards of those groups, with the joker when it is one of the aces; straight, flush, full
    house, straight flush, five aces: all five. For ``Openers.ANY`` the cards of the hand's
    combination, or all five for a high-card hand. For "did this discard split openers?"
    use :func:`holds_openers` on the kept cards: a hand can hold openers in more than one
    way (R-JB 10). Where ``bobtail`` and the hand opens only on a bobtail: those four
    cards. Raises ``ValueError`` unless ``cards`` are five distinct known cards.
    """
    hand = check_cards(cards, size=5)
    strength = evaluate(hand)
    cat = category(strength)
    if minimum is not Openers.ANY and not is_openers(hand, minimum):
        if bobtail:
            return _bobtail_cards(hand)
        return None
    if cat not in _GROUPS:
        return hand
    group_ranks = set(ranks(strength)[: _GROUPS[cat]])
    return tuple(card for card in hand if _paired_rank(card) in group_ranks)


def holds_openers(cards: Sequence[str], minimum: Openers, *, bobtail: bool = False) -> bool:
    """Whether these cards by themselves show openers: part of a hand, or all five.

    For what a seat kept (did it retain openers, R-JB 10) or showed (``shows openers
    [Jh Js]``). Fewer than five cards hold openers with a pair of ``minimum`` or better
    (ace–joker included), two pair, three or four of a kind, or, where ``bobtail``, four
    cards to a flush or an open-ended straight. Five cards: as :func:`is_openers`.
    Raises ``ValueError`` for unknown or repeated cards or more than five.
    """
    if minimum is Openers.ANY:
        return True
    hand = check_cards(cards)
    if len(hand) == 5:
        return is_openers(hand, minimum, bobtail=bobtail)
    if len(hand) > 5:
        raise ValueError(f"a hand has five cards, got {len(hand)}: {' '.join(hand)}")
    counts = Counter(_paired_rank(card) for card in hand)
    pairs = sorted((rank for rank, count in counts.items() if count >= 2), reverse=True)
    if max(counts.values(), default=0) >= 3 or len(pairs) >= 2:
        return True
    if pairs and pairs[0] >= MINIMUM_PAIR[minimum]:
        return True
    return bobtail and len(hand) == 4 and _is_bobtail(hand)


def could_have_held_openers(
    final_hand: Sequence[str],
    discards: Sequence[str],
    minimum: Openers,
    *,
    bobtail: bool = False,
) -> bool:
    """Whether the final hand and the discards together could have been openers (R-JB 9).

    The dealt hand was the discards plus ``5 - len(discards)`` cards of the final hand;
    true when some such choice is openers. Raises ``ValueError`` unless the final hand is
    five known cards and the discards are known cards, all distinct.
    """
    final = check_cards(final_hand, size=5)
    thrown = check_cards(discards)
    check_cards([*final, *thrown])  # a discard cannot also be in the final hand
    if len(thrown) > 5:
        raise ValueError(f"a seat discards at most five cards, got {len(thrown)}")
    return any(
        is_openers((*kept, *thrown), minimum, bobtail=bobtail)
        for kept in combinations(final, 5 - len(thrown))
    )


def _paired_rank(card: str) -> int:
    """The rank a card pairs as: the joker pairs only as an ace."""
    return ACE if card == JOKER else rank_of(card)


def _bobtail_cards(hand: tuple[str, ...]) -> tuple[str, ...] | None:
    """The first four of five cards that are a bobtail, if any."""
    return next((four for four in combinations(hand, 4) if _is_bobtail(four)), None)


def _is_bobtail(four: Sequence[str]) -> bool:
    """Four cards to a flush or to an open-ended straight, the joker standing for any card."""
    naturals = [card for card in four if card != JOKER]
    if len({card[1] for card in naturals}) <= 1:
        return True
    values = {rank_of(card) for card in naturals}
    if len(values) != len(naturals):
        return False
    # With the joker filling a gap, three naturals still lie inside one four-rank run.
    return any(values <= set(range(low, low + 4)) for low in _OPEN_ENDED_LOWS)
