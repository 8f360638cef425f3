"""J503 wrong-openers-requirement."""

from __future__ import annotations

from collections.abc import Iterator

from audit.rule import Result, SequenceContext, SequenceRule
from schemas.findings import Severity
from schemas.records import Game


class WrongOpenersRequirement(SequenceRule):
    """Flags a deal whose ``Openers`` is not what the house's progression gives its ``Jackpot``.

    What it does:
        For a Jacks-or-Better deal with an ``Openers`` header, compares it with the
        house profile's progression for the deal's ``Jackpot`` number: jacks on every
        deal for robert, house23 and foster (whose "progressive jacks" J, Q, K, A, K,
        Q, ... is an option a house file turns on), jacks, queens, then kings for
        every later deal for laws. One finding per deal. A deal without the header
        applied the profile by definition and is not judged; Draw High opens on
        anything. Only the deal itself is read, so a table's first deal is judged
        too.

    Why it matters:
        The openers decide who may open; a table that asks for queens on a jacks
        deal (or jacks on a kings deal) lets the wrong player open, or keeps the pot
        closed and feeds it another round of antes.

    Example:
        A laws house, ``Jackpot: 2`` with ``Openers: JJ``: the second jack-pot needs
        queens (L-31); J503.

    Source:
        L-31: "If a Jack-pot be not opened by any player, each player shall again pay
        into the pool a sum equal to the ante, and the next game shall be a Jack-pot, and
        shall not be opened by any player unless he have two queens, or better, in his
        original hand."
        L-32: "A third successive Jack-pot shall not be opened with less than two kings, and
        for successive Jack-pots the series of two knaves, two queens, two kings shall be
        maintained as the minimum hands with which the games may severally be opened."
        Foster: "In some localities it is the custom to make the pair necessary to open a
        jack pot progress in value; Jacks or better to open the first round; Queens the
        next; then Kings; then Aces; and then back to Kings, Queens, and Jacks again."
    """

    code = "J503"
    name = "wrong-openers-requirement"
    severity = Severity.CRITICAL
    source = "L-31, L-32, Foster"
    summary = "The deal's Openers is not what the house progression gives for its Jackpot."

    def check(self, ctx: SequenceContext) -> Iterator[Result]:
        deal = ctx.current
        if deal.game is not Game.JACKS_OR_BETTER or deal.openers is None:
            return
        expected = ctx.profile.openers_for(deal.jackpot, deal.game)
        if deal.openers is expected:
            return
        yield ctx.finding(
            f"deal {deal.jackpot} of the pot was played with Openers {deal.openers.value}; "
            f"the house ({ctx.profile.name}) requires {expected.value}",
            line=deal.first_line or None,
            evidence={"jackpot": deal.jackpot, "openers": deal.openers.value,
                      "expected": expected.value, "profile": ctx.profile.name},
        )
