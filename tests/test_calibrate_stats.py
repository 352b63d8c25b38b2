"""Cohen's kappa and its interval: against the delta method and by seeded simulation."""

from __future__ import annotations

import random

import pytest

from evals.calibrate.stats import LABELS, cohen_kappa, kappa_interval


def _pairs(table: dict[tuple[str, str], int]) -> list[tuple[str, str]]:
    return [cell for cell, k in table.items() for _ in range(k)]


def _kappa_of(p: dict[tuple[str, str], float]) -> float:
    row = {i: sum(p[(i, j)] for j in LABELS) for i in LABELS}
    col = {j: sum(p[(i, j)] for i in LABELS) for j in LABELS}
    p_o = sum(p[(i, i)] for i in LABELS)
    p_e = sum(row[i] * col[i] for i in LABELS)
    return (p_o - p_e) / (1 - p_e)


def _delta_method_se(table: dict[tuple[str, str], int]) -> float:
    """The multinomial delta method done numerically: an independent route to the variance."""
    n = sum(table.values())
    cells = list(table)
    p = {c: table[c] / n for c in cells}
    h = 1e-6
    grad = {}
    for c in cells:
        up, down = dict(p), dict(p)
        up[c] += h
        down[c] -= h
        grad[c] = (_kappa_of(up) - _kappa_of(down)) / (2 * h)
    var = sum(
        grad[a] * grad[b] * ((p[a] if a == b else 0.0) - p[a] * p[b]) for a in cells for b in cells
    )
    return (var / n) ** 0.5


def test_kappa_of_the_textbook_table_is_0_4() -> None:
    # 50 answers: both pass 20, human pass/grader fail 5, human fail/grader pass 10, both fail 15.
    table = {("pass", "pass"): 20, ("pass", "fail"): 5, ("fail", "pass"): 10, ("fail", "fail"): 15}
    assert cohen_kappa(_pairs(table)) == pytest.approx(0.4)


@pytest.mark.parametrize(
    "table",
    [
        {("pass", "pass"): 20, ("pass", "fail"): 5, ("fail", "pass"): 10, ("fail", "fail"): 15},
        {("pass", "pass"): 88, ("pass", "fail"): 3, ("fail", "pass"): 2, ("fail", "fail"): 7},
        {("pass", "pass"): 5, ("pass", "fail"): 9, ("fail", "pass"): 11, ("fail", "fail"): 6},
    ],
)
def test_the_interval_is_the_delta_method_wald_interval(table: dict[tuple[str, str], int]) -> None:
    pairs = _pairs(table)
    kappa = cohen_kappa(pairs)
    assert kappa is not None
    half = 1.959964 * _delta_method_se(table)
    lo, hi = kappa_interval(pairs)  # type: ignore[misc]
    assert lo == pytest.approx(max(-1.0, kappa - half), abs=1e-5)
    assert hi == pytest.approx(min(1.0, kappa + half), abs=1e-5)


def test_perfect_agreement_gets_a_real_interval_and_one_label_none() -> None:
    pairs = [("pass", "pass")] * 12 + [("fail", "fail")] * 3
    lo, hi = kappa_interval(pairs)  # type: ignore[misc]
    assert hi == 1.0 and 0.0 < lo < 0.9
    assert kappa_interval([("pass", "pass")] * 10) is None
    assert kappa_interval([]) is None


def _coverage(p: dict[tuple[str, str], float], n: int, reps: int, seed: int) -> float:
    rng = random.Random(seed)
    true = _kappa_of(p)
    cells, weights = list(p), list(p.values())
    hit = done = 0
    for _ in range(reps):
        pairs = rng.choices(cells, weights, k=n)
        ci = kappa_interval(pairs)
        if ci is None:
            continue
        done += 1
        hit += ci[0] <= true <= ci[1]
    return hit / done


@pytest.mark.parametrize(("n", "floor", "ceiling"), [(200, 0.93, 0.97), (60, 0.91, 0.975)])
def test_the_95_percent_interval_covers_the_true_kappa_about_95_percent_of_the_time(
    n: int, floor: float, ceiling: float
) -> None:
    # A judge that agrees with people on about 90 % of facts, 70 % of them stated.
    p = {
        ("pass", "pass"): 0.65,
        ("pass", "fail"): 0.05,
        ("fail", "pass"): 0.05,
        ("fail", "fail"): 0.25,
    }
    assert floor <= _coverage(p, n, reps=2000, seed=7) <= ceiling
