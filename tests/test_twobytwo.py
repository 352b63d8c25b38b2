"""The pass-rate interval of single attempts: Tango joined with the exact test's dual.

Coverage is computed by exact enumeration: the interval depends only on the counts of fixed
and broken pairs (ties of either kind are alike), so summing the trinomial probability of
every (fixed, broken) count gives the exact coverage of a setting, with no simulation noise.
"""

from __future__ import annotations

import math
from functools import cache

import pytest

from evals.compare.intervals import effect_interval
from evals.compare.power import mcnemar_one_sided
from evals.compare.twobytwo import (
    exact_conditional_interval,
    newcombe_paired_interval,
    paired_binary_interval,
    tango_interval,
)

N = 40


@cache
def _intervals(n: int, alpha: float) -> dict[tuple[int, int], tuple[float, float]]:
    """The gate's interval for every (fixed, broken) count of n pairs."""
    out = {}
    for x in range(n + 1):
        for y in range(n + 1 - x):
            ci = paired_binary_interval(n - x - y, y, x, 0, alpha)
            out[(x, y)] = (ci.low, ci.high)
    return out


def _prob(n: int, x: int, y: int, p01: float, p10: float) -> float:
    """Trinomial probability of x fixed and y broken pairs among n."""
    rest = n - x - y
    p_tie = 1.0 - p01 - p10
    if (x and p01 == 0) or (y and p10 == 0) or (rest and p_tie == 0):
        return 0.0
    log = math.lgamma(n + 1) - math.lgamma(x + 1) - math.lgamma(y + 1) - math.lgamma(rest + 1)
    log += x * math.log(p01) if x else 0.0
    log += y * math.log(p10) if y else 0.0
    log += rest * math.log(p_tie) if rest else 0.0
    return math.exp(log)


GRID = [(p01, p10) for p10 in (0.0, 0.02, 0.05, 0.1, 0.2) for p01 in (0.0, 0.01, 0.05, 0.1)]


@pytest.mark.parametrize("p01,p10", [g for g in GRID if sum(g) > 0])
def test_coverage_by_exact_enumeration_is_at_least_the_level(p01: float, p10: float) -> None:
    # Many ties with every flip one way is where Newcombe's 95% interval fell to 92%.
    truth = p01 - p10
    cover = sum(
        _prob(N, x, y, p01, p10)
        for (x, y), (lo, hi) in _intervals(N, 0.05).items()
        if lo - 1e-12 <= truth <= hi + 1e-12
    )
    assert cover >= 0.95, (p01, p10, cover)


@pytest.mark.parametrize("p01", [0.0, 0.01, 0.05, 0.1])
def test_noninferiority_passes_at_most_half_alpha_when_b_is_exactly_the_margin_worse(
    p01: float,
) -> None:
    # The lower end above -margin certifies "at most margin worse" at one-sided alpha / 2.
    margin = 0.05
    passed = sum(
        _prob(N, x, y, p01, p01 + margin)
        for (x, y), (lo, _) in _intervals(N, 0.05).items()
        if lo > -margin
    )
    assert passed <= 0.025, (p01, passed)


@pytest.mark.parametrize("split", [(50, 0), (25, 25), (30, 20), (49, 1), (1, 49)])
def test_fifty_tied_pairs_are_at_least_as_wide_as_tango(split: tuple[int, int]) -> None:
    ci = paired_binary_interval(split[0], 0, 0, split[1], 0.05)
    assert ci.low <= -0.0713 and ci.high >= 0.0713  # Tango: +-7.1 points
    assert newcombe_paired_interval(30, 0, 0, 20).high < 0.0713  # what the gate printed before


def test_tango_interval_of_ties_does_not_depend_on_how_they_split() -> None:
    assert tango_interval(50, 0, 0, 0).high == pytest.approx(tango_interval(10, 0, 0, 40).high)


@pytest.mark.parametrize("alpha", [0.05, 0.01])
def test_the_interval_reaches_zero_whenever_the_exact_test_does_not_reject(alpha: float) -> None:
    # n = 5 at alpha 0.01 printed an interval excluding 0 beside an exact p of 1/32.
    for n in range(1, 16):
        for x in range(n + 1):
            for y in range(n + 1 - x):
                ci = paired_binary_interval(n - x - y, y, x, 0, alpha)
                p = mcnemar_one_sided(x, y).p_value
                if p > alpha / 2:
                    assert ci.high >= 0.0, (n, x, y)
                if ci.high < 0.0:
                    assert p <= alpha / 2, (n, x, y)


def test_exact_conditional_interval_is_the_dual_of_the_exact_test() -> None:
    # 5 of 5 broke: one-sided p = 1/32, which rejects at 0.05 (the 90% interval's upper
    # tail) but not at 0.025 (the 95% interval's).
    lo, hi = exact_conditional_interval(5, 0, 5, 0.10)
    assert hi < 0 and lo == pytest.approx(-1.0)
    assert exact_conditional_interval(5, 0, 5, 0.05)[1] > 0
    assert exact_conditional_interval(0, 0, 50, 0.05) == (0.0, 0.0)


def test_effect_interval_of_five_broken_at_alpha_001_includes_zero() -> None:
    ci = effect_interval([1.0] * 5, [0.0] * 5, alpha=0.01)
    assert ci.high >= 0.0 and ci.p_value == pytest.approx(1 / 32)


scipy_stats = pytest.importorskip("scipy.stats")


@pytest.mark.parametrize(
    "broken,fixed", [(0, 20), (20, 0), (3, 9), (9, 3), (0, 1), (7, 7), (1, 30)]
)
@pytest.mark.parametrize("alpha", [0.05, 0.01])
def test_both_ends_of_the_exact_interval_are_clopper_pearson_as_scipy_computes_it(
    broken: int, fixed: int, alpha: float
) -> None:
    n = 200
    m = broken + fixed
    cp = scipy_stats.binomtest(broken, m).proportion_ci(1 - alpha, method="exact")
    lo, hi = exact_conditional_interval(broken, fixed, n, alpha)
    # B - A = (m / n)(1 - 2q): the high end of q gives the low end of the change.
    assert lo == pytest.approx(m / n * (1 - 2 * cp.high), abs=1e-9)
    assert hi == pytest.approx(m / n * (1 - 2 * cp.low), abs=1e-9)


def test_a_b_that_broke_nothing_and_fixed_twenty_of_200_has_a_lower_end_above_zero() -> None:
    ci = paired_binary_interval(150, 0, 20, 30, 0.05)
    # Clopper-Pearson for 0 of 20 at 95%: q <= 0.1684, so the exact end is 0.1 * (1 - 2 q)
    # = +6.6 points; Tango's is +6.57, and the joined interval takes the lower of the two.
    exact_low = exact_conditional_interval(0, 20, 200, 0.05)[0]
    assert exact_low == pytest.approx(0.1 * (1 - 2 * 0.168433), abs=1e-5)
    assert ci.low == pytest.approx(min(exact_low, tango_interval(150, 0, 20, 30).low))
    assert 0.065 < ci.low < 0.067 and ci.high == pytest.approx(0.149, abs=1e-3)
    mirrored = paired_binary_interval(150, 20, 0, 30, 0.05)
    assert mirrored.high == pytest.approx(-ci.low, abs=1e-9)
    assert mirrored.low == pytest.approx(-ci.high, abs=1e-9)
