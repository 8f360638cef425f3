"""Where a draw's cards place the final hand among every draw the stub allowed.

At a player's turn to draw, a fair dealer's next cards are a uniformly random
subset of the cards nobody has seen leave the deck (the stub: the deck less every
dealt card, burned or exposed card and earlier draw of the hand). So the chance of
each final hand is known exactly, and the *randomized probability-integral
transform* of the hand the player got,

    U = (W + V * E) / T

(``T`` possible draws, ``W`` of them worse than the one received, ``E`` as good,
the received one included, ``V`` uniform on (0, 1) independent of the cards), is
exactly uniform on (0, 1) under fair dealing, whatever the player kept (Czado,
Gneiting & Held 2009 for discrete forecasts). Given everything before it, each
draw's ``U`` is again uniform, so the ``U`` of all the draws of a dealer, a player
or a pair of them are independent uniforms: their mean and their upper tail have
exact laws.

When the stub allows at most ``samples`` draws they are all enumerated (exact).
Otherwise ``samples`` draws are taken at random from the stub and the received
draw is ranked among them and itself (``T = samples + 1``): under fair dealing the
received draw is exchangeable with the sampled ones, so ``U`` is still exactly
uniform (a Monte Carlo rank, Barnard 1963); sampling only blurs ``U`` a little
around its exact value, which costs power, not validity (the measured error is in
``benchmarks/integrity_draw_error.py``).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from audit.facts.evaluate import strength5
from audit.integrity.prng import PURPOSE_DRAW, below, next_state, stream_seed, to_unit

#: Draws enumerated exactly up to this many possibilities; beyond it, this many are sampled.
SAMPLES = 256


@njit(cache=True, nogil=True)
def _choose(n: int, k: int) -> int:
    if k < 0 or k > n:
        return 0
    out = 1
    for i in range(k):
        out = out * (n - i) // (i + 1)
    return out


@njit(cache=True, nogil=True)
def _five(kept: npt.NDArray[np.int64], n_kept: int, extra: npt.NDArray[np.int64],
          c: npt.NDArray[np.int64]) -> int:
    for i in range(n_kept):
        c[i] = kept[i]
    for i in range(5 - n_kept):
        c[n_kept + i] = extra[i]
    return strength5(c[0], c[1], c[2], c[3], c[4])


@njit(cache=True, nogil=True)
def draw_pit(kept: npt.NDArray[np.int64], n_kept: int, drawn: npt.NDArray[np.int64],
             stub: npt.NDArray[np.int64], n_stub: int, key: np.uint64, seat: int,
             samples: int) -> tuple[float, bool]:
    """The randomized PIT of one draw, and whether it was enumerated exactly.

    ``kept`` (``n_kept`` cards) plus ``drawn`` (``5 - n_kept``) is the final hand;
    ``stub`` holds the ``n_stub`` cards the draw could have come from (the drawn ones
    among them). Returns ``(nan, False)`` when the hand cannot be read.
    """
    k = 5 - n_kept
    buf = np.empty(5, dtype=np.int64)
    actual = _five(kept, n_kept, drawn, buf)
    if actual < 0 or k < 1 or n_stub < k:
        return np.nan, False
    state = stream_seed(key, seat, PURPOSE_DRAW)
    v = to_unit(state)
    total = _choose(n_stub, k)
    worse = 0
    equal = 0
    pick = np.empty(5, dtype=np.int64)
    if total <= samples:
        index = np.arange(k)
        while True:
            for i in range(k):
                pick[i] = stub[index[i]]
            s = _five(kept, n_kept, pick, buf)
            if s < actual:
                worse += 1
            elif s == actual:
                equal += 1
            # next k-subset in lexicographic order
            i = k - 1
            while i >= 0 and index[i] == n_stub - k + i:
                i -= 1
            if i < 0:
                break
            index[i] += 1
            for j in range(i + 1, k):
                index[j] = index[j - 1] + 1
        return (worse + v * equal) / total, True
    pool = stub[:n_stub].copy()
    for _ in range(samples):
        for i in range(k):  # a partial Fisher-Yates shuffle: k distinct cards
            state = next_state(state)
            j = i + below(state, n_stub - i)
            pool[i], pool[j] = pool[j], pool[i]
            pick[i] = pool[i]
        s = _five(kept, n_kept, pick, buf)
        if s < actual:
            worse += 1
        elif s == actual:
            equal += 1
    return (worse + v * (equal + 1)) / (samples + 1), False
