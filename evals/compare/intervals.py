"""Intervals for a paired mean difference B - A, each with the one-sided test beside it.

Pure functions, stdlib only. A paired difference is d = B - A, so a negative mean is a
regression; the p-values are one-sided ("is B worse?"). Intervals are two-sided at level
1 - alpha (the level follows --alpha); each also carries the one-sided upper bound at
1 - alpha, the exact dual of the one-sided test at alpha. Values (pass rates, scores) lie
in [0, 1], as grading guarantees for scores.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from evals.compare.distributions import norm_ppf, t_cdf, t_ppf
from evals.compare.power import McNemarOneSided, mcnemar_one_sided

TIE_TOLERANCE = 1e-9


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
        for _ in range(200):
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


def _soft_counts(a: Sequence[float], b: Sequence[float]) -> tuple[float, float, float, float]:
    """2x2 counts from values in [0, 1]: a pair (a, b) adds min(a, b) to both-pass, etc.

    For binary values these are the ordinary counts; for rates or scores they are the
    expected counts if each value were a pass probability, and they reproduce both means.
    """
    n11 = n10 = n01 = n00 = 0.0
    for x, y in zip(a, b, strict=True):
        n11 += min(x, y)
        n00 += 1.0 - max(x, y)
        n10 += max(x - y, 0.0)
        n01 += max(y - x, 0.0)
    return n11, n10, n01, n00


def is_binary(values: Sequence[float]) -> bool:
    """Whether every value is exactly 0 or 1 (pass/fail, not a rate or a score)."""
    return set(values) <= {0.0, 1.0}


def _binary_counts(a: Sequence[float], b: Sequence[float]) -> tuple[int, int, int, int]:
    """n11, n10, n01, n00 of pass/fail pairs, counted in C."""
    pairs = Counter(zip(a, b, strict=True))
    return pairs[(1.0, 1.0)], pairs[(1.0, 0.0)], pairs[(0.0, 1.0)], pairs[(0.0, 0.0)]


def mean(xs: Sequence[float]) -> float:
    """The arithmetic mean (exact summation); `xs` must not be empty."""
    return math.fsum(xs) / len(xs)


def sample_var(xs: Sequence[float]) -> float:
    """Sample variance (n - 1 denominator); 0 for fewer than two values."""
    n = len(xs)
    if n < 2:
        return 0.0
    m = mean(xs)
    return math.fsum((x - m) ** 2 for x in xs) / (n - 1)


def _bounded_fallback(
    a: Sequence[float], b: Sequence[float], alpha: float, n_clusters: int | None, why: str
) -> Interval:
    """Newcombe on (soft) 2x2 counts, for when the data give no variance to estimate."""
    if not all(0.0 <= v <= 1.0 for v in (*a, *b)):
        raise ValueError(
            f"{why}, and values outside [0, 1] leave no way to bound the noise: no interval"
        )
    counts = _soft_counts(a, b)
    ci = newcombe_paired_interval(*counts, alpha=alpha)
    one_sided = newcombe_paired_interval(*counts, alpha=min(0.999, 2 * alpha))
    exact = None
    if is_binary(a) and is_binary(b):
        exact = mcnemar_one_sided(round(counts[2]), round(counts[1]))
        p = exact.p_value
        method = f"newcombe + exact McNemar ({why})"
    else:
        p = _newcombe_p(counts)
        method = f"newcombe, soft counts ({why})"
    return Interval(
        ci.estimate,
        ci.low,
        ci.high,
        ci.level,
        method,
        len(a),
        n_clusters=n_clusters,
        p_value=p,
        upper_one_sided=one_sided.high,
        mcnemar=exact,
    )


def _newcombe_p(counts: tuple[float, float, float, float]) -> float:
    """One-sided p from inverting the Newcombe interval: the alpha' at which its upper end
    (two-sided level 1 - 2 alpha') reaches 0. 1.0 when the estimate is not below 0."""
    if newcombe_paired_interval(*counts, alpha=0.999999).high >= 0:
        return 1.0
    lo, hi = 1e-15, 0.4999995  # the upper end rises as alpha' falls
    if newcombe_paired_interval(*counts, alpha=2 * lo).high < 0:
        return lo  # below 1e-15: reported as that
    for _ in range(200):
        mid = math.sqrt(lo * hi) if hi / lo > 4 else (lo + hi) / 2
        if newcombe_paired_interval(*counts, alpha=2 * mid).high < 0:
            hi = mid
        else:
            lo = mid
    return hi


def paired_diff_interval(
    a: Sequence[float],
    b: Sequence[float],
    clusters: Sequence[Hashable | None] | None = None,
    alpha: float = 0.05,
) -> Interval:
    """Mean of d = b - a with a t interval at level 1 - alpha and a one-sided p that it is < 0.

    Without clusters: SE = sd/sqrt(n), df = n - 1 (the paired t test). With clusters: the
    Liang-Zeger sandwich SE with the G/(G - 1) factor (as Stata's `mean d, vce(cluster g)`),
    df = G - 1; with equal cluster sizes this is exactly
    the t test on the G cluster means. A None cluster key makes that case its own cluster.
    When n < 2 or the SE is 0 (one pair, all ties, every difference equal), a t interval
    would have zero width; values in [0, 1] then get the Newcombe interval on (soft) 2x2
    counts instead, and other values raise ValueError. Fewer than 2 clusters raise too.
    """
    n = len(a)
    if n != len(b):
        raise ValueError("a and b must pair up")
    if n == 0:
        raise ValueError("no pairs")
    if not 0.0 < alpha < 1.0:
        raise ValueError("alpha must be between 0 and 1")
    d = [y - x for x, y in zip(a, b, strict=True)]
    m = mean(d)
    n_clusters = None
    if clusters is not None:
        if len(clusters) != n:
            raise ValueError("one cluster key per pair")
        keys = [g if g is not None else ("\0case", i) for i, g in enumerate(clusters)]
        sums: dict[Hashable, float] = {}
        for di, g in zip(d, keys, strict=True):
            sums[g] = sums.get(g, 0.0) + (di - m)
        n_clusters = len(sums)
        if n_clusters < 2:
            raise ValueError(
                "every case is in one cluster: the cluster-to-cluster noise cannot be estimated"
            )
        var = n_clusters / (n_clusters - 1) * math.fsum(s * s for s in sums.values())
        se = math.sqrt(var) / n
        df = n_clusters - 1
        method = f"cluster-robust t, {n_clusters} clusters ({df} df)"
    else:
        se = math.sqrt(sample_var(d) / n) if n > 1 else 0.0
        df = n - 1
        method = f"paired t ({df} df)"
    if n < 2 or se <= TIE_TOLERANCE * 1e-3:
        why = "one pair" if n < 2 else "no variation in the differences"
        return _bounded_fallback(a, b, alpha, n_clusters, why)
    half = t_ppf(1 - alpha / 2, df) * se
    return Interval(
        estimate=m,
        low=m - half,
        high=m + half,
        level=1 - alpha,
        method=method,
        n=n,
        se=se,
        df=df,
        n_clusters=n_clusters,
        p_value=t_cdf(m / se, df),
        upper_one_sided=m + t_ppf(1 - alpha, df) * se,
    )


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm step-down adjusted p-values, in the input order (as statsmodels' 'holm').

    Reject hypothesis i at family-wise level alpha iff its adjusted p <= alpha.
    """
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def effect_interval(
    a: Sequence[float],
    b: Sequence[float],
    clusters: Sequence[Hashable | None] | None = None,
    alpha: float = 0.05,
) -> Interval:
    """The interval and one-sided test the gate uses for one figure of fully scored cases.

    Binary outcomes without clusters: Newcombe's interval and the exact one-sided McNemar
    test, both about the displayed mean change. Anything else (rates over epochs, scores,
    clusters): the paired or cluster-robust t of paired_diff_interval. `clusters` is None,
    or one key per case (None: the case is its own cluster); when every case shares one
    key, the cluster-to-cluster noise cannot be estimated and the cases count as
    independent, which the method says.
    """
    note = ""
    if clusters is not None:
        keys = set(clusters)
        if len(keys - {None}) + list(clusters).count(None) < 2:
            clusters, note = None, "; every case in one cluster, so counted as independent"
    if clusters is None and is_binary(a) and is_binary(b):
        n11, n10, n01, n00 = _binary_counts(a, b)
        test = mcnemar_one_sided(n01, n10)
        ci = newcombe_paired_interval(n11, n10, n01, n00, alpha)
        upper = newcombe_paired_interval(n11, n10, n01, n00, min(0.999, 2 * alpha)).high
        return Interval(
            ci.estimate,
            ci.low,
            ci.high,
            ci.level,
            "newcombe + exact McNemar" + note,
            ci.n,
            p_value=test.p_value,
            upper_one_sided=upper,
            mcnemar=test,
        )
    ci = paired_diff_interval(a, b, clusters, alpha)
    if min(a) >= 0.0 and min(b) >= 0.0 and max(a) <= 1.0 and max(b) <= 1.0:
        # A mean change of values in [0, 1] lies in [-1, 1]: a t interval reaching past it
        # (few clusters, few df) says nothing more there, and clipping cannot lose the truth.
        ci = dataclasses.replace(ci, low=max(-1.0, ci.low), high=min(1.0, ci.high))
    return ci if not note else dataclasses.replace(ci, method=ci.method + note)
