"""Drawing bootstrap resamples of a mean fast in pure Python. No I/O.

Three exact samplers draw the same distribution (n values with replacement); the cheapest
for the data's size and number of distinct values is used. `resampling_grid` says when
the values are too varied for any of them to finish within the time budget.
"""

from __future__ import annotations

import math
import random
import sys
from array import array
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import islice


def binomial_variate(rand: Callable[[], float], n: int, p: float) -> int:
    """One Binomial(n, p) draw: geometric waiting times for small n*p, else BTRS (Hormann 1993)."""
    if n <= 0 or p <= 0.0:
        return 0
    if p >= 1.0:
        return n
    if p > 0.5:
        return n - binomial_variate(rand, n, 1.0 - p)
    if n * p < 10.0:
        successes = trials = 0
        log_q = math.log(1.0 - p)
        while True:
            trials += math.floor(math.log(1.0 - rand()) / log_q) + 1
            if trials > n:
                return successes
            successes += 1
    spq = math.sqrt(n * p * (1.0 - p))
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = n * p + 0.5
    v_r = 0.92 - 4.2 / b
    alpha = (2.83 + 5.1 / b) * spq
    lpq = math.log(p / (1.0 - p))
    m = math.floor((n + 1) * p)
    h = math.lgamma(m + 1) + math.lgamma(n - m + 1)
    while True:
        u = rand() - 0.5
        us = 0.5 - abs(u)
        k = math.floor((2.0 * a / us + b) * u + c)
        if k < 0 or k > n:
            continue
        v = rand()
        if us >= 0.07 and v <= v_r:
            return k
        v = math.log(v * alpha / (a / (us * us) + b))
        if v <= h - math.lgamma(k + 1) - math.lgamma(n - k + 1) + (k - m) * lpq:
            return k


# Rough per-step costs in seconds, used only to pick the fastest of three exact samplers.
_COST_BINOMIAL = 1.5e-6  # one binomial draw (multinomial counts)
_COST_TABLE_DRAW = 9e-8  # one Poisson draw from a table, summed across resamples in C
_COST_DRAW = 1.2e-7  # one value drawn with random.choices
_FILL_Z = 2.0  # Poisson thinning margin, in standard deviations of the total count
_BOOTSTRAP_BUDGET_S = 0.6  # above this estimate, resample binned differences (see resampling_grid)
_GRID = 1e9  # the Poisson sampler sums values as integer multiples of 1 / _GRID


def _poisson_table(mu: float) -> tuple[int, list[float]]:
    """Cumulative Poisson(mu) probabilities over mu +- 12 sd: (first value, cdf)."""
    spread = 12.0 * math.sqrt(mu) + 12.0
    lo = max(0, math.floor(mu - spread))
    hi = math.ceil(mu + spread)
    log_mu = math.log(mu)
    # Start from lo in log space: exp(-mu) alone underflows for large groups.
    p = math.exp(lo * log_mu - mu - math.lgamma(lo + 1))
    cdf, total = [], 0.0
    for j in range(lo, hi + 1):
        total += p
        cdf.append(total)
        p *= mu / (j + 1)
    cdf = [c / total for c in cdf]
    cdf[-1] = 1.0
    return lo, cdf


_CELLS = 65536  # 16-bit uniforms index a lookup table, so draws are mapped in C
_BOUNDARY = 1 << 62  # marks a table cell that straddles two values


def _cell_table(outputs: Sequence[int], cdf: list[float]) -> list[int]:
    """outputs[j] for each 16-bit cell lying wholly inside step j of the cdf, else _BOUNDARY."""
    table: list[int] = []
    prev = 0.0
    for j, c in enumerate(cdf):
        start, end = math.ceil(prev * _CELLS), math.floor(c * _CELLS)
        if end > start:
            table.extend([_BOUNDARY] * (start - len(table)))
            table.extend([outputs[j]] * (end - start))
        prev = c
    table.extend([_BOUNDARY] * (_CELLS - len(table)))
    return table


def _table_draws(rng: random.Random, outputs: Sequence[int], cdf: list[float], k: int) -> array:
    """k inverse-cdf draws of outputs: a 16-bit uniform picks a cell of a lookup table.

    The uniform is (cell + v) / 65536 with v uniform, so a cell inside one step of the cdf
    gives its output whatever v is; only cells that straddle a step need v. Exact, and all
    but the straddling cells are mapped in C.
    """
    cells = array("H")
    cells.frombytes(rng.randbytes(2 * k))
    draws = array("Q", map(_cell_table(outputs, cdf).__getitem__, cells))
    last, i = len(cdf) - 1, -1
    try:
        while True:
            i = draws.index(_BOUNDARY, i + 1)
            draws[i] = outputs[min(bisect_right(cdf, (cells[i] + rng.random()) / _CELLS), last)]
    except ValueError:  # no straddling cell left
        pass
    return draws


