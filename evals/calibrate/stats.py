"""Agreement between two raters of pass/fail, as pure functions."""

from __future__ import annotations

LABELS = ("pass", "fail")


def confusion(pairs: list[tuple[str, str]]) -> dict[str, dict[str, int]]:
    """Counts of (human, grader) label pairs: rows are the human label, columns the grader's."""
    table = {h: dict.fromkeys(LABELS, 0) for h in LABELS}
    for human, grader in pairs:
        table[human][grader] += 1
    return table


def agreement(pairs: list[tuple[str, str]]) -> float | None:
    """Share of pairs where grader and human agree; None when there are none."""
    return sum(h == j for h, j in pairs) / len(pairs) if pairs else None


def cohen_kappa(pairs: list[tuple[str, str]]) -> float | None:
    """Cohen's kappa for two raters: (p_o - p_e) / (1 - p_e); None when p_e is 1 (undefined)."""
    n = len(pairs)
    if not n:
        return None
    p_o = sum(h == j for h, j in pairs) / n
    p_e = sum(
        (sum(h == label for h, _ in pairs) / n) * (sum(j == label for _, j in pairs) / n)
        for label in LABELS
    )
    if p_e >= 1.0:
        return None
    return (p_o - p_e) / (1.0 - p_e)


def share(num: int, den: int) -> float | None:
    """num / den, or None when there is nothing to divide (a rate over n = 0 is unknown)."""
    return num / den if den else None


def kappa_interval(pairs: list[tuple[str, str]], z: float = 1.959964) -> tuple[float, float] | None:
    """A two-sided interval for Cohen's kappa (95 % by default); None where kappa is undefined.

    The large-sample variance of Fleiss, Cohen and Everitt (1969), clipped to [-1, 1]. Where
    that variance is 0 (every pair agrees) a Wald interval would be a single point, so the
    Wilson interval of the observed agreement is mapped through kappa with the chance
    agreement held fixed instead. Coverage is measured by seeded simulation in
    tests/test_calibrate_stats.py.
    """
    n = len(pairs)
    kappa = cohen_kappa(pairs)
    if kappa is None or not n:
        return None
    p = {(h, j): sum(1 for a, b in pairs if (a, b) == (h, j)) / n for h in LABELS for j in LABELS}
    row = {i: sum(p[(i, j)] for j in LABELS) for i in LABELS}
    col = {j: sum(p[(i, j)] for i in LABELS) for j in LABELS}
    p_e = sum(row[i] * col[i] for i in LABELS)
    p_o = sum(p[(i, i)] for i in LABELS)
    within = sum(p[(i, i)] * (1 - (row[i] + col[i]) * (1 - kappa)) ** 2 for i in LABELS)
    across = (1 - kappa) ** 2 * sum(
        p[(i, j)] * (col[i] + row[j]) ** 2 for i in LABELS for j in LABELS if i != j
    )
    var = (within + across - (kappa - p_e * (1 - kappa)) ** 2) / (n * (1 - p_e) ** 2)
    if var > 1e-12:
        half = z * var**0.5
        return max(-1.0, kappa - half), min(1.0, kappa + half)
    lo_o, hi_o = _wilson(round(p_o * n), n, z)
    return max(-1.0, (lo_o - p_e) / (1 - p_e)), min(1.0, (hi_o - p_e) / (1 - p_e))


def _wilson(k: int, n: int, z: float) -> tuple[float, float]:
    phat = k / n
    denom = 1 + z * z / n
    centre = (phat + z * z / (2 * n)) / denom
    half = z * ((phat * (1 - phat) / n + z * z / (4 * n * n)) ** 0.5) / denom
    return max(0.0, centre - half), min(1.0, centre + half)
