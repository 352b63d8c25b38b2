"""Agreement between two raters of pass/fail, as pure functions."""

from __future__ import annotations

from statistics import NormalDist

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


def kappa_interval(
    pairs: list[tuple[str, str]], z: float | None = None, *, alpha: float | None = None
) -> tuple[float, float] | None:
    """A two-sided interval for Cohen's kappa; None where kappa itself is undefined.

    The level is 1 - alpha (each end missing at most about alpha / 2), or given as the normal
    quantile z (default: 95 %). See `kappa_table_interval` for the method.
    """
    return kappa_table_interval(confusion(pairs), _z_of(z, alpha))


def _z_of(z: float | None, alpha: float | None) -> float:
    if alpha is not None:
        if not 0.0 < alpha < 1.0:
            raise ValueError(f"alpha must lie between 0 and 1, not {alpha}")
        return NormalDist().inv_cdf(1 - alpha / 2)
    return _Z95 if z is None else z


_Z95 = 1.959963984540054


def kappa_table_interval(
    table: dict[str, dict[str, int]], z: float = _Z95
) -> tuple[float, float] | None:
    """The kappa interval of a confusion table (rows human, columns grader), at normal quantile z.

    The large-sample variance of Fleiss, Cohen and Everitt (1969) taken at z * z / 4 added to
    each of the four cells, the way Agresti and Coull add z * z / 2 to each side of a share:
    with a skewed prevalence the plain Wald interval, centred on an estimate pinned near 0 by
    an empty or near-empty cell, covered the true kappa 61-91 % of the time at n <= 60; with
    the added counts it covers at least 94 % (exact enumeration at n = 20, 40, 60 and 200,
    balanced and 85/15 labels, kappa 0.4 to 0.8; `bench/kappa_coverage.py` measures it by
    simulation). The interval always holds the estimate itself, and is clipped to [-1, 1].
    """
    cells = [table[h][j] for h in LABELS for j in LABELS]
    n = sum(cells)
    raw = _kappa_of_cells([c / n for c in cells]) if n else None
    if raw is None:
        return None
    add = z * z / 4
    total = n + 4 * add
    p11, p12, p21, p22 = ((c + add) / total for c in cells)
    kappa = _kappa_of_cells([p11, p12, p21, p22])
    assert kappa is not None  # every adjusted cell is positive, so chance agreement is below 1
    r1, c1 = p11 + p12, p11 + p21
    r2, c2 = 1 - r1, 1 - c1
    p_e = r1 * c1 + r2 * c2
    within = p11 * (1 - (r1 + c1) * (1 - kappa)) ** 2 + p22 * (1 - (r2 + c2) * (1 - kappa)) ** 2
    across = (1 - kappa) ** 2 * (p12 * (c1 + r2) ** 2 + p21 * (c2 + r1) ** 2)
    var = max(0.0, within + across - (kappa - p_e * (1 - kappa)) ** 2) / (total * (1 - p_e) ** 2)
    half = z * var**0.5
    return max(-1.0, min(raw, kappa - half)), min(1.0, max(raw, kappa + half))


def _kappa_of_cells(p: list[float]) -> float | None:
    """Kappa of cell shares (both pass, human pass/grader fail, human fail/grader pass, both fail)."""
    p11, p12, p21, p22 = p
    r1, c1 = p11 + p12, p11 + p21
    p_e = r1 * c1 + (1 - r1) * (1 - c1)
    if p_e >= 1.0 - 1e-12:
        return None
    return (p11 + p22 - p_e) / (1.0 - p_e)
