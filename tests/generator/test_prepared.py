"""A deal played to prepare a sequence plant is clean play: nothing in it is forced.

Sequence plants (J502, J504, J505) need a passed-out deal before the planted one. The
deals played while they wait are labelled clean, so they must be exactly what plain
play gives: a forced pass-out (every player with openers made to pass) is a pattern no
real room shows, and it raised false collusion alerts (C206) on a clean million-hand room.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import openers.generator.table as table_module
from audit.profiles import load_profile
from openers.generator.config import GenerateConfig
from openers.generator.plants import registry
from openers.generator.state import Forces
from openers.generator.table import TableSim


def test_unlabelled_deals_of_waiting_sequence_plants_are_plain_play(
        monkeypatch: pytest.MonkeyPatch) -> None:
    real = table_module.play_deal
    plain: dict[int, bool] = {}  # id of a played draft -> plain play gives the same hand

    def spy(table: Any, profile: Any, setup: Any, forces: Forces, rng: random.Random,
            cheats: Any = None) -> Any:
        again = random.Random()
        again.setstate(rng.getstate())
        st = real(table, profile, setup, forces, rng, cheats)
        # replayed now: the players' stacks change once the table commits the deal
        unforced = real(table, profile, setup, Forces(), again, cheats)
        plain[id(st.draft)] = unforced.draft.to_record() == st.draft.to_record()
        return st

    monkeypatch.setattr(table_module, "play_deal", spy)
    cfg = GenerateConfig(hands=400, tables=1, seed=3, violations=1.0,
                         codes=("J502", "J504", "J505"), draw_high_share=0.0)
    sim = TableSim(cfg, load_profile(cfg.profile), 0, registry())
    deals = list(sim.deals(cfg.hands))
    clean = [d for d in deals if not d.codes]
    planted = len(deals) - len(clean)
    passed_out = sum(d.draft.carried_out is not None for d in clean)
    assert planted >= 20 and passed_out >= 20  # the plants waited, and took, many times
    forced = [d.draft.header.hand_id for d in clean if not plain[id(d.draft)]]
    assert forced == []
