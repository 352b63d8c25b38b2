"""Distribution functions the gate and the calibration floors need: Student t, normal,
binomial, and the exact (Clopper-Pearson) interval of a share. Pure, stdlib only.

scipy would be the usual source; these are written out so the package needs no numeric
library. Each is checked against scipy's values in tests/test_distributions.py.
"""

from __future__ import annotations

import math
from statistics import NormalDist

_BIG = 1e3  # above this, log-gamma differences are taken from Stirling's series (see _log_beta)


def _stirling_tail(z: float) -> float:
    """log Gamma(z) minus its leading Stirling terms; the series is exact to 1e-20 for z >= 1e3."""
    z2 = z * z
    return 1.0 / (12.0 * z) - 1.0 / (360.0 * z * z2) + 1.0 / (1260.0 * z * z2 * z2)


def _log_beta(a: float, b: float) -> float:
    """log B(a, b) = lgamma(a) + lgamma(b) - lgamma(a + b), without cancellation for large a.

    lgamma(5e5) is about 6e6, so subtracting two such values loses ~1e-9 in the log. For a
    large argument the difference log Gamma(big) - log Gamma(big + small) is computed from
    Stirling's series with log1p instead, which keeps full precision.
    """
    big, small = (a, b) if a >= b else (b, a)
    if big < _BIG:
        return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    diff = (
        -small * math.log(big)
        - (big + small - 0.5) * math.log1p(small / big)
        + small
        + _stirling_tail(big)
        - _stirling_tail(big + small)
    )
    return math.lgamma(small) + diff


