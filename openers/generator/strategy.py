"""How a simulated player decides: open, call, raise, fold, bet, by hand and style.

Fixed-limit draw strategy in a few lines: strong made hands bet and raise (more
often for aggressive players), medium hands call, one-card draws call cheaply,
loose players call wider. The numbers are judgement, not solved play.
"""

from __future__ import annotations

import random
from enum import Enum

from openers.generator.handinfo import PAIR, STRAIGHT, TRIPS, TWO_PAIR, Shape
from openers.generator.players import Style


class Choice(Enum):
    """A betting decision."""

    CHECK = "check"
    FOLD = "fold"
    CALL = "call"
    BET = "bet"
    RAISE = "raise"


def _pair_value(shape: Shape) -> float:
    """0..1: how good a hand this is for the draw (jacks ~0.5, aces ~0.7, two pair ~0.85)."""
    if shape.level >= STRAIGHT:
        return 1.0
    if shape.level == TRIPS:
        return 0.95
    if shape.level == TWO_PAIR:
        return 0.8 + shape.top_rank / 140
    if shape.level == PAIR:
        return 0.2 + (shape.top_rank - 2) * 0.04
    return 0.35 if shape.drawing else 0.05


def open_size(rng: random.Random, style: Style, shape: Shape) -> int:
    """Units to open with: one, or two (a bet and a raise) with a strong hand."""
    if shape.level >= TRIPS and rng.random() < style.aggression * 0.5:
        return 2
    return 1


def wants_open(rng: random.Random, style: Style, shape: Shape) -> bool:
    """Open with openers? Tight-passive players sometimes pass strong hands to sandbag."""
    slowplay = 0.15 * (1 - style.aggression) if shape.level >= TRIPS else 0.05
    return rng.random() >= slowplay


def before_draw(rng: random.Random, style: Style, shape: Shape, raises: int,
                can_raise: bool) -> Choice:
    """Facing a bet before the draw (``raises``: bets and raises so far this round)."""
    value = _pair_value(shape)
    pressure = 0.12 * (raises - 1)
    if can_raise and value >= 0.8 and rng.random() < style.aggression * (0.9 - pressure):
        return Choice.RAISE
    if value >= 0.6 - style.looseness * 0.2 + pressure:
        return Choice.CALL
    if shape.drawing and rng.random() < 0.4 + style.looseness - pressure * 2:
        return Choice.CALL
    if rng.random() < style.looseness * (value + 0.1) - pressure:
        return Choice.CALL
    return Choice.FOLD


def after_draw_open(rng: random.Random, style: Style, strength_level: int, top: int) -> Choice:
    """First to bet after the draw: bet or check (``strength_level``: evaluator category)."""
    if strength_level >= TWO_PAIR and rng.random() < 0.45 + style.aggression * 0.5:
        return Choice.BET
    if strength_level == PAIR and top >= 11 and rng.random() < style.aggression * 0.5:
        return Choice.BET
    return Choice.CHECK


def after_draw_facing(rng: random.Random, style: Style, strength_level: int, top: int,
                      raises: int, can_raise: bool) -> Choice:
    """Facing a bet after the draw."""
    pressure = 0.15 * (raises - 1)
    if can_raise and strength_level >= STRAIGHT and rng.random() < style.aggression - pressure:
        return Choice.RAISE
    if can_raise and strength_level == TRIPS and rng.random() < style.aggression * 0.4 - pressure:
        return Choice.RAISE
    if strength_level >= TWO_PAIR:
        return Choice.CALL
    if strength_level == PAIR and rng.random() < style.looseness + (top - 8) * 0.06 - pressure:
        return Choice.CALL
    if rng.random() < style.looseness * 0.1:
        return Choice.CALL
    return Choice.FOLD
