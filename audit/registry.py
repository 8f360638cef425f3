"""The one explicit registry of audit rules: code -> rule class.

Add a rule by importing its class and adding one ``"CODE": Class`` line to
:data:`RULES` (keep codes in order). Nothing is discovered implicitly.
"""

from __future__ import annotations

from collections.abc import Mapping

from audit.house import Profile
from audit.rule import Rule, SequenceRule
from audit.rules.b101_over_cap_raise import OverCapRaise
from audit.rules.b102_wrong_bet_size import WrongBetSize
from audit.rules.b103_action_out_of_turn import ActionOutOfTurn
from audit.rules.b104_action_not_in_hand import ActionNotInHand
from audit.rules.b105_inconsistent_call_or_raise import InconsistentCallOrRaise
from audit.rules.b106_draw_before_stakes_equal import DrawBeforeStakesEqual
from audit.rules.b107_short_call_all_in_opener import ShortCallAllInOpener
from audit.rules.b108_bet_before_open import BetBeforeOpen
from audit.rules.d301_misdeal_not_called import MisdealNotCalled
from audit.rules.d302_fouled_hand_played import FouledHandPlayed
from audit.rules.d303_five_card_draw_dealt_wrongly import FiveCardDrawDealtWrongly
from audit.rules.d304_draw_out_of_order import DrawOutOfOrder
from audit.rules.d305_discards_and_draws_differ import DiscardsAndDrawsDiffer
from audit.rules.d306_exposed_card_mishandled import ExposedCardMishandled
from audit.rules.d307_duplicate_or_impossible_card import DuplicateOrImpossibleCard
from audit.rules.d308_discard_taken_back import DiscardTakenBack
from audit.rules.j501_ante_limit_exceeded import AnteLimitExceeded
from audit.rules.j502_button_wrong_after_passed_out import ButtonWrongAfterPassedOut
from audit.rules.j503_wrong_openers_requirement import WrongOpenersRequirement
from audit.rules.j504_carried_chips_lost_or_invented import CarriedChipsLostOrInvented
from audit.rules.j505_seat_change_with_antes_carried import SeatChangeWithAntesCarried
from audit.rules.j506_ineligible_player_dealt_in import IneligiblePlayerDealtIn
from audit.rules.j507_missing_ante_or_fattener import MissingAnteOrFattener
from audit.rules.j508_unproven_opener_not_penalised import UnprovenOpenerNotPenalised
from audit.rules.o201_false_openers_not_caught import FalseOpenersNotCaught
from audit.rules.o202_unproven_opener_paid import UnprovenOpenerPaid
from audit.rules.o203_illegal_opener_withdrawal import IllegalOpenerWithdrawal
from audit.rules.o204_ineligible_declarer import IneligibleDeclarer
from audit.rules.o205_pot_killed_against_rule import PotKilledAgainstRule
from audit.rules.o206_wrong_refund_after_false_opener import WrongRefundAfterFalseOpener
from audit.rules.o207_split_openers_not_declared import SplitOpenersNotDeclared
from audit.rules.o208_impossible_split_paid import ImpossibleSplitPaid
from audit.rules.o209_refund_to_weak_caller import RefundToWeakCaller
from audit.rules.o210_opener_folded_unproven import OpenerFoldedUnproven
from audit.rules.o211_abandoned_without_penalty import AbandonedWithoutPenalty
from audit.rules.p401_pot_awarded_to_wrong_hand import PotAwardedToWrongHand
from audit.rules.p402_chips_not_conserved import ChipsNotConserved
from audit.rules.p403_side_pot_misdistributed import SidePotMisdistributed
from audit.rules.p404_hand_misread import HandMisread

RULES: Mapping[str, type[Rule] | type[SequenceRule]] = {
    "B101": OverCapRaise,
    "B102": WrongBetSize,
    "B103": ActionOutOfTurn,
    "B104": ActionNotInHand,
    "B105": InconsistentCallOrRaise,
    "B106": DrawBeforeStakesEqual,
    "B107": ShortCallAllInOpener,
    "B108": BetBeforeOpen,
    "D301": MisdealNotCalled,
    "D302": FouledHandPlayed,
    "D303": FiveCardDrawDealtWrongly,
    "D304": DrawOutOfOrder,
    "D305": DiscardsAndDrawsDiffer,
    "D306": ExposedCardMishandled,
    "D307": DuplicateOrImpossibleCard,
    "D308": DiscardTakenBack,
    "J501": AnteLimitExceeded,
    "J502": ButtonWrongAfterPassedOut,
    "J503": WrongOpenersRequirement,
    "J504": CarriedChipsLostOrInvented,
    "J505": SeatChangeWithAntesCarried,
    "J506": IneligiblePlayerDealtIn,
    "J507": MissingAnteOrFattener,
    "J508": UnprovenOpenerNotPenalised,
    "O201": FalseOpenersNotCaught,
    "O202": UnprovenOpenerPaid,
    "O203": IllegalOpenerWithdrawal,
    "O204": IneligibleDeclarer,
    "O205": PotKilledAgainstRule,
    "O206": WrongRefundAfterFalseOpener,
    "O207": SplitOpenersNotDeclared,
    "O208": ImpossibleSplitPaid,
    "O209": RefundToWeakCaller,
    "O210": OpenerFoldedUnproven,
    "O211": AbandonedWithoutPenalty,
    "P401": PotAwardedToWrongHand,
    "P402": ChipsNotConserved,
    "P403": SidePotMisdistributed,
    "P404": HandMisread,
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
