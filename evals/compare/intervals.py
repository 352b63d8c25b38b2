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

from evals.compare.clustered import cluster_design, cr2_se
from evals.compare.twobytwo import (
    Interval,
    newcombe_paired_interval,
    paired_binary_interval,
    tango_interval,
    tango_p,
)
from evals.maths.distributions import t_cdf, t_ppf

__all__ = ["Interval", "newcombe_paired_interval", "tango_interval", "paired_binary_interval"]

TIE_TOLERANCE = 1e-9


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
    """Tango on (soft) 2x2 counts, for when the data give no variance to estimate: with the
    exact McNemar test for pass/fail pairs, else the score test the interval inverts."""
    if not all(0.0 <= v <= 1.0 for v in (*a, *b)):
        raise ValueError(
            f"{why}, and values outside [0, 1] leave no way to bound the noise: no interval"
        )
    if is_binary(a) and is_binary(b):
        ci = paired_binary_interval(*_binary_counts(a, b), alpha=alpha)
        return dataclasses.replace(
            ci, method=f"{ci.method} ({why})", n=len(a), n_clusters=n_clusters
        )
    counts = _soft_counts(a, b)
    ci = tango_interval(*counts, alpha=alpha)
    return dataclasses.replace(
        ci,
        method=f"tango, soft counts ({why})",
        n=len(a),
        n_clusters=n_clusters,
        p_value=tango_p(counts[1], counts[2]),
        upper_one_sided=tango_interval(*counts, alpha=min(0.999, 2 * alpha)).high,
    )


def paired_diff_interval(
    a: Sequence[float],
    b: Sequence[float],
    clusters: Sequence[Hashable | None] | None = None,
    alpha: float = 0.05,
) -> Interval:
    """Mean of d = b - a with a t interval at level 1 - alpha and a one-sided p that it is < 0.

    Without clusters: SE = sd/sqrt(n), df = n - 1 (the paired t test). With clusters: the
    CR2 sandwich SE with Bell-McCaffrey degrees of freedom (evals.compare.clustered), which
    holds with few and unequal clusters; with equal cluster sizes this is exactly the t test
    on the G cluster means (G - 1 df). A None cluster key makes that case its own cluster.
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
        design = cluster_design(clusters)
        n_clusters = design.n_clusters
        se = cr2_se(d, design)
        df = design.dof
        method = f"cluster-robust t (CR2), {n_clusters} clusters ({df:.3g} df)"
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

    Binary outcomes without clusters: Tango's interval joined with the exact conditional
    one, and the exact one-sided McNemar test, both about the displayed mean change. Anything else (rates over epochs, scores,
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
        ci = paired_binary_interval(*_binary_counts(a, b), alpha=alpha)
        return dataclasses.replace(ci, method=ci.method + note) if note else ci
    ci = paired_diff_interval(a, b, clusters, alpha)
    if min(a) >= 0.0 and min(b) >= 0.0 and max(a) <= 1.0 and max(b) <= 1.0:
        # A mean change of values in [0, 1] lies in [-1, 1]: a t interval reaching past it
        # (few clusters, few df) says nothing more there, and clipping cannot lose the truth.
        ci = dataclasses.replace(ci, low=max(-1.0, ci.low), high=min(1.0, ci.high))
    return ci if not note else dataclasses.replace(ci, method=ci.method + note)
