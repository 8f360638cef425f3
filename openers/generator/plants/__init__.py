"""Violation planters, one module per family of the rule catalogue."""

from __future__ import annotations

from openers.generator.plants.base import Plant, SequenceContext, Stage

__all__ = ["Plant", "SequenceContext", "Stage", "registry"]


def registry() -> dict[str, Plant]:
    """Every plantable code and how to plant it."""
    from openers.generator.plants import betting, deal_draw, openers, pots, sequence

    plants: dict[str, Plant] = {}
    for module in (betting, openers, deal_draw, pots, sequence):
        for plant in module.PLANTS:
            plants[plant.code] = plant
    return plants
