"""Calibration floors on exact bounds: a floor met by luck at most alpha of the time."""

from __future__ import annotations

import math

import pytest

from evals.calibrate.floors import ALPHA, FloorCheck, rate_floor
from evals.maths.distributions import binom_sf as binom_tail
from evals.maths.distributions import clopper_pearson


@pytest.mark.parametrize("num,n", [(0, 20), (19, 20), (20, 20), (415, 427), (7, 50), (1, 1)])
def test_bounds_are_clopper_pearson_as_scipy_computes_them(num: int, n: int) -> None:
    stats = pytest.importorskip("scipy.stats")
    want = stats.binomtest(num, n).proportion_ci(1 - 2 * ALPHA, method="exact")
    low, high = clopper_pearson(num, n, ALPHA)
    assert low == pytest.approx(want.low, abs=1e-9)
    assert high == pytest.approx(want.high, abs=1e-9)


def _pass_chance(true: float, n: int, floor: float) -> float:
    """P(the floor check says PASS) for a true share, by exact enumeration of num."""
    return math.fsum(
        math.comb(n, k) * true**k * (1 - true) ** (n - k)
        for k in range(n + 1)
        if rate_floor("x", k, n, floor).verdict == "PASS"
    )


@pytest.mark.parametrize("n", [20, 50, 200])
def test_a_true_sensitivity_of_90_percent_passes_a_95_floor_at_most_alpha(n: int) -> None:
    # On the point estimate it passed 39% of the time with 20 wrong answers, 11% with 50.
    point = math.fsum(
        math.comb(n, k) * 0.9**k * 0.1 ** (n - k) for k in range(n + 1) if k / n >= 0.95
    )
    assert round(point, 2) == {20: 0.39, 50: 0.11, 200: 0.01}[n]
    assert _pass_chance(0.90, n, 0.95) <= ALPHA
    assert _pass_chance(0.95, n, 0.95) <= ALPHA  # exactly at the floor: at most alpha too


def test_a_check_set_well_above_the_floor_passes_with_enough_answers() -> None:
    assert _pass_chance(0.99, 400, 0.95) >= 0.99
    assert _pass_chance(0.99, 20, 0.95) == 0.0  # 20 of 20 gives a lower bound of 86%


def test_three_way_verdicts() -> None:
    assert rate_floor("s", 415, 427, 0.95).verdict == "PASS"
    assert rate_floor("s", 19, 20, 0.95).verdict == "INCONCLUSIVE"
    assert rate_floor("s", 150, 200, 0.95).verdict == "FAIL"
    assert rate_floor("s", 0, 0, 0.95).verdict == "INCONCLUSIVE"
    f = FloorCheck("s", 0.9, 0.8, 0.96, 0.95, 20)
    assert "more labelled answers would tell" in f.sentence()


def test_binomial_tail_sums_the_coefficients() -> None:
    assert binom_tail(3, 5, 0.5) == pytest.approx((10 + 5 + 1) / 32)
    assert binom_tail(0, 5, 0.3) == 1.0 and binom_tail(6, 5, 0.3) == 0.0
