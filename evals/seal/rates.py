"""Sealed pass rates as pure arithmetic: pass and scored counts, Wilson and Newcombe intervals."""

from __future__ import annotations

import math
from typing import Any

Z95 = 1.959963984540054


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """Wilson score interval for k successes in n trials; None when n is 0."""
    if n <= 0:
        return None
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe_gap(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float, float] | None:
    """p1 - p2 with Newcombe's hybrid Wilson 95% interval (two independent samples)."""
    w1, w2 = wilson(k1, n1), wilson(k2, n2)
    if w1 is None or w2 is None:
        return None
    p1, p2 = k1 / n1, k2 / n2
    d = p1 - p2
    lo = d - math.sqrt((p1 - w1[0]) ** 2 + (w2[1] - p2) ** 2)
    hi = d + math.sqrt((w1[1] - p1) ** 2 + (p2 - w2[0]) ** 2)
    return d, lo, hi


def scored_counts(rows: list[dict[str, Any]]) -> tuple[int, int]:
    """Rows that passed, and rows scored (passed or failed): a pass rate's k and n."""
    passed = sum(1 for r in rows if r["status"] == "pass")
    return passed, passed + sum(1 for r in rows if r["status"] == "fail")
