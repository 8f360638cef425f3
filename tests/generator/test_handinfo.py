"""The simulated player's reading of a hand: what it holds and what it keeps."""

from __future__ import annotations

import pytest

from openers.generator.handinfo import (
    FLUSH,
    FULL,
    HIGH,
    PAIR,
    STRAIGHT,
    TRIPS,
    TWO_PAIR,
    read_shape,
)


@pytest.mark.parametrize(("hand", "level", "keep", "drawing"), [
    ("Jh Js 4c 8d 2s", PAIR, "Jh Js", False),
    ("Ac Jk 9s 5d 3c", PAIR, "Ac Jk", False),  # ace-joker is a pair of aces
    ("Kd Kc 7s 7h 2d", TWO_PAIR, "Kd Kc 7s 7h", False),
    ("9h 9d 9c 4s 2h", TRIPS, "9h 9d 9c", False),
    ("Qh 9h 5h 2h Kc", HIGH, "Qh 9h 5h 2h", True),  # four to a flush
    ("8c 9d Th Js 2c", HIGH, "8c 9d Th Js", True),  # open-ended
    ("Ah Kh 7h 4h 2h", FLUSH, "Ah Kh 7h 4h 2h", False),
    ("Jk 2c 3d 4h 5s", STRAIGHT, "Jk 2c 3d 4h 5s", False),
    ("Qc Qd Qh 7s 7c", FULL, "Qc Qd Qh 7s 7c", False),
    ("Kc 9d 6h 4s 2c", HIGH, "Kc", False),
])
def test_shape(hand: str, level: int, keep: str, drawing: bool) -> None:
    shape = read_shape(tuple(hand.split()))
    assert shape.level == level
    assert set(shape.keep) == set(keep.split())
    assert shape.drawing is drawing


@pytest.mark.parametrize(("hand", "level", "top", "keep"), [
    ("7s Kd 2d 7h Kc", TWO_PAIR, 13, "7s Kd 7h Kc"),  # the higher pair on top, hand order kept
    ("Jk 5c 5d Ah 9s", TWO_PAIR, 14, "5c 5d Ah Jk"),  # the joker pairs the ace, kept last
    ("2c 3d Jk 5h 4s", STRAIGHT, 0, "2c 3d Jk 5h 4s"),  # the joker fills the wheel
    ("Qh 9h 5h 2h Kc", HIGH, 0, "Qh 9h 5h 2h"),
    ("8c Js 9d Th 2c", HIGH, 0, "8c 9d Th Js"),  # a straight draw is kept in rank order
    ("Td 3c Jk 2h 5s", HIGH, 0, "Td Jk"),
])
def test_shape_keeps_cards_in_order(hand: str, level: int, top: int, keep: str) -> None:
    # The draw discards in the kept cards' order, so the order is part of the output.
    shape = read_shape(tuple(hand.split()))
    assert (shape.level, shape.top_rank, shape.keep) == (level, top, tuple(keep.split()))