def _multinomial_mean(rand: Callable[[], float], groups: list[tuple[float, int]], n: int) -> float:
    """Mean of one resample drawn as multinomial counts over the distinct values."""
    left = n  # draws still to place
    mass = n  # cases not yet visited, an integer so the probabilities stay exact
    total = 0.0
    for value, count in groups[:-1]:
        k = binomial_variate(rand, left, count / mass) if left else 0
        total += value * k
        left -= k
        mass -= count
    return (total + groups[-1][0] * left) / n


def _poisson_fill_means(
    rng: random.Random, groups: list[tuple[float, int]], n: int, resamples: int
) -> list[float]:
    """Means of resamples drawn as thinned Poisson counts per value, topped up to n draws.

    Counts P_k ~ Poisson(lam * n_k) are N ~ Poisson(lam * n) iid draws from the data;
    adding n - N further iid draws makes exactly n iid draws, i.e. an ordinary resample.
    lam = 1 - z/sqrt(n) makes N > n rare; such a resample is drawn afresh the slow way.
    The counts of all resamples are added at once as 64-bit lanes of one big integer, so
    values are summed as integers on a 1e-9 grid (scores carry 6 decimals).
    """
    lam = max(0.0, 1.0 - _FILL_Z / math.sqrt(n))
    ints = [round(v * _GRID) for v, _ in groups]
    offset = -min(ints)  # lanes hold non-negative numbers
    shifted = [i + offset for i in ints]
    count_lanes = sum_lanes = 0
    for (_, count), weight in zip(groups, shifted, strict=True):
        lo, cdf = _poisson_table(lam * count)
        draws = _table_draws(rng, range(lo, lo + len(cdf)), cdf, resamples)
        lanes = int.from_bytes(draws.tobytes(), sys.byteorder)
        count_lanes += lanes
        sum_lanes += weight * lanes
    counts, sums = array("Q"), array("Q")
    counts.frombytes(count_lanes.to_bytes(8 * resamples, sys.byteorder))
    sums.frombytes(sum_lanes.to_bytes(8 * resamples, sys.byteorder))
    need = [n - drawn if drawn <= n else 0 for drawn in counts]
    shares, seen = [], 0
    for _, count in groups:
        seen += count
        shares.append(seen / n)
    shares[-1] = 1.0
    top_ups = iter(_table_draws(rng, shifted, shares, sum(need)))
    out = []
    for total, drawn, missing in zip(sums, counts, need, strict=True):
        if drawn > n:
            out.append(_multinomial_mean(rng.random, groups, n))
        else:
            out.append((total + sum(islice(top_ups, missing)) - offset * n) / (_GRID * n))
    return out


def _sampler_costs(n: int, k: int) -> dict[str, float]:
    """Estimated seconds per resample of each exact sampler, for n values with k distinct."""
    return {
        "multinomial": (k - 1) * _COST_BINOMIAL,
        "poisson": k * _COST_TABLE_DRAW + _FILL_Z * math.sqrt(n) * _COST_TABLE_DRAW,
        "direct": n * _COST_DRAW,
    }


def choose_sampler(n: int, k: int) -> str:
    """The cheapest exact sampler for n values with k distinct ones."""
    costs = _sampler_costs(n, k)
    return min(costs, key=costs.__getitem__)


def resampling_grid(diffs: Sequence[float], resamples: int) -> float | None:
    """The finest bin width that keeps the bootstrap within its time budget; None if exact fits.

    Resampling cost grows with the number of distinct values. When thousands of cases each
    have their own difference, binning them to a grid far finer than their spread changes the
    interval by much less than the Monte Carlo error of 10,000 resamples does.
    """
    n = len(diffs)

    def cost(k: int) -> float:
        return min(_sampler_costs(n, k).values()) * resamples

    if cost(len(set(diffs))) <= _BOOTSTRAP_BUDGET_S:
        return None
    for grid in (1e-6, 1e-5, 1e-4, 1e-3, 1e-2):
        if cost(len({round(d / grid) for d in diffs})) <= _BOOTSTRAP_BUDGET_S:
            return grid
    return 1e-2


def bootstrap_means(values: Sequence[float], resamples: int, seed: int) -> list[float]:
    """Means of `resamples` resamples of `values` drawn with replacement (same size).

    Paired differences repeat (0 for unchanged cases, -1/0/1 for pass/fail), so a resample
    is best drawn as counts over the K distinct values rather than as n index draws. Three
    samplers draw from exactly the same distribution; the cheapest for n and K is used.
    """
    n = len(values)
    if n == 0:
        raise ValueError("no values to resample")
    rng = random.Random(seed)
    groups = sorted(Counter(values).items(), key=lambda kv: (-kv[1], kv[0]))
    k = len(groups)
    if k == 1:
        return [float(groups[0][0])] * resamples
    method = choose_sampler(n, k)
    if method == "direct":
        pool = list(values)
        return [math.fsum(rng.choices(pool, k=n)) / n for _ in range(resamples)]
    if method == "poisson":
        return _poisson_fill_means(rng, groups, n, resamples)
    return [_multinomial_mean(rng.random, groups, n) for _ in range(resamples)]
