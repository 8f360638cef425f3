"""Reproducible randomness for the tests: one stream per hand, seat and purpose.

Two things in the analysis use random numbers: the tie-breaking draw V of a
randomized probability-integral transform, and the Monte Carlo sample of draws a
large stub allows. Both must give the same figures on every run and whatever the
batching, so that an alert shown in a hearing can be recomputed by anyone: every
number is a function of the hand id, the seat and a purpose tag, through
SplitMix64 (Steele, Lea & Flood 2014), a 64-bit generator whose outputs pass
BigCrush. The hand's key is the first 8 bytes of BLAKE2b of its id.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import numpy as np
import numpy.typing as npt
from numba import njit, uint64

#: Purpose tags mixed into a stream's seed.
PURPOSE_DEALT = 1
PURPOSE_DRAW = 2

_GOLDEN = 0x9E3779B97F4A7C15
_MIX1 = 0xBF58476D1CE4E5B9
_MIX2 = 0x94D049BB133111EB
_SEAT_SALT = 0xD6E8FEB86659FD93


def hand_key(hand_id: str) -> int:
    """The 64-bit key of a hand id (BLAKE2b, 8 bytes, little-endian)."""
    return int.from_bytes(hashlib.blake2b(hand_id.encode(), digest_size=8).digest(), "little")


def hand_keys(hand_ids: Iterable[str]) -> npt.NDArray[np.uint64]:
    """:func:`hand_key` of each id, as an array."""
    return np.array([hand_key(h) for h in hand_ids], dtype=np.uint64)


@njit(cache=True, nogil=True)
def mix64(z: np.uint64) -> np.uint64:
    """SplitMix64's output function: a bijection that scrambles every bit of ``z``."""
    z = uint64(z)  # a state handed back from Python may come in as a signed int
    z = (z ^ (z >> uint64(30))) * uint64(_MIX1)
    z = (z ^ (z >> uint64(27))) * uint64(_MIX2)
    return z ^ (z >> uint64(31))


@njit(cache=True, nogil=True)
def stream_seed(key: np.uint64, seat: int, purpose: int) -> np.uint64:
    """The first state of the stream for one hand, seat and purpose."""
    return mix64(key ^ mix64(uint64(seat) * uint64(_SEAT_SALT) + uint64(purpose)))


@njit(cache=True, nogil=True)
def next_state(state: np.uint64) -> np.uint64:
    """Advance a SplitMix64 state."""
    return uint64(state) + uint64(_GOLDEN)


@njit(cache=True, nogil=True)
def to_unit(state: np.uint64) -> float:
    """A uniform double in [0, 1) from the output of a state (53 random bits)."""
    return float(mix64(state) >> uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, nogil=True)
def below(state: np.uint64, n: int) -> int:
    """A uniform integer in [0, n) from the output of a state (Lemire's multiply-shift).

    The bias is at most n / 2**32, below 1e-8 for the stub sizes used here.
    """
    high = mix64(state) >> uint64(32)
    return int((high * uint64(n)) >> uint64(32))


@njit(cache=True, nogil=True)
def uniform_of(key: np.uint64, seat: int, purpose: int) -> float:
    """One uniform in [0, 1) for a hand, seat and purpose (the V of a randomized PIT)."""
    return to_unit(stream_seed(key, seat, purpose))


@njit(cache=True, nogil=True)
def uniforms_of(keys: npt.NDArray[np.uint64], seats: npt.NDArray[np.int64],
                purpose: int) -> npt.NDArray[np.float64]:
    """:func:`uniform_of` for each (key, seat) pair."""
    out = np.empty(len(keys), dtype=np.float64)
    for i in range(len(keys)):
        out[i] = uniform_of(keys[i], int(seats[i]), purpose)
    return out