def _beta_cf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta (modified Lentz; Numerical Recipes 6.4)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    # Converges in O(sqrt(max(a, b))) steps where it is used (x below the mean), so the cap
    # only guards against a bug, never against a legitimate input.
    for m in range(1, 200_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        step = d * c
        h *= step
        if abs(step - 1.0) < 1e-16:
            return h
    raise ArithmeticError(f"incomplete beta did not converge for a={a}, b={b}, x={x}")


def reg_inc_beta(a: float, b: float, x: float, y: float | None = None) -> tuple[float, float]:
    """(I_x(a, b), 1 - I_x(a, b)), each computed where it is small so neither loses digits.

    `y` is 1 - x when the caller knows it more precisely than 1 - x in floating point (the
    t distribution does: x = df/(df + t^2), y = t^2/(df + t^2)).
    """
    if a <= 0 or b <= 0:
        raise ValueError("a and b must be positive")
    y = 1.0 - x if y is None else y
    if x <= 0.0:
        return 0.0, 1.0
    if y <= 0.0:
        return 1.0, 0.0
    # Take each log from the smaller of x and y: log(x) of a rounded x near 1 would be off by
    # 1e-16 absolutely, which a = 5e5 magnifies to 5e-11 in the result.
    log_x = math.log1p(-y) if x > 0.5 else math.log(x)
    log_y = math.log1p(-x) if y > 0.5 else math.log(y)
    log_front = a * log_x + b * log_y - _log_beta(a, b)
    if x < (a + 1.0) / (a + b + 2.0):
        lower = math.exp(log_front) * _beta_cf(a, b, x) / a
        return lower, 1.0 - lower
    upper = math.exp(log_front) * _beta_cf(b, a, y) / b
    return 1.0 - upper, upper


def t_sf(t: float, df: float) -> float:
    """P(T > t) for Student's t with `df` degrees of freedom (df may be fractional or inf)."""
    if df <= 0:
        raise ValueError("df must be positive")
    if math.isnan(t):
        return math.nan
    if math.isinf(df):
        return norm_sf(t)
    if math.isinf(t):
        return 0.0 if t > 0 else 1.0
    t2 = t * t
    x, y = df / (df + t2), t2 / (df + t2)
    tail = 0.5 * reg_inc_beta(df / 2.0, 0.5, x, y)[0]  # P(|T| > |t|) / 2
    return tail if t >= 0 else 1.0 - tail


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t."""
    return t_sf(-t, df)


def _t_log_pdf(t: float, df: float) -> float:
    return (
        math.lgamma((df + 1) / 2)
        - math.lgamma(df / 2)
        - 0.5 * math.log(df * math.pi)
        - (df + 1) / 2 * math.log1p(t * t / df)
    )


def t_ppf(p: float, df: float) -> float:
    """Quantile of Student's t: the t with P(T <= t) = p. Relative accuracy ~1e-12.

    Closed forms for df = 1 and 2; otherwise Newton's method on log P(T > t) from a
    Cornish-Fisher start, kept inside a bracket so it cannot wander off in the far tail.
    """
    if not 0.0 <= p <= 1.0 or df <= 0:
        raise ValueError("need 0 <= p <= 1 and df > 0")
    if p == 0.0:
        return -math.inf
    if p == 1.0:
        return math.inf
    if p == 0.5:
        return 0.0
    if math.isinf(df):
        return norm_ppf(p)
    # Solve in the upper tail q = P(T > t) <= 1/2 and mirror: no digits lost near p = 1.
    sign, q = (1.0, 1.0 - p) if p > 0.5 else (-1.0, p)
    if df == 1:
        return sign / math.tan(math.pi * q)  # cot(pi q): tan(pi (1/2 - q)) loses tiny q
    if df == 2:
        return sign * (1.0 - 2.0 * q) / math.sqrt(2.0 * q * (1.0 - q))
    z = -norm_ppf(q)
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    t = z + g1 / df + g2 / df**2 + g3 / df**3
    lo, hi = 0.0, max(2.0 * t, 1.0)
    while t_sf(hi, df) >= q:
        lo, hi = hi, 2.0 * hi
    if not lo < t < hi:
        t = (lo + hi) / 2
    log_q = math.log(q)
    for _ in range(200):
        sf = t_sf(t, df)
        if sf > q:
            lo = t
        else:
            hi = t
        # Newton on g(t) = log sf(t) - log q, whose slope is -pdf/sf.
        step = (math.log(sf) - log_q) * sf / math.exp(_t_log_pdf(t, df)) if sf > 0 else -math.inf
        new = t + step
        if not lo < new < hi:
            new = (lo + hi) / 2
        if abs(new - t) <= 1e-14 * max(1.0, abs(t)):
            return sign * new
        t = new
    return sign * t


_NORMAL = NormalDist()


def norm_ppf(p: float) -> float:
    """Standard normal quantile (Wichura's AS241, as in statistics.NormalDist)."""
    return _NORMAL.inv_cdf(p)


def norm_sf(x: float) -> float:
    """P(Z > x) for a standard normal, accurate far into the upper tail."""
    return 0.5 * math.erfc(x / math.sqrt(2.0))


def binom_pmf(k: int, n: int, p: float) -> float:
    """P(X = k) for X ~ Binomial(n, p)."""
    if not 0 <= k <= n:
        return 0.0
    if p <= 0.0 or p >= 1.0:
        return float(k == (0 if p <= 0.0 else n))
    log_c = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
    return math.exp(log_c + k * math.log(p) + (n - k) * math.log1p(-p))


def binom_sf(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p) (note: >=, the tail a one-sided exact test uses)."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    if p <= 0.0:
        return 0.0
    if p >= 1.0:
        return 1.0
    return reg_inc_beta(k, n - k + 1, p, 1.0 - p)[0]


def binom_cdf(k: int, n: int, p: float) -> float:
    """P(X <= k) for X ~ Binomial(n, p)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    if p <= 0.0:
        return 1.0
    if p >= 1.0:
        return 0.0
    return reg_inc_beta(k + 1, n - k, p, 1.0 - p)[1]


def _rising_root(f: object, target: float) -> float:
    """p in [0, 1] with f(p) = target for a function rising in p (bisection to 1e-18)."""
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if f(mid) < target:  # type: ignore[operator]
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def clopper_pearson(num: int, n: int, alpha: float) -> tuple[float, float]:
    """The exact interval for a share num/n whose ends each miss with chance at most alpha.

    Both ends solve a rising binomial tail: P(X >= num | low) = alpha and
    P(X >= num + 1 | high) = 1 - alpha (the complement of the falling P(X <= num))."""
    if n <= 0:
        return 0.0, 1.0
    low = 0.0 if num <= 0 else _rising_root(lambda p: binom_sf(num, n, p), alpha)
    high = 1.0 if num >= n else _rising_root(lambda p: binom_sf(num + 1, n, p), 1 - alpha)
    return low, high
