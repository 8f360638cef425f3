"""Scratch: the rules over facts by code (moves into audit/registry.py with the migration)."""

from __future__ import annotations

from audit.facts.ported import betting, cards, deal, openers, pots
from audit.facts.ported import sequence_rules as deal_sequences
from audit.facts.rule import Rule
from audit.facts.sequence import SequenceRule
from audit.profiles import Profile

HAND_RULES: dict[str, type[Rule]] = {
    cls.code: cls for module in (betting, deal, cards, openers, pots) for cls in module.RULES}
SEQUENCE_RULES: dict[str, type[SequenceRule]] = {cls.code: cls for cls in deal_sequences.RULES}


def hand_rules(profile: Profile) -> tuple[Rule, ...]:
    """The hand rules the profile enables, in code order."""
    return tuple(cls() for code, cls in sorted(HAND_RULES.items()) if profile.enabled(code))


def sequence_rules(profile: Profile) -> tuple[SequenceRule, ...]:
    """The J rules the profile enables, in code order."""
    return tuple(cls() for code, cls in sorted(SEQUENCE_RULES.items())
                 if profile.enabled(code))
