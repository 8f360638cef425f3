"""J503 wrong-openers-requirement."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from audit.facts.context import Result
from audit.facts.sequence import Run
from audit.rule import SequenceRule
from ingest.scan.layout import GAME_JACKS_OR_BETTER, OPENERS_ABSENT, OPENERS_CODE
from schemas.findings import Severity
from schemas.records import Game

_OPENERS = {code: openers for openers, code in OPENERS_CODE.items()}


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

    def check(self, ctx: Run) -> Iterator[Result]:
        d = ctx.deals
        profile = ctx.profile
        jackpots = np.unique(d.jackpot)
        codes = {int(j): OPENERS_CODE[profile.openers_for(int(j), Game.JACKS_OR_BETTER)]
                 for j in jackpots.tolist()}
        expected = np.array([codes[int(j)] for j in jackpots.tolist()], dtype=np.int64)
        want = expected[np.searchsorted(jackpots, d.jackpot)] if len(d) else d.openers
        flagged = (ctx.in_sequence & (d.game == GAME_JACKS_OR_BETTER)
                   & (d.openers != OPENERS_ABSENT) & (d.openers != want))
        for row in np.flatnonzero(flagged).tolist():
            deal = ctx.deal(row)
            openers, wanted = _OPENERS[deal.openers], _OPENERS[codes[deal.jackpot]]
            yield ctx.finding(
                row,
                f"deal {deal.jackpot} of the pot was played with Openers {openers.value}; "
                f"the house ({profile.name}) requires {wanted.value}",
                line=deal.first_line or None,
                evidence={"jackpot": deal.jackpot, "openers": openers.value,
                          "expected": wanted.value, "profile": profile.name},
            )
