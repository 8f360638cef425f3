"""Integrity ground truth: crooked dealers and colluding pairs (``--crooked-dealers``,
``--colluders``), with ``integrity_labels.json``. See :mod:`.config`."""

from openers.generator.cheats.config import CheatConfig, Collusion, DealerMode

__all__ = ["CheatConfig", "Collusion", "DealerMode"]
