"""Paired statistics for comparing two runs case by case. Pure functions, no I/O."""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from evals.compare.resample import bootstrap_means, resampling_grid

DEFAULT_SEED = 20261129
DEFAULT_RESAMPLES = 10_000
TIE_TOLERANCE = 1e-9


@dataclass(frozen=True)
class McNemar:
    """Exact McNemar test: b = passed in A and failed in B, c = the reverse."""

    b: int
    c: int
    p_value: float | None  # None when there are no discordant pairs

    @property
    def n_discordant(self) -> int:
        return self.b + self.c


@dataclass(frozen=True)
class SignTest:
    """Sign test on paired differences; ties are dropped before testing."""

    n_up: int
    n_down: int
    n_ties: int
    p_value: float | None  # None when every difference is a tie


@dataclass(frozen=True)
class BootstrapCI:
    """Percentile bootstrap interval of a mean, resampling the paired units."""

    mean: float
    low: float
    high: float
    level: float
    resamples: int
    seed: int
    n: int
    grid: float | None = None  # set when the differences were binned to this width to resample


@dataclass(frozen=True)
class ClusteredSE:
    """Standard error of a mean when units in one cluster are not independent."""

    se: float
    n_clusters: int
    naive_se: float  # the usual sd / sqrt(n), for comparison
    n: int


def binomial_two_sided_p(k: int, n: int) -> float:
    """Exact two-sided p-value of k successes in n fair coin flips (doubling the smaller tail)."""
    if n < 0 or not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return 1.0
    # C(n, i) by exact integer recurrence: one small multiply and divide per term, so even
    # n = 10,000 takes milliseconds; only the final ratio is rounded.
    term = tail = 1
    for i in range(min(k, n - k)):
        term = term * (n - i) // (i + 1)
        tail += term
    return min(1.0, 2 * tail / 2**n)


def mcnemar_exact(b: int, c: int) -> McNemar:
    """McNemar's exact test: the discordant pairs are a binomial with p = 1/2 under no change."""
    if b < 0 or c < 0:
        raise ValueError("b and c must be non-negative")
    p = binomial_two_sided_p(b, b + c) if b + c else None
    return McNemar(b, c, p)


def sign_test(diffs: Sequence[float], tol: float = TIE_TOLERANCE) -> SignTest:
    """Exact two-sided sign test on paired differences (B - A); |d| <= tol counts as a tie."""
    up = sum(1 for d in diffs if d > tol)
    down = sum(1 for d in diffs if d < -tol)
    ties = len(diffs) - up - down
    p = binomial_two_sided_p(up, up + down) if up + down else None
    return SignTest(up, down, ties, p)


def mean(xs: Sequence[float]) -> float:
    """The arithmetic mean (exact summation); `xs` must not be empty."""
    return math.fsum(xs) / len(xs)


def sample_sd(xs: Sequence[float]) -> float:
    """Sample standard deviation (n - 1 denominator); 0 for fewer than two values."""
    n = len(xs)
    if n < 2:
        return 0.0
    m = mean(xs)
    return math.sqrt(math.fsum((x - m) ** 2 for x in xs) / (n - 1))


def quantile(sorted_xs: Sequence[float], q: float) -> float:
    """Linear-interpolation quantile of sorted data (the common default, type 7)."""
    pos = q * (len(sorted_xs) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_xs) - 1)
    return sorted_xs[lo] + (sorted_xs[hi] - sorted_xs[lo]) * (pos - lo)


def paired_bootstrap_ci(
    diffs: Sequence[float],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> BootstrapCI:
    """Percentile bootstrap CI of the mean paired difference, resampling the paired units.

    Exact resampling unless the differences take so many distinct values that it would
    blow the time budget: then they are resampled binned to `grid`, and the interval is
    moved by the binning's mean error so it stays centred on the true mean.
    """
    if resamples < 1:
        raise ValueError("resamples must be at least 1")
    m = mean(diffs)
    grid = resampling_grid(diffs, resamples)
    values = diffs if grid is None else [round(d / grid) * grid for d in diffs]
    shift = 0.0 if grid is None else m - mean(values)
    means = sorted(bootstrap_means(values, resamples, seed))
    tail = (1.0 - level) / 2.0
    return BootstrapCI(
        mean=m,
        low=quantile(means, tail) + shift,
        high=quantile(means, 1.0 - tail) + shift,
        level=level,
        resamples=resamples,
        seed=seed,
        n=len(diffs),
        grid=grid,
    )


def clustered_se(diffs: Sequence[float], clusters: Sequence[Hashable]) -> ClusteredSE | None:
    """Cluster-robust SE of the mean: sqrt(G/(G-1) * sum_g (sum_{i in g} (d_i - mean))^2) / n.

    This is the Liang-Zeger estimator with the usual G/(G-1) small-sample factor (the same
    figure as Stata's `mean d, vce(cluster g)`). None with fewer than two clusters.
    """
    n = len(diffs)
    if n != len(clusters):
        raise ValueError("one cluster key per difference")
    sums: dict[Hashable, float] = {}
    m = mean(diffs) if n else 0.0
    for d, g in zip(diffs, clusters, strict=True):
        sums[g] = sums.get(g, 0.0) + (d - m)
    g_count = len(sums)
    if g_count < 2:
        return None
    var = g_count / (g_count - 1) * math.fsum(s * s for s in sums.values())
    return ClusteredSE(math.sqrt(var) / n, g_count, sample_sd(diffs) / math.sqrt(n), n)


def _z(alpha: float, power: float) -> tuple[float, float]:
    nd = NormalDist()
    return nd.inv_cdf(1.0 - alpha / 2.0), nd.inv_cdf(power)


def mde_mean(n: int, sd: float, alpha: float = 0.05, power: float = 0.8) -> float | None:
    """Smallest true mean difference a two-sided paired test detects with this power.

    (z_{1-alpha/2} + z_{power}) * sd / sqrt(n): the normal approximation. None when n < 2
    or the differences do not vary (no estimate of the noise).
    """
    if n < 2 or sd <= 0:
        return None
    z_a, z_b = _z(alpha, power)
    return (z_a + z_b) * sd / math.sqrt(n)


def mde_paired_binary(
    n: int, discordant_rate: float, alpha: float = 0.05, power: float = 0.8
) -> float | None:
    """Smallest change in pass rate that McNemar's test detects with this power (Connor 1987).

    A change of delta needs n * delta^2 >= (z_a sqrt(psi) + z_b sqrt(psi - delta^2))^2 where
    psi is the share of discordant pairs. Psi is the observed share, raised to delta when
    smaller: a change of delta means at least delta of the pairs flipped. None when n = 0
    or not even a change of 100 points would be detected.
    """
    if n <= 0:
        return None
    z_a, z_b = _z(alpha, power)
    root_n = math.sqrt(n)

    def margin(delta: float) -> float:
        psi = max(discordant_rate, delta)
        return root_n * delta - z_a * math.sqrt(psi) - z_b * math.sqrt(max(psi - delta * delta, 0))

    if margin(1.0) < 0:
        return None
    lo, hi = 0.0, 1.0
    # The margin changes sign once on (0, 1], so bisection finds the threshold.
    for _ in range(60):
        mid = (lo + hi) / 2
        if margin(mid) >= 0:
            hi = mid
        else:
            lo = mid
    return hi
