"""The gate's error-rate test: errors left out never hide a B that errors more than A."""

from __future__ import annotations

import pytest

from evals.compare import gate as g
from evals.compare.epochs import CaseOutcome as C
from evals.compare.errorrate import ErrorCounts, count_errors, error_rate_test


def test_counts_split_cases_by_the_run_they_errored_in() -> None:
    c = count_errors(
        [
            (True, False, 1, 1),
            (False, True, 1, 0),
            (False, True, 0, 0),
            (True, True, 1, 1),
            (False, False, 1, 1),
        ]
    )
    assert (c.n_cases, c.a_only, c.b_only, c.both) == (5, 1, 2, 1)
    assert c.share_a == pytest.approx(0.4) and c.share_b == pytest.approx(0.6)


@pytest.mark.parametrize("a_only,b_only", [(0, 5), (3, 12), (10, 10), (12, 3), (0, 0)])
def test_the_p_value_is_the_one_sided_exact_binomial_as_scipy_computes_it(
    a_only: int, b_only: int
) -> None:
    stats = pytest.importorskip("scipy.stats")
    t = error_rate_test(ErrorCounts(400, a_only, b_only, 0), 0.05)
    m = a_only + b_only
    want = stats.binomtest(b_only, m, 0.5, alternative="greater").pvalue if m else 1.0
    assert t.p_value == pytest.approx(want, rel=1e-9)


def test_b_erroring_on_twelve_cases_that_a_scored_is_worse_by_the_test() -> None:
    t = error_rate_test(ErrorCounts(200, 0, 12, 0), 0.05)
    assert t.by_test and t.worse and t.p_value == pytest.approx(2**-12)


def test_equal_error_rates_are_not_worse() -> None:
    t = error_rate_test(ErrorCounts(200, 9, 11, 1), 0.05)
    assert not t.worse and "B errors no more" not in t.sentence()


def test_the_share_rule_catches_what_the_test_cannot_at_small_n() -> None:
    # 3 of 20 cases errored in B only: p = 1/8 is far from 0.05, but 15% > 2 x 0% + 2 points.
    t = error_rate_test(ErrorCounts(20, 0, 3, 0), 0.05)
    assert not t.by_test and t.by_share and t.worse
    assert not error_rate_test(ErrorCounts(200, 2, 4, 0), 0.05).by_share  # 2% <= 2% + 2


def _scored(n_pass: int, n_fail: int) -> list[C]:
    return [C(f"p{i}", 1.0, 1.0) for i in range(n_pass)] + [
        C(f"f{i}", 0.0, 0.0) for i in range(n_fail)
    ]


def test_a_b_whose_errors_hide_breaks_is_inconclusive_not_pass() -> None:
    # 12 cases that pass in A error in B: left out, the other 188 are unchanged (PASS).
    d = g.decide(_scored(120, 68), errors=ErrorCounts(200, 0, 12, 0))
    assert d.readings[g.LEFT_OUT].verdict == "PASS"
    assert (d.verdict, d.exit_code, d.code) == ("INCONCLUSIVE", 3, "error-rate")
    assert d.n_errored == 12 and d.errors is not None and d.errors.worse
    assert "B's errors could hide breaks" in d.reason and "12 in B only" in d.reason


def test_errors_in_both_runs_alike_leave_the_verdict_to_the_scored_cases() -> None:
    d = g.decide(_scored(120, 70), errors=ErrorCounts(200, 5, 5, 0))
    assert (d.verdict, d.code) == ("PASS", "no-evidence") and d.n_errored == 10
    assert set(d.readings) == {g.LEFT_OUT}  # errors are not undecided: one reading
    assert "10 case(s) with an errored attempt left out" in d.reason


def test_a_fail_stays_a_fail_whatever_b_errored_on() -> None:
    cases = _scored(150, 30) + [C(f"b{i}", 1.0, 0.0) for i in range(20)]
    d = g.decide(cases, errors=ErrorCounts(220, 0, 20, 0))
    assert d.verdict == "FAIL" and d.code == "worse"


def test_never_mode_ignores_the_error_rate() -> None:
    d = g.decide(_scored(120, 68), "never", errors=ErrorCounts(200, 0, 12, 0))
    assert (d.verdict, d.code) == ("PASS", "gate-off")
