"""``integrity_labels.json``: who cheated, how, and from when (the ground truth of a run)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the run's config holds the cheats' config, not the other way round
    from openers.generator.config import GenerateConfig

INTEGRITY_LABELS_FILE = "integrity_labels.json"


def write_labels(path: Path, cfg: GenerateConfig, cheats: Sequence[dict[str, Any]]) -> None:
    """Write the run's integrity ground truth.

    ``cheats`` holds one entry per planted cheat: ``kind`` (``crooked-dealer`` or
    ``colluding-pair``), the table, the people (``dealer_id`` and ``player_id``, or
    ``players``), what they do (``mode`` / ``behaviours``, ``share``), ``from`` (the
    first deal it could act in, local time), ``acted`` (counts of what was done) and
    ``hands`` (every hand it acted in). Everyone else in the room is honest.
    """
    data = {
        "seed": cfg.seed,
        "hands": cfg.hands,
        "tables": cfg.tables,
        "cheats": list(cheats),
        "honest": "every other dealer and player",
    }
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
