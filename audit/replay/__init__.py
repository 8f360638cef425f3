"""The replay state of one hand: see :class:`Replay`, :class:`Step`, :class:`SeatState`."""

from __future__ import annotations

from .cards import known, rebuild_dealt
from .pots import build_pots
from .replay import Replay
from .state import Known, Pot, SeatState, SeatStatus, Step, Street, UnmatchedStake

__all__ = [
    "Known",
    "Pot",
    "Replay",
    "SeatState",
    "SeatStatus",
    "Step",
    "Street",
    "UnmatchedStake",
    "build_pots",
    "known",
    "rebuild_dealt",
]
