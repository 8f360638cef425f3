"""A house profile: the knobs of rules.md's "House profiles" table, and the built-ins.

A :class:`Profile` is frozen and typed. The four built-ins follow the rulebooks
(``robert`` = seed 004, ``house23`` = seed 000, ``foster`` = seed 001, ``laws`` =
seed 002). The rules read this module; reading a house file is the work of
:mod:`audit.profiles`, which checks the file's rule codes against the registry and so
sits above the rules.

Amounts are integer cents. One "counter" of the old books (Foster's white
counter) is taken as one unit of the table's currency, 100 cents; a house file
overrides the amounts where its counters are worth something else.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from schemas.findings import Severity
from schemas.records import Game, Openers


class ProfileError(ValueError):
    """A profile name or house file that cannot be used; the message names the key."""


class PassedOutButton(StrEnum):
    """Where the deal goes after a passed-out deal (J502)."""

    MOVES = "moves"  # the button moves on, everyone antes again (R-JB 1, H-23.1, L-29)
    STAYS = "stays"  # the same dealer deals again: "dealing off the jack" (Foster)


class ProgressionEnd(StrEnum):
    """What the openers progression does past its last entry."""

    REPEAT_LAST = "repeat-last"  # laws 31-32: J, Q, K, K, K, ...
    CYCLE = "cycle"  # Foster's progressive jacks: J, Q, K, A, K, Q, J, Q, ...


class FalseOpenerStyle(StrEnum):
    """How a false opener found before the draw is settled (O203, O205, O206)."""

    #: R-JB 2/4, H-23.2-5: dead hand, opening bet stays, other bets may come back while
    #: the action before the draw is open; the pot plays on a raise, two callers or
    #: completed action, else all other bets return and the pot carries.
    DEAD_HAND_REFUND = "dead-hand-refund"
    #: Foster's second way: the false opener forfeits every chip; the others play on.
    FORFEIT_PLAY_ON = "forfeit-play-on"
    #: Foster's first way: the others may withdraw their money and anyone may open.
    FORFEIT_WITHDRAW = "forfeit-withdraw"
    #: Foster's third way: everyone takes their chips back, the false opener makes the
    #: pot good, and the cards are dealt afresh.
    FORFEIT_REDEAL = "forfeit-redeal"


class DiscardsSetAside(StrEnum):
    """When the opener's discards are kept apart to prove openers later (O207, O208)."""

    WHEN_SPLITTING = "when-splitting"  # R-JB 9, H-23.9
    ALWAYS = "always"  # Foster: "the opener is obliged always to place his discard under the chips"
    NEVER = "never"  # the laws say nothing


@dataclass(frozen=True, slots=True)
class Profile:
    """Every house knob of rules.md, plus which rules run and at what severity."""

    name: str
    #: Minimum openers by Jackpot number (1-based), see ``progression_end``.
    openers_progression: tuple[Openers, ...] = (Openers.JJ,)
    progression_end: ProgressionEnd = ProgressionEnd.REPEAT_LAST
    #: Four to a flush or to an open-ended straight also opens (Foster's "bobtail").
    bobtail: bool = False
    #: O211: cents paid into the pot for abandoning a hand before the pot is open; None = none.
    abandon_penalty: int | None = None
    #: B101: raises allowed after the bet in a multihanded round; None = no cap.
    cap_raises: int | None = 4
    #: The after-draw unit as a multiple of the before-draw unit (the Limit header's B/A).
    after_draw_multiple: int = 2
    passed_out_button: PassedOutButton = PassedOutButton.MOVES
    #: Foster's fattening: each seat adds this many cents on a passed-out deal; None = none.
    fattening: int | None = None
    #: J501: deals of one unopened pot that are anted; None = no limit.
    ante_limit: int | None = 3
    false_opener: FalseOpenerStyle = FalseOpenerStyle.DEAD_HAND_REFUND
    #: O204: a seat that passed with openers may declare after a false opener (H-23.2).
    passed_openers_may_declare: bool = False
    #: L-33: an opener who claims the pot without openers pays this many antes into it.
    unproven_opener_penalty_antes: int = 0
    #: L-33: after an unproven opener the next deal is a jack-pot as if unopened.
    unproven_opener_rejackpot: bool = False
    discards_set_aside: DiscardsSetAside = DiscardsSetAside.WHEN_SPLITTING
    #: Integrity alerts: the false discovery rate (Benjamini-Hochberg) across all tests.
    integrity_fdr: float = 0.05
    #: Codes or code prefixes to run (None = every registered rule).
    select: frozenset[str] | None = None
    #: Codes or code prefixes never to run.
    ignore: frozenset[str] = frozenset()
    #: Severity overrides by code, as sorted (code, severity) pairs.
    severity: tuple[tuple[str, Severity], ...] = field(default=())

    def openers_for(self, jackpot: int, game: Game) -> Openers:
        """The minimum openers the house requires on deal ``jackpot`` of an unopened pot."""
        if game is Game.DRAW_HIGH:
            return Openers.ANY
        steps = self.openers_progression
        i = max(jackpot, 1) - 1
        if i < len(steps):
            return steps[i]
        if self.progression_end is ProgressionEnd.CYCLE:
            return steps[i % len(steps)]
        return steps[-1]

    def enabled(self, code: str) -> bool:
        """Whether rule ``code`` runs under this profile (select, then ignore; prefixes work)."""
        if self.select is not None and not any(code.startswith(s) for s in self.select):
            return False
        return not any(code.startswith(s) for s in self.ignore)

    def severity_of(self, code: str, default: Severity) -> Severity:
        """The severity of ``code`` after the house's overrides."""
        for c, sev in self.severity:
            if c == code:
                return sev
        return default

    def with_selection(
        self, select: Iterable[str] | None = None, ignore: Iterable[str] | None = None
    ) -> Profile:
        """A copy with ``select`` replacing and ``ignore`` adding to the current selection."""
        new_select = self.select if select is None else frozenset(select)
        new_ignore = self.ignore | frozenset(ignore or ())
        return dataclasses.replace(self, select=new_select, ignore=new_ignore)


#: The built-in profiles of rules.md.
BUILTIN: Mapping[str, Profile] = {
    "robert": Profile(name="robert"),
    "house23": Profile(name="house23", passed_openers_may_declare=True),
    "foster": Profile(
        name="foster",
        # Progressive jacks is "optional: off by default"; a house file sets
        # openers_progression = ["JJ","QQ","KK","AA","KK","QQ"], progression_end = "cycle".
        abandon_penalty=500,
        cap_raises=None,
        passed_out_button=PassedOutButton.STAYS,
        fattening=100,
        ante_limit=None,
        false_opener=FalseOpenerStyle.FORFEIT_PLAY_ON,
        discards_set_aside=DiscardsSetAside.ALWAYS,
    ),
    "laws": Profile(
        name="laws",
        openers_progression=(Openers.JJ, Openers.QQ, Openers.KK),
        cap_raises=None,
        ante_limit=None,
        unproven_opener_penalty_antes=2,
        unproven_opener_rejackpot=True,
        discards_set_aside=DiscardsSetAside.NEVER,
    ),
}
