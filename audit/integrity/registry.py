"""The one explicit registry of integrity tests: code -> test class.

Add a test by importing its class and adding one ``"CODE": Class`` line to
:data:`TESTS` (keep codes in order). ``F1xx`` test fair dealing, ``C2xx`` collusion.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from audit.integrity.checks.c201_arrive_together import ArriveTogether
from audit.integrity.checks.c202_soft_play import SoftPlay
from audit.integrity.checks.c203_folds_best_hand import FoldsBestHand
from audit.integrity.checks.c204_chip_dumping import ChipDumping
from audit.integrity.checks.c205_whipsaw import Whipsaw
from audit.integrity.checks.c206_passing_openers import PassingOpeners
from audit.integrity.checks.f101_dealt_categories import DealtCategories
from audit.integrity.checks.f102_dealt_hands_too_good import DealtHandsTooGood
from audit.integrity.checks.f103_dealt_strength_shifted import DealtStrengthShifted
from audit.integrity.checks.f104_draws_too_good import DrawsTooGood
from audit.integrity.checks.f105_draw_quality_shifted import DrawQualityShifted
from audit.integrity.checks.f106_card_frequencies import CardFrequencies
from audit.integrity.checks.f107_card_positions import CardPositions
from audit.integrity.checks.f108_repeated_deck_orders import RepeatedDeckOrders
from audit.integrity.checks.f109_cards_return_to_seat import CardsReturnToSeat
from audit.integrity.test import IntegrityTest, Settings

TESTS: Mapping[str, type[IntegrityTest]] = {
    "C201": ArriveTogether,
    "C202": SoftPlay,
    "C203": FoldsBestHand,
    "C204": ChipDumping,
    "C205": Whipsaw,
    "C206": PassingOpeners,
    "F101": DealtCategories,
    "F102": DealtHandsTooGood,
    "F103": DealtStrengthShifted,
    "F104": DrawsTooGood,
    "F105": DrawQualityShifted,
    "F106": CardFrequencies,
    "F107": CardPositions,
    "F108": RepeatedDeckOrders,
    "F109": CardsReturnToSeat,
}


def codes() -> tuple[str, ...]:
    """Every registered code, in order."""
    return tuple(sorted(TESTS))


def get(code: str) -> type[IntegrityTest]:
    """The test class of ``code`` (``KeyError`` if unknown)."""
    return TESTS[code.upper()]


def select(wanted: Iterable[str] | None) -> tuple[str, ...]:
    """The codes matching ``wanted`` codes or prefixes (all when None); ``ValueError`` names
    one that matches nothing."""
    if wanted is None:
        return codes()
    chosen: list[str] = []
    for raw in wanted:
        prefix = raw.strip().upper()
        found = [c for c in codes() if c.startswith(prefix)] if prefix else []
        if not found:
            raise ValueError(f"unknown integrity test {raw!r} (codes: {', '.join(codes())})")
        chosen.extend(c for c in found if c not in chosen)
    return tuple(sorted(chosen))


def instances(settings: Settings, wanted: Iterable[str] | None = None) -> list[IntegrityTest]:
    """A fresh instance of each selected test (tests that accumulate the same sums share
    them: :meth:`IntegrityTest.share`)."""
    tests = [TESTS[code](settings) for code in select(wanted)]
    for i, test in enumerate(tests):
        test.share(tests[:i])
    return tests
