"""The two-sided exact McNemar test, as the sealed pile reports it. Pure functions, no I/O.

`invoke diff`'s gate uses the one-sided test of evals.compare.power instead (and there b is
the fixed count, here it is the broken one).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class McNemar:
    """Exact McNemar test: b = passed in A and failed in B, c = the reverse."""

    b: int
    c: int
    p_value: float | None  # None when there are no discordant pairs

    @property
    def n_discordant(self) -> int:
        return self.b + self.c


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
