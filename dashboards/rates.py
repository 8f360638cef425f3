"""Is a dealer (or a table) significantly above the room? Rates, intervals and one test.

The quantity is the share of a unit's hands with at least one finding: each hand
dealt is a trial, a hand with a finding a success, so the count is binomial when
hands are independent (stated assumption: the audit judges each hand on its own;
deal-sequence findings tie two neighbouring deals, a small dependence ignored).

- **Rate**: findings-hands per 1,000 hands, with the **Wilson score 95% interval**
  (good coverage at small counts and near zero, unlike the normal interval).
- **Test**: one-sided **exact binomial test** of the unit's count against the rate
  of the rest of the room (every other unit's hands pooled), H1: the unit's rate is
  higher. A unit is not compared with itself, so one bad dealer does not hide by
  raising the room's rate.
- **Many units at once**: the p-values are adjusted by **Benjamini-Hochberg** (false
  discovery rate 5%); a unit is flagged when its adjusted q-value is under 0.05.
- **Minimum sample**: units with fewer than :data:`MIN_HANDS` hands are not tested
  (their interval is shown; the test would have no power).
- **Effect size**: the rate ratio against the rest of the room.

Calibration on clean generated data is a test (``tests/dashboards/test_rates.py``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import binomtest, false_discovery_control

#: Units with fewer hands are shown but not tested.
MIN_HANDS = 100
#: False discovery rate of the flags.
FDR = 0.05
TEST_NAME = (
    "one-sided exact binomial test against the rest of the room, "
    "Benjamini-Hochberg adjusted (FDR 5%)"
)


def wilson_interval(successes: np.ndarray, trials: np.ndarray, z: float = 1.959964) -> tuple[
    np.ndarray, np.ndarray
]:  # fmt: skip
    """The Wilson score interval of ``successes / trials`` (arrays), as proportions."""
    n = np.maximum(trials.astype(float), 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return np.clip(centre - half, 0, 1), np.clip(centre + half, 0, 1)


def compare_with_room(units: pd.DataFrame) -> pd.DataFrame:
    """Given ``unit_id``, ``hands`` and ``flagged`` (hands with a finding) per unit, add the
    rate and interval per 1,000 hands, the rest of the room's rate, the rate ratio, the
    p-value, the BH q-value and ``above`` (significantly above the room)."""
    out = units.copy()
    hands = out["hands"].to_numpy(dtype=np.int64)
    flagged = out["flagged"].to_numpy(dtype=np.int64)
    low, high = wilson_interval(flagged, hands)
    rest_hands = hands.sum() - hands
    rest_flagged = flagged.sum() - flagged
    rest_rate = np.where(rest_hands > 0, rest_flagged / np.maximum(rest_hands, 1), np.nan)
    rate = flagged / np.maximum(hands, 1)
    out["per_1000"] = np.round(rate * 1000, 2)
    out["ci_low"] = np.round(low * 1000, 2)
    out["ci_high"] = np.round(high * 1000, 2)
    out["room_per_1000"] = np.round(rest_rate * 1000, 2)
    out["rate_ratio"] = np.round(np.where(rest_rate > 0, rate / np.where(rest_rate > 0,
                                                                          rest_rate, 1), np.nan),
                                 2)  # fmt: skip
    tested = (hands >= MIN_HANDS) & (rest_hands >= MIN_HANDS) & (rest_rate > 0) & (rest_rate < 1)
    p_values = np.full(len(out), np.nan)
    for i in np.flatnonzero(tested):
        p_values[i] = binomtest(int(flagged[i]), int(hands[i]), float(rest_rate[i]),
                                alternative="greater").pvalue  # fmt: skip
    q_values = np.full(len(out), np.nan)
    if tested.any():
        q_values[tested] = false_discovery_control(p_values[tested], method="bh")
    out["p_value"] = p_values
    out["q_value"] = q_values
    out["above"] = np.where(tested, q_values < FDR, False)
    out["tested"] = tested
    return out
