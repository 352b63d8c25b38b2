"""Intervals for the change in a paired proportion (a 2x2 table of pass/fail in A and B).

Pure functions, stdlib only. The gate's interval for a pass rate of single attempts is
Tango's score interval joined with the exact conditional interval that is the dual of the
exact McNemar test: Tango's holds its level better than Newcombe's when most pairs are tied
(Newcombe's 95% interval covers as little as 92% there, Tango's at least 93%, both measured
by exact enumeration of every table), and the join makes the printed interval agree with
the exact test that decides (it reaches 0 whenever that test does not reject).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from evals.compare.power import McNemarOneSided, mcnemar_one_sided
from evals.maths.distributions import clopper_pearson, norm_ppf, norm_sf


@dataclass(frozen=True)
class Interval:
    """An interval for the mean paired difference B - A, and the one-sided test beside it."""

    estimate: float
    low: float
    high: float
    level: float  # two-sided confidence level, 1 - alpha
    method: str
    n: int
    se: float | None = None
    df: float | None = None
    n_clusters: int | None = None
    p_value: float | None = None  # one-sided: that the true mean difference is below 0
    upper_one_sided: float | None = None  # B - A <= this at level 1 - alpha; < 0 iff p < alpha
    mcnemar: McNemarOneSided | None = None  # set when p is the exact McNemar test's

    @property
    def width(self) -> float:
        return self.high - self.low


def _wilson(x: float, n: float, z: float) -> tuple[float, float]:
    """Wilson score interval for x successes in n (x may be fractional)."""
    denom = n + z * z
    centre = (x + z * z / 2) / denom
    half = z * math.sqrt(x * (n - x) / n + z * z / 4) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def _check_counts(*counts: float) -> float:
    if any(c < 0 for c in counts):
        raise ValueError("counts must be non-negative")
    n = math.fsum(counts)
    if n <= 0:
        raise ValueError("no pairs")
    return n


def newcombe_paired_interval(
    n11: float, n10: float, n01: float, n00: float, alpha: float = 0.05
) -> Interval:
    """Newcombe (1998) method 10 interval for pB - pA from a paired 2x2 table.

    n11 = passed in both, n10 = passed in A only (broken), n01 = passed in B only (fixed),
    n00 = failed in both; the estimate is (n01 - n10) / n. Square-and-add of the two Wilson
    score intervals with the correlation phi, attenuated towards 0 when positive (A - n/2)
    as in Newcombe 1998 and Fagerland, Lydersen & Laake (2017, ch. 8; R contingencytables
    Newcombe_square_and_add_CI_paired_2x2). Never zero width: each Wilson interval has
    positive width for n >= 1 and the attenuated phi stays below 1, so it is right for a
    single pair and for all ties. Counts may be fractional (soft counts, see
    paired_diff_interval).
    """
    n = _check_counts(n11, n10, n01, n00)
    z = norm_ppf(1 - alpha / 2)
    p_b, p_a = (n11 + n01) / n, (n11 + n10) / n
    l_b, u_b = _wilson(n11 + n01, n, z)
    l_a, u_a = _wilson(n11 + n10, n, z)
    margins = (n11 + n10, n01 + n00, n11 + n01, n10 + n00)
    if min(margins) <= 0:
        phi = 0.0
    else:
        cross = n11 * n00 - n10 * n01
        root = math.sqrt(margins[0] * margins[1] * margins[2] * margins[3])
        if cross > n / 2:
            phi = (cross - n / 2) / root
        elif cross >= 0:
            phi = 0.0
        else:
            phi = cross / root
    est = p_b - p_a
    low = est - math.sqrt(
        max(0.0, (p_b - l_b) ** 2 + (u_a - p_a) ** 2 - 2 * phi * (p_b - l_b) * (u_a - p_a))
    )
    high = est + math.sqrt(
        max(0.0, (p_a - l_a) ** 2 + (u_b - p_b) ** 2 - 2 * phi * (p_a - l_a) * (u_b - p_b))
    )
    return Interval(est, max(-1.0, low), min(1.0, high), 1 - alpha, "newcombe", round(n))


def tango_interval(n11: float, n10: float, n01: float, n00: float, alpha: float = 0.05) -> Interval:
    """Tango (1998) asymptotic score interval for pB - pA (same table as newcombe_paired_interval).

    Inverts the score statistic T(d0) = (x - y - n d0) / sqrt(n (2 p~ + d0 (1 - d0))) with
    p~ the restricted ML estimate of P(broken), following Fagerland et al. 2017 ch. 8.
    Here x = fixed, y = broken so the interval is for B - A.
    """
    n = _check_counts(n11, n10, n01, n00)
    z = norm_ppf(1 - alpha / 2)
    x, y = n01, n10  # fixed, broken: the difference is (x - y) / n

    def stat(d0: float) -> float:
        # Restricted ML of P(broken) under B - A = d0 (quadratic root, Tango 1998).
        qa = 2 * n
        qb = -x - y + (2 * n - x + y) * d0
        qc = -y * d0 * (1 - d0)
        p_broken = (math.sqrt(max(0.0, qb * qb - 4 * qa * qc)) - qb) / (2 * qa)
        var = n * (2 * p_broken + d0 * (1 - d0))
        num = x - y - n * d0
        if var <= 0:  # only at d0 = 0 with no discordant pair, where the numerator is 0 too
            return 0.0 if num == 0 else math.copysign(math.inf, num)
        return num / math.sqrt(var)

    def root(target: float) -> float:
        lo, hi = -1.0 + 1e-12, 1.0 - 1e-12  # T falls as d0 rises
        for _ in range(60):
            mid = (lo + hi) / 2
            if stat(mid) > target:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    est = (x - y) / n
    low = -1.0 if est == -1 else root(z)
    high = 1.0 if est == 1 else root(-z)
    return Interval(est, low, high, 1 - alpha, "tango", round(n))


def tango_p(n10: float, n01: float) -> float:
    """One-sided p that B is worse from Tango's score statistic at B - A = 0 (the asymptotic
    McNemar z, (fixed - broken) / sqrt(fixed + broken)): the dual of the interval's upper end."""
    if n10 + n01 <= 0:
        return 1.0
    return 1.0 - norm_sf((n01 - n10) / math.sqrt(n10 + n01))


