"""One figure of the gate: its test and power by kind, noninferiority, and how it is shown."""

from __future__ import annotations

import pytest

from evals.compare.epochs import CaseOutcome as C
from evals.compare.figures import figure, noninferiority, same_signal, shown
from evals.compare.intervals import Interval


def _figure(cases: list[C], level: float = 0.05):
    return figure("pass rate", cases, 0.05, level, 0.05, 0.8, True, True)


def test_noninferiority_reads_the_interval_against_the_margin() -> None:
    assert noninferiority(-0.01, 0.02) == "noninferior"
    assert noninferiority(-0.05, 0.02, -0.03) == "inferior"
    assert noninferiority(-0.05, 0.02, 0.01) == "undetermined"
    with pytest.raises(ValueError):
        noninferiority(-0.01, -0.02)


def test_same_signal() -> None:
    x = [C("a", 1.0, 0.0), C("b", 0.0, 0.0), C("c", 0.0, 1.0)]
    assert same_signal(x, [C("a", 1.0, 0.5), C("b", 0.3, 0.3), C("c", 0.2, 0.7)])
    assert not same_signal(x, [C("a", 1.0, 0.5), C("b", 0.3, 0.2), C("c", 0.2, 0.7)])
    assert not same_signal(x, [C("a", 0.0, 0.5), C("b", 0.3, 0.3), C("c", 0.7, 0.2)])


def test_each_kind_of_figure_has_the_power_of_its_own_test() -> None:
    exact = _figure([C(f"c{i}", 1.0, 0.0 if i < 3 else 1.0) for i in range(60)])
    assert exact.mde_kind == "exact" and exact.smallest_p == 1 / 8 and not exact.reachable
    t = _figure([C(f"c{i}", 0.5, 0.4 + 0.01 * (i % 7), cluster=f"g{i % 4}") for i in range(40)])
    assert t.mde_kind == "t" and t.reachable and t.can_fail and t.mde > 0
    # A t test's smallest p: every case dropping by 100 points, with the noise seen.
    assert t.smallest_p is not None and t.smallest_p == t.smallest_p_at_n < 1e-6
    none = _figure([C(f"c{i}", 1.0, 0.0) for i in range(4)])
    assert none.mde_kind == "none" and none.mde is None
    flat = _figure([C(f"c{i}", 0.5, 0.3) for i in range(10)])  # every change equal: no noise
    assert flat.mde_kind == "unknown" and flat.mde is None and flat.interval.width > 0


def test_shown_uses_points_for_rates_and_the_score_scale_for_scores() -> None:
    ci = Interval(-0.02, -0.041, 0.001, 0.95, "paired t (99 df)", 100)
    assert shown(ci) == "B - A = -2.0 points (95% CI -4.1 to +0.1)"
    assert shown(ci, "mean score") == "B - A = -0.020 (95% CI -0.041 to +0.001)"
