"""The exact one-sided McNemar test, and what the gate's tests can detect: power and MDE.

Pure functions, stdlib only. A is the run before the change, B the run after; the test asks
"is B worse?". NOTE: evals.compare.stats.McNemar (the two-sided test the sealed pile uses)
calls the broken count `b`; here `b` is fixed (fail -> pass) and `c` broken (pass -> fail).
Results carry `fixed` / `broken` fields so callers need not remember which.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from statistics import NormalDist

from evals.maths.distributions import binom_pmf, binom_sf, t_ppf


@dataclass(frozen=True)
class McNemarOneSided:
    """Exact one-sided McNemar test that B is worse: broken ~ Binomial(fixed + broken, 1/2)."""

    fixed: int  # failed in A, passed in B (b)
    broken: int  # passed in A, failed in B (c)
    p_value: float  # P(X >= broken); 1.0 when there is no discordant pair

    @property
    def n_discordant(self) -> int:
        return self.fixed + self.broken


def _half_binomial_upper_tail(k: int, n: int) -> Fraction:
    """P(X >= k) for X ~ Binomial(n, 1/2), exactly, summing whichever tail is shorter."""
    if k <= 0:
        return Fraction(1)
    if k > n:
        return Fraction(0)
    # C(n, i) by integer recurrence: one small multiply and divide per term.
    if n - k + 1 <= k:  # sum i = k..n, starting from C(n, n) = 1
        term = total = 1
        for i in range(n, k, -1):  # term: C(n, i) -> C(n, i - 1)
            term = term * i // (n - i + 1)
            total += term
        return Fraction(total, 2**n)
    term = total = 1  # sum i = 0..k-1, then take the complement
    for i in range(k - 1):
        term = term * (n - i) // (i + 1)
        total += term
    return 1 - Fraction(total, 2**n)


def mcnemar_one_sided(b: int, c: int) -> McNemarOneSided:
    """Exact one-sided p that B is worse: b = fixed (fail -> pass), c = broken (pass -> fail).

    Under no change each discordant pair is equally likely to be either, so the broken count
    is Binomial(b + c, 1/2) and p = P(X >= c). Integer arithmetic: exact at any size.
    """
    if b < 0 or c < 0:
        raise ValueError("b and c must be non-negative")
    return McNemarOneSided(b, c, float(_half_binomial_upper_tail(c, b + c)))


@lru_cache(maxsize=64)
def min_discordant_for(alpha: float, two_sided: bool = False) -> int:
    """Fewest discordant pairs at which the exact test can reach p <= alpha at all.

    The smallest p the exact test can give with m discordant pairs is 0.5^m (every one of
    them broken); two-sided, twice that. With fewer pairs the test cannot fire whatever
    happened, and a PASS says nothing. One-sided at 0.05 that is 5 pairs (1/32 = 0.031);
    two-sided at 0.05 it is 6 (2/32 = 0.0625 > 0.05 with 5).
    """
    if not 0.0 < alpha < 1.0:
        raise ValueError("alpha must be between 0 and 1")
    limit = Fraction(alpha) / (2 if two_sided else 1)  # exact value of the float alpha
    m = 0
    while Fraction(1, 2**m) > limit:
        m += 1
    return m


# A tail that equals alpha exactly (alpha = 1/32 with 5 pairs) must count as reaching it, so
# the decision and the critical values below compare with the same tiny relative slack.
ALPHA_SLACK = 1e-9


def reaches(p: float, level: float) -> bool:
    """Whether a p-value reaches the level (p <= level, up to rounding of an exact tie)."""
    return p <= level * (1 + ALPHA_SLACK)


def smallest_p(n_discordant: int) -> float:
    """The smallest one-sided p the exact test can give with this many discordant pairs:
    0.5^m, when every one of them broke."""
    return 0.5**n_discordant


class _CriticalTable:
    """k*(m) for m = 0, 1, ...: the smallest broken count whose exact tail P(X >= k), X ~
    Binomial(m, 1/2), reaches alpha; None where not even m of m does.

    Integer arithmetic throughout: T = sum_{i >= k} C(m, i) and C(m, k - 1) are carried
    from m to m + 1 (T(k, m + 1) = 2 T(k, m) + C(m, k - 1)), so each further m costs a few
    big-integer additions and the table is exact at any size. It grows on demand.
    """

    def __init__(self, alpha: float) -> None:
        limit = Fraction(alpha * (1 + ALPHA_SLACK))  # a float's exact value: den is 2^e
        self.num, self.den = limit.numerator, limit.denominator
        self.values: list[int | None] = []
        self.k, self.tail, self.below = 0, 1, 0  # m = 0: T(0, 0) = 1, C(0, -1) = 0

    def upto(self, hi: int) -> list[int | None]:
        num, den, out = self.num, self.den, self.values
        k, tail, below = self.k, self.tail, self.below
        for m in range(len(out), hi + 1):
            if m:
                tail = 2 * tail + below  # T(k, m) from T(k, m - 1) and C(m - 1, k - 1)
                below = below * m // (m - k + 1) if k else 0  # C(m, k - 1)
            scale = num << m  # tail / 2^m <= num / den  <=>  tail * den <= num * 2^m
            if den > scale:  # 0.5^m > alpha: nothing reaches it
                out.append(None)
                continue
            at_k = below * (m - k + 1) // k if k else 1  # C(m, k)
            while tail * den > scale:  # up: T(k + 1) = T(k) - C(m, k)
                tail -= at_k
                below, at_k = at_k, at_k * (m - k) // (k + 1)
                k += 1
            while k > 0 and (tail + below) * den <= scale:  # down while it still reaches
                tail += below
                at_k, below = below, below * (k - 1) // (m - k + 2) if k > 1 else 0
                k -= 1
            out.append(k)
        self.k, self.tail, self.below = k, tail, below
        return out


_TABLES: dict[float, _CriticalTable] = {}


def _critical_table(alpha: float, hi: int) -> list[int | None]:
    """The critical values for m = 0..hi (at least), kept per alpha for later calls."""
    if alpha not in _TABLES:
        if len(_TABLES) >= 32:  # a long simulation over many alphas: start afresh
            _TABLES.clear()
        _TABLES[alpha] = _CriticalTable(alpha)
    return _TABLES[alpha].upto(hi)


def critical_broken(m: int, alpha: float) -> int | None:
    """Smallest broken count the exact one-sided test at alpha rejects with m discordant pairs."""
    return _critical_table(alpha, m)[m]


def exact_mcnemar_power(n_pairs: int, p_discordant: float, delta: float, alpha: float) -> float:
    """Power of the one-sided exact McNemar test at level alpha for a true drop of `delta`.

    Each of the n pairs is discordant with probability psi = p_discordant; a discordant pair
    is broken with probability q = (psi + delta) / (2 psi), so the pass rate drops by
    psi (2q - 1) = delta. Power = sum over m of P(M = m) P(broken >= k*(m) | m), M ~
    Binomial(n, psi), k*(m) the exact test's critical value (none for small m: those terms
    add nothing, which is why small suites have so little power). Needs |delta| <= psi.
    """
    if n_pairs < 0 or not 0.0 <= p_discordant <= 1.0:
        raise ValueError("need n_pairs >= 0 and 0 <= p_discordant <= 1")
    if abs(delta) > p_discordant + 1e-12:
        raise ValueError(
            f"a drop of {delta} needs at least that share of discordant pairs, not {p_discordant}"
        )
    psi = p_discordant
    if n_pairs == 0 or psi == 0.0:
        return 0.0
    q = min(1.0, max(0.0, (psi + delta) / (2 * psi)))
    lo, weights = _discordant_weights(n_pairs, psi)
    table = _critical_table(alpha, lo + len(weights))
    total = math.fsum(
        w * t for w, t in zip(weights, _tails(table, lo, len(weights), q), strict=True)
    )
    return min(1.0, total)


@lru_cache(maxsize=256)
def _discordant_weights(n: int, psi: float) -> tuple[int, tuple[float, ...]]:
    """(lo, P(M = m) for m = lo, lo + 1, ...), M ~ Binomial(n, psi), within 9 sd of its mean.

    The terms left out weigh under 1e-18 in all, so the power costs O(sqrt n) terms; the
    cache lets mde_exact's bisection (psi fixed, delta varying) reuse them.
    """
    mean, sd = n * psi, math.sqrt(n * psi * (1 - psi))
    lo = max(0, math.floor(mean - 9 * sd - 5))
    hi = min(n, math.ceil(mean + 9 * sd + 5))
    return lo, tuple(binom_pmf(m, n, psi) for m in range(lo, hi + 1))


_RESEED = 32  # the running tail is recomputed from scratch this often, so errors cannot grow


def _tails(table: list[int | None], lo: int, count: int, q: float) -> list[float]:
    """P(X_m >= k*(m)), X_m ~ Binomial(m, q), for m = lo .. lo + count - 1 (0 where no k*).

    Consecutive m share almost all of their tail: P(X_{m+1} >= k) = P(X_m >= k) +
    q P(X_m = k - 1), and k*(m) moves by at most a step or two, each a single pmf term. So
    each m costs a few multiplications instead of an incomplete beta function; the tail is
    recomputed exactly every few dozen steps.
    """
    out: list[float] = []
    k = tail = at = None  # the current k, P(X_m >= k) and P(X_m = k - 1)
    odds = q / (1.0 - q) if 0.0 < q < 1.0 else None
    for i, m in enumerate(range(lo, lo + count)):
        want = table[m]
        if want is None:
            out.append(0.0)
            k = None
            continue
        if odds is None or k is None or i % _RESEED == 0:
            k, tail, at = want, binom_sf(want, m, q), binom_pmf(want - 1, m, q)
            out.append(tail)
            continue
        # m - 1 -> m at fixed k
        tail += q * at
        at = at * (1.0 - q) * m / (m - k + 1)
        while k < want:  # P(X >= k + 1) = P(X >= k) - P(X = k)
            at = at * odds * (m - k + 1) / k
            tail -= at
            k += 1
        while k > want:  # P(X >= k - 1) = P(X >= k) + P(X = k - 1)
            tail += at
            at = at / odds * (k - 1) / (m - k + 2) if k > 1 else 0.0
            k -= 1
        out.append(min(1.0, max(0.0, tail)))
    return out


def mde_exact(
    n: int,
    p_disc: float,
    alpha: float,
    power: float = 0.8,
    *,
    both_pass: float | None = None,
) -> float | None:
    """Smallest drop in pass rate the one-sided exact McNemar test detects with `power`.

    A drop adds flips to those the two runs show anyway. With `both_pass`, the share of
    cases that passed in both runs, the drop is read as B failing each case it would have
    passed with one extra chance h: that breaks h of the both-pass cases and undoes h of the
    fixed ones (half the observed discordance), so the discordance grows by delta (both -
    fixed) / (both + fixed). Without it every flip the drop makes is a new break (discordance
    plus delta, the cautious reading). Holding the discordance at the observed rate, as this
    did before, printed a drop detected with 70.5% power at n = 200 and 59.4% at n = 40,
    not 80% (tests/test_power.py simulates it through the gate). None when no drop, not even
    100 points, is detected with that power: exactly when n is below min_discordant_for(alpha)
    (with every pair broken the test rejects for sure, or never), e.g. 4 cases at alpha 0.05.
    """
    if n <= 0 or not 0.0 < power < 1.0 or n < min_discordant_for(alpha):
        return None
    growth = 1.0
    if both_pass is not None:
        fixed = p_disc / 2
        growth = (both_pass - fixed) / (both_pass + fixed) if both_pass + fixed > 0 else 1.0

    def power_at(delta: float) -> float:
        psi = min(1.0, max(delta, p_disc + growth * delta))
        return exact_mcnemar_power(n, psi, delta, alpha)

    # Power rises with delta (more flips, and a larger share of them breaks), so bisection
    # finds the threshold. The bracket starts near the normal approximation, so large
    # suites never evaluate the power at large drops (slow terms).
    z = NormalDist().inv_cdf(1 - alpha) + NormalDist().inv_cdf(power)
    hi = min(1.0, z * math.sqrt(p_disc + z * z / n / n))
    lo = 0.0
    while power_at(hi) < power:
        lo, hi = hi, min(1.0, 2 * hi)
    while hi - lo > 1e-5:  # 0.001 points
        mid = (lo + hi) / 2
        if power_at(mid) >= power:
            hi = mid
        else:
            lo = mid
    return hi


def mde_t(se: float, df: float, alpha: float, power: float = 0.8) -> float | None:
    """Smallest drop a one-sided t test with this SE and df detects with `power`.

    The SE is itself an estimate with df degrees of freedom, and so is the one a later run
    pair's test will use: the drop is c * se with c such that, over both SEs' spread (each
    sigma * sqrt(chi2_df / df)), the test rejects with `power`. Taking the SE as known, the
    shifted-t (t_{1-alpha, df} + t_{power, df}) * se printed a drop detected 55% of the time
    with clusters of 60, 10, 5, 3, 1 and 1 cases (about 1.4 df; tests/test_power.py). With
    many df the two agree. None when there is no SE (no noise estimate).
    """
    if not se > 0 or df <= 0:
        return None
    return _t_factor(round(df, 2), alpha, power) * se


def _chi_ratio_grid(df: float, k: int = 60) -> tuple[list[float], list[float]]:
    """Midpoints and weights of the law of sqrt(chi2_df / df), over where it has its mass
    (its sd is about 1 / sqrt(2 df)); the weights are normalised on the grid."""
    bottom, top = max(0.0, 1 - 6 / math.sqrt(df)), 1 + 8 / math.sqrt(df)
    h = (top - bottom) / k
    pts = [bottom + (i + 0.5) * h for i in range(k)]
    log_w = [(df - 1) * math.log(v) - df * v * v / 2 for v in pts]
    peak = max(log_w)
    w = [math.exp(x - peak) for x in log_w]
    total = math.fsum(w)
    return pts, [x / total for x in w]


@lru_cache(maxsize=256)
def _t_factor(df: float, alpha: float, power: float) -> float:
    """c with E[Phi(c U - t_{1-alpha, df} V)] = power, U and V independent sqrt(chi2_df / df):
    the chance that a drop of c times the printed SE is significant in a fresh pair."""
    crit = t_ppf(1 - alpha, df)
    grid = list(zip(*_chi_ratio_grid(df), strict=True))
    fresh = [(crit * v, wv) for v, wv in grid]
    root2 = math.sqrt(2.0)

    def power_at(c: float) -> float:  # Phi(x) = erfc(-x / sqrt 2) / 2
        return 0.5 * math.fsum(
            wu * wv * math.erfc((tv - c * u) / root2) for u, wu in grid for tv, wv in fresh
        )

    lo, hi = 0.0, crit + t_ppf(power, df)
    while power_at(hi) < power:
        lo, hi = hi, 2 * hi
        if hi > 1e6:  # a noise estimate so loose that no drop reaches the power
            return math.inf
    while hi - lo > 1e-3 * hi:
        mid = (lo + hi) / 2
        if power_at(mid) >= power:
            hi = mid
        else:
            lo = mid
    return hi
