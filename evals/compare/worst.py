"""The least favourable outcome of errored attempts for a t test of the mean change.

Pure functions, stdlib only. An errored (or missing) attempt could have come out anywhere
in its possible range, so the gate's worst-case reading must use the outcome that makes B
look worst *to the test in use*. For the exact McNemar test that is simply a fail in B and a
pass in A. For a t test it is not: reading a timeout as score 0 also inflates the standard
error, and a B whose timeout would have been an ordinary 0.95 fail can be significantly
worse while the 0 reading is not. So the values are searched for.

The t test fails at level L when mean(d) + k * se(d) <= 0 with k = t_{1-L, df}. For both the
paired t and the CR2 cluster-robust test, se(d) is a Euclidean norm of a linear map of d
and df does not depend on d, so f(d) = mean(d) + k se(d) is convex, and its minimum over
the box of possible values decides the worst case exactly. Coordinate descent finds it; each
step minimises f along one coordinate in closed form.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import replace

from evals.compare.clustered import cluster_design
from evals.compare.epochs import CaseOutcome
from evals.maths.distributions import t_ppf

_SWEEPS = 200


def least_favourable(
    d: Sequence[float],
    low: Sequence[float],
    high: Sequence[float],
    k: float,
    clusters: Sequence[Hashable | None] | None = None,
) -> list[float]:
    """The d in the box [low, high] (starting from `d`) that minimises mean(d) + k se(d).

    `se` is the paired t's (clusters None) or CR2's; a case with low == high is fixed.
    """
    n = len(d)
    if n < 2 or k <= 0:
        return list(low)
    keys = clusters if clusters is not None else [None] * n
    design = cluster_design(keys)
    w, sizes, index = design.weights, design.sizes, design.index
    x = [min(max(v, lo), hi) for v, lo, hi in zip(d, low, high, strict=True)]
    sums = [0.0] * design.n_clusters
    for v, g in zip(x, index, strict=True):
        sums[g] += v
    total = math.fsum(x)
    big_k = math.fsum(wg * s * s for wg, s in zip(w, sizes, strict=True))  # sum w n_g^2
    p_sum = math.fsum(wg * s * s for wg, s in zip(w, sums, strict=True))  # sum w S_g^2
    r_sum = math.fsum(wg * ng * s for wg, ng, s in zip(w, sizes, sums, strict=True))
    free = [i for i in range(n) if high[i] > low[i]]
    for _ in range(_SWEEPS):
        moved = 0.0
        for i in free:
            g = index[i]
            m = total / n
            # Q(t) = sum_h w_h (S_h + t [h = g] - n_h (total + t) / n)^2 = q0 + 2 beta t + gamma t^2
            q0 = p_sum - 2 * m * r_sum + m * m * big_k
            r_g = sums[g] - sizes[g] * m
            beta = w[g] * r_g - (r_sum - m * big_k) / n
            gamma = w[g] * (1 - 2 * sizes[g] / n) + big_k / (n * n)
            step = _best_step(q0, beta, gamma, k, low[i] - x[i], high[i] - x[i])
            if step == 0.0:
                continue
            x[i] += step
            total += step
            old = sums[g]
            sums[g] = old + step
            p_sum += w[g] * (sums[g] ** 2 - old**2)
            r_sum += w[g] * sizes[g] * step
            moved = max(moved, abs(step))
        if moved < 1e-12:
            break
    return x


def _best_step(q0: float, beta: float, gamma: float, k: float, lo: float, hi: float) -> float:
    """The t in [lo, hi] minimising t + k sqrt(q0 + 2 beta t + gamma t^2) (convex in t)."""

    def value(t: float) -> float:
        return t + k * math.sqrt(max(0.0, q0 + 2 * beta * t + gamma * t * t))

    candidates = [lo, hi]
    if gamma > 0 and k * k * gamma > 1:
        # Stationary point: with u = gamma t + beta, k^2 u^2 = (u^2 + D) / gamma, u < 0.
        big_d = max(0.0, gamma * q0 - beta * beta)
        u = -math.sqrt(big_d / (k * k * gamma - 1))
        candidates.append(min(max((u - beta) / gamma, lo), hi))
    best = min(candidates, key=value)
    return best if value(best) < value(0.0) - 1e-15 else 0.0


def bounds(c: CaseOutcome, floor: float, ceiling: float) -> tuple[float, float, float, float]:
    """(lowest, highest) possible value in A, then in B, given the case's errored epochs."""
    if c.a is None:
        a_lo, a_hi = floor, ceiling
    elif c.a_worst is not None:
        a_lo, a_hi = c.a_best if c.a_best is not None else floor, c.a_worst
    else:
        a_lo = a_hi = c.a
    if c.b is None:
        b_lo, b_hi = floor, ceiling
    elif c.b_worst is not None:
        b_lo, b_hi = c.b_worst, c.b_best if c.b_best is not None else ceiling
    else:
        b_lo = b_hi = c.b
    return a_lo, a_hi, b_lo, b_hi


def least_favourable_cases(
    cases: Sequence[CaseOutcome],
    tail: float,
    use_clusters: bool,
    floor: float = 0.0,
    ceiling: float = 1.0,
) -> list[CaseOutcome] | None:
    """The cases with each errored value set to its least favourable outcome for the t test
    at one-sided level `tail`; None when nothing is unknown, or when the figure is read by the
    exact McNemar test (pass/fail pairs without clusters), whose least favourable outcome is
    the plain one: a fail in B and a pass in A."""
    known = list(cases)  # a case undecided in both runs is as free as any other
    if not any(c.has_error for c in known) or len(known) < 2:
        return None
    box = [bounds(c, floor, ceiling) for c in known]
    keys = [c.cluster for c in known] if use_clusters else None
    if keys is not None and all(g is None for g in keys):
        keys = None
    if keys is not None and len(set(keys)) < 2:
        keys = None  # one cluster: counted as independent, as the figure does
    read = {v for _, hi_a, lo_b, _ in box for v in (hi_a, lo_b)}
    if keys is None and read <= {0.0, 1.0}:
        return None  # pass/fail pairs read by McNemar: the floor reading is the worst
    low = [lo_b - hi_a for _, hi_a, lo_b, _ in box]
    high = [hi_b - lo_a for lo_a, _, _, hi_b in box]
    df = cluster_design(keys).dof if keys is not None else len(known) - 1
    d = least_favourable(low, low, high, t_ppf(1 - tail, df), keys)
    out = []
    for c, (_, hi_a, _, hi_b), di in zip(known, box, d, strict=True):
        if not c.has_error:
            out.append(c)
            continue
        a = hi_a
        b = a + di
        if b > hi_b:
            b, a = hi_b, hi_b - di
        out.append(replace(c, a=a, b=b, a_worst=None, b_worst=None, a_best=None, b_best=None))
    return out


def spread(
    endpoints: Mapping[str, Sequence[CaseOutcome]], floor: float, ceiling: float
) -> dict[str, tuple[float, float]]:
    """Each figure's lowest and highest possible B - A over every outcome of the unknowns."""
    out = {}
    for key, cases in endpoints.items():
        known = list(cases)
        if not known:
            continue
        lo = hi = 0.0
        for c in known:
            a_lo, a_hi, b_lo, b_hi = bounds(c, floor, ceiling)
            lo += b_lo - a_hi
            hi += b_hi - a_lo
        out[key] = (lo / len(known), hi / len(known))
    return out
