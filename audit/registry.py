"""The one explicit registry of audit rules: code -> rule class.

Add a rule by importing its class and adding one ``"CODE": Class`` line to
:data:`RULES` (keep codes in order). Nothing is discovered implicitly.
"""

from __future__ import annotations

from collections.abc import Mapping

from audit.profiles import Profile
from audit.rule import Rule, SequenceRule
from audit.rules.b101_over_cap_raise import OverCapRaise
from audit.rules.b102_wrong_bet_size import WrongBetSize
from audit.rules.b103_action_out_of_turn import ActionOutOfTurn
from audit.rules.b104_action_not_in_hand import ActionNotInHand
from audit.rules.b105_inconsistent_call_or_raise import InconsistentCallOrRaise
from audit.rules.b106_draw_before_stakes_equal import DrawBeforeStakesEqual
from audit.rules.b107_short_call_all_in_opener import ShortCallAllInOpener
from audit.rules.b108_bet_before_open import BetBeforeOpen

RULES: Mapping[str, type[Rule] | type[SequenceRule]] = {
    "B101": OverCapRaise,
    "B102": WrongBetSize,
    "B103": ActionOutOfTurn,
    "B104": ActionNotInHand,
    "B105": InconsistentCallOrRaise,
    "B106": DrawBeforeStakesEqual,
    "B107": ShortCallAllInOpener,
    "B108": BetBeforeOpen,
}


def codes() -> tuple[str, ...]:
    """Every registered code, in order."""
    return tuple(sorted(RULES))


def get(code: str) -> type[Rule] | type[SequenceRule]:
    """The rule class of ``code`` (``KeyError`` if unknown)."""
    return RULES[code.upper()]


def hand_rules(profile: Profile) -> tuple[Rule, ...]:
    """Instances of the per-hand rules the profile enables, in code order."""
    return tuple(
        cls() for code, cls in sorted(RULES.items())
        if issubclass(cls, Rule) and profile.enabled(code)
    )


def sequence_rules(profile: Profile) -> tuple[SequenceRule, ...]:
    """Instances of the deal-sequence (J) rules the profile enables, in code order."""
    return tuple(
        cls() for code, cls in sorted(RULES.items())
        if issubclass(cls, SequenceRule) and profile.enabled(code)
    )
