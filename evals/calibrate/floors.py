"""Floors for calibration figures, decided on confidence bounds, not point estimates.

Pure functions; the exact interval is evals/distributions.py's, the one the gate uses. A point estimate against a floor passes by luck: with 20 wrong
answers a check set that truly catches 90% of them showed at least 95% (19 or 20 of 20) in
39% of samples. So a floor is met only when the lower end of the figure's two-sided
1 - 2 alpha exact (Clopper-Pearson) interval is at or above it (a one-sided test at alpha),
missed when the upper end is below it, and undecided in between, which says how many more
labelled answers would tell. Kappa floors use its interval's lower end the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

from evals.maths.distributions import clopper_pearson

ALPHA = 0.05  # one-sided: a floor met by luck at most 5% of the time


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
