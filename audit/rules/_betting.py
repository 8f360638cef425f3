"""Small helpers shared by the betting (B) rules."""

from __future__ import annotations

from collections.abc import Iterator

from audit.replay import Replay, Step
from schemas.records import Verb

#: The player verbs that put chips in during a betting round.
WAGERS = frozenset({Verb.OPENS, Verb.BETS, Verb.CALLS, Verb.RAISES})
TURN_VERBS = frozenset({Verb.CHECKS, Verb.OPENS, Verb.BETS, Verb.CALLS, Verb.RAISES, Verb.FOLDS})


def betting_steps(replay: Replay, verbs: frozenset[Verb] = TURN_VERBS) -> Iterator[Step]:
    """Steps of player lines with one of ``verbs`` inside a betting round."""
    for step in replay.betting:
        if step.action.verb in verbs:
            yield step
