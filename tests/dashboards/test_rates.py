"""The dealers' and tables' test: calibrated on clean data, powerful on a planted dealer."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import binomtest

from dashboards.rates import FDR, MIN_HANDS, compare_with_room, wilson_interval


def _room(rng: np.random.Generator, hands: np.ndarray, rates: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame({
        "unit_id": [f"D-{i:03d}" for i in range(len(hands))],
        "hands": hands,
        "flagged": rng.binomial(hands, rates),
    })  # fmt: skip


def test_clean_rooms_are_rarely_flagged() -> None:
    """Calibration: 400 clean rooms of 20 dealers at one rate; BH keeps the share of rooms
    with any false flag near the FDR (under it for independent tests)."""
    rng = np.random.default_rng(11)
    rooms_with_flags = 0
    for _ in range(400):
        hands = rng.integers(200, 3000, size=20)
        flagged = compare_with_room(_room(rng, hands, np.full(20, 0.03)))["above"]
        rooms_with_flags += bool(flagged.any())
    assert rooms_with_flags / 400 <= FDR * 1.6  # 5% +/- sampling noise of 400 rooms


def test_a_dealer_at_twice_the_rate_is_found() -> None:
    rng = np.random.default_rng(5)
    found = 0
    for _ in range(50):
        rates = np.full(20, 0.03)
        rates[7] = 0.06
        result = compare_with_room(_room(rng, np.full(20, 2000), rates))
        found += bool(result.loc[7, "above"])
        assert result["above"].sum() <= 2
    assert found >= 45  # power over 90% at 2,000 hands


def test_small_units_are_not_tested_and_numbers_match_scipy() -> None:
    frame = pd.DataFrame({"unit_id": ["a", "b", "c"], "hands": [MIN_HANDS - 1, 1000, 1000],
                          "flagged": [50, 30, 10]})  # fmt: skip
    out = compare_with_room(frame).set_index("unit_id")
    assert not out.loc["a", "tested"] and not out.loc["a", "above"]
    rest = (50 + 10) / (MIN_HANDS - 1 + 1000)
    assert out.loc["b", "p_value"] == binomtest(30, 1000, rest, alternative="greater").pvalue
    assert out.loc["b", "room_per_1000"] == round(rest * 1000, 2)
    low, high = wilson_interval(np.array([0, 5]), np.array([50, 50]))
    assert low[0] == 0 and 0 < high[0] < 0.08
    assert low[1] < 0.1 < high[1]
