"""Floors for calibration figures, decided on confidence bounds, not point estimates.

Pure functions, stdlib only. A point estimate against a floor passes by luck: with 20 wrong
answers a check set that truly catches 90% of them showed at least 95% (19 or 20 of 20) in
39% of samples. So a floor is met only when the lower end of the figure's two-sided
1 - 2 alpha exact (Clopper-Pearson) interval is at or above it (a one-sided test at alpha),
missed when the upper end is below it, and undecided in between, which says how many more
labelled answers would tell. Kappa floors use its interval's lower end the same way.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

ALPHA = 0.05  # one-sided: a floor met by luck at most 5% of the time


def _log_pmf(k: int, n: int, p: float) -> float:
    return (
        math.lgamma(n + 1)
        - math.lgamma(k + 1)
        - math.lgamma(n - k + 1)
        + k * math.log(p)
        + (n - k) * math.log1p(-p)
    )


def binom_tail(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p)."""
    if k <= 0:
        return 1.0
    if k > n or p <= 0.0:
        return 0.0
    if p >= 1.0:
        return 1.0
    return min(1.0, math.fsum(math.exp(_log_pmf(i, n, p)) for i in range(k, n + 1)))


def _bisect(f: object, target: float) -> float:
    """p in [0, 1] with f(p) = target, f rising in p."""
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if f(mid) < target:  # type: ignore[operator]
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def clopper_pearson(num: int, n: int, alpha: float = ALPHA) -> tuple[float, float]:
    """The exact interval for a share num/n whose ends each miss with chance at most alpha."""
    if n <= 0:
        return 0.0, 1.0
    low = 0.0 if num == 0 else _bisect(lambda p: binom_tail(num, n, p), alpha)
    high = 1.0 if num == n else _bisect(lambda p: binom_tail(num + 1, n, p), 1 - alpha)
    return low, high


@dataclass(frozen=True)
class FloorCheck:
    """One figure against its floor: the estimate, its bounds and the three-way verdict."""

    name: str
    value: float | None
    low: float
    high: float
    floor: float
    n: int

    @property
    def verdict(self) -> str:
        """PASS when the lower bound meets the floor, FAIL when the upper is below it."""
        if self.value is None or self.n == 0:
            return "INCONCLUSIVE"
        if self.low >= self.floor:
            return "PASS"
        return "FAIL" if self.high < self.floor else "INCONCLUSIVE"

    def sentence(self, unit: str = "%") -> str:
        """`95.4% (lower bound), floor 95%: PASS` with the interval."""
        scale = 100 if unit == "%" else 1

        def f(x: float) -> str:
            return f"{x * scale:.1f}%" if unit == "%" else f"{x:.3f}"

        floor = f"{self.floor * scale:g}%" if unit == "%" else f"{self.floor:g}"
        if self.value is None:
            return f"unknown (n = 0), floor {floor}: INCONCLUSIVE"
        why = {
            "PASS": "its lower bound meets the floor",
            "FAIL": "its upper bound is below the floor",
            "INCONCLUSIVE": "the floor lies inside its interval: more labelled answers would tell",
        }[self.verdict]
        return (
            f"{f(self.value)}, bounds [{f(self.low)}, {f(self.high)}] (one-sided "
            f"{1 - ALPHA:.0%} each), floor {floor}: {self.verdict} ({why})"
        )


def rate_floor(name: str, num: int, n: int, floor: float, alpha: float = ALPHA) -> FloorCheck:
    """A share against its floor on its exact bounds."""
    low, high = clopper_pearson(num, n, alpha)
    return FloorCheck(name, num / n if n else None, low, high, floor, n)
