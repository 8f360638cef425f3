"""A draft's text is what the writer gives for its frozen record, byte for byte.

The generator writes ``Draft.text()`` (no records built); ``write_hand(to_record())``
is the canonical writer. Planted hands (edited rows), every profile and hidden
(``??``) cards are covered.
"""

from __future__ import annotations

import pytest

from audit.profiles import load_profile
from ingest.writer import write_hand
from openers.generator.config import GenerateConfig
from openers.generator.output import hide_unrecorded
from openers.generator.plants import registry
from openers.generator.table import TableSim


@pytest.mark.parametrize("profile", ["robert", "house23", "foster", "laws"])
def test_draft_text_is_the_written_record(profile: str) -> None:
    cfg = GenerateConfig(hands=300, tables=1, seed=12, profile=profile, violations=0.4,
                         joker_share=0.5)
    sim = TableSim(cfg, load_profile(profile), 0, registry())
    planted = 0
    for i, deal in enumerate(sim.deals(cfg.hands)):
        if i % 3 == 0 and not deal.codes:
            hide_unrecorded(deal.draft)
        planted += bool(deal.codes)
        assert deal.draft.text() == write_hand(deal.draft.to_record())
    assert planted >= 15
