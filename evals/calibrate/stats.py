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