def exact_conditional_interval(n10: int, n01: int, n: int, alpha: float) -> tuple[float, float]:
    """The dual of the exact McNemar test, as an interval for B - A.

    Given m = n10 + n01 discordant pairs, the broken count is Binomial(m, q); the
    Clopper-Pearson interval for q at two-sided 1 - alpha maps to B - A = (m / n)(1 - 2q).
    Its upper end is below 0 exactly when the one-sided exact test at alpha / 2 rejects. It
    ignores the noise in m (so alone it is [0, 0] for all ties); the gate joins it to Tango's.
    """
    m = n10 + n01
    if m == 0:
        return 0.0, 0.0
    # The broken share's exact interval, each end at alpha / 2 (both rising tails: given the
    # falling P(broken <= n10) the bisection ran to q = 1 and put the lower end at -m / n
    # whenever B was better).
    q_lo, q_hi = clopper_pearson(n10, m, alpha / 2)
    share = m / n
    return share * (1 - 2 * q_hi), share * (1 - 2 * q_lo)


def paired_binary_interval(n11: int, n10: int, n01: int, n00: int, alpha: float = 0.05) -> Interval:
    """The gate's interval and test for pass/fail pairs: Tango joined with the exact
    conditional interval, and the exact one-sided McNemar p (see the module docstring)."""
    n = n11 + n10 + n01 + n00
    test = mcnemar_one_sided(n01, n10)
    tango = tango_interval(n11, n10, n01, n00, alpha)
    lo, hi = exact_conditional_interval(n10, n01, n, alpha)
    one = tango_interval(n11, n10, n01, n00, min(0.999, 2 * alpha))
    upper = max(one.high, exact_conditional_interval(n10, n01, n, min(0.999, 2 * alpha))[1])
    return Interval(
        tango.estimate,
        min(tango.low, lo),
        max(tango.high, hi),
        1 - alpha,
        "tango + exact McNemar",
        n,
        p_value=test.p_value,
        upper_one_sided=upper,
        mcnemar=test,
    )
