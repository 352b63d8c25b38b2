"""The gate's decisions: modes, errors read both ways, flaky cases, clusters and figures."""

from __future__ import annotations

import pytest

from evals.compare import gate as g
from evals.compare.epochs import CaseOutcome as C


def _suite(same_pass=150, same_fail=40, broken=4, fixed=6, **kw) -> list[C]:
    return (
        [C(f"s{i}", 1.0, 1.0, **kw) for i in range(same_pass)]
        + [C(f"f{i}", 0.0, 0.0, **kw) for i in range(same_fail)]
        + [C(f"b{i}", 1.0, 0.0, **kw) for i in range(broken)]
        + [C(f"x{i}", 0.0, 1.0, **kw) for i in range(fixed)]
    )


def test_significant_fixes_offset_breaks() -> None:
    d = g.decide(_suite())
    assert (d.verdict, d.exit_code) == ("PASS", 0)
    f = d.main.figures[0]
    assert f.interval.method == "tango + exact McNemar"
    assert f.interval.level == 0.95 and f.interval.width > 0
    assert f.mde is not None and f.mde_kind == "exact"
    assert g.decide(_suite(), "strict").verdict == "FAIL"  # strict does not offset


def test_significant_fails_on_real_drop() -> None:
    d = g.decide(_suite(broken=20, fixed=4))
    assert (d.verdict, d.exit_code) == ("FAIL", 1)
    f = d.main.figures[0]
    # sum of C(24, k) for k >= 20, over 2^24
    assert f.p_value == (10626 + 2024 + 276 + 24 + 1) / 2**24
    assert "20 broken vs 4 fixed" in d.reason


def test_tiny_suite_that_looks_worse_is_inconclusive_not_pass() -> None:
    four = [C(f"a{i}", 1.0, 0.0) for i in range(4)]
    d = g.decide(four)
    assert (d.verdict, d.exit_code) == ("INCONCLUSIVE", 3)
    f = d.main.figures[0]
    assert "no result at this n could be significant" in d.reason
    assert f.smallest_p == 0.0625 and not f.reachable and f.mde is None and f.mde_kind == "none"
    five = [C(f"a{i}", 1.0, 0.0) for i in range(5)]
    assert g.decide(five).verdict == "FAIL"  # p = 1/32 <= 0.05, one-sided
    assert g.decide(five, alpha=0.01).verdict == "INCONCLUSIVE"  # 1/32 > 0.01


def test_a_large_suite_with_few_flips_passes_when_its_interval_rules_out_the_margin() -> None:
    # 3 broken, 2 fixed of 200: the exact test cannot reach 0.05 with 5 pairs, but the
    # interval shows B is within a few points: that is evidence, not an inconclusive gate.
    d = g.decide(_suite(same_pass=150, same_fail=45, broken=3, fixed=2))
    assert d.verdict == "PASS"
    assert d.main.figures[0].interval.low > -0.05


def test_review_rows_that_decide_the_verdict_make_it_inconclusive() -> None:
    cases = _suite() + [C(f"e{i}", 1.0, None) for i in range(12)]
    d = g.decide(cases)
    assert (d.verdict, d.exit_code, d.code) == ("INCONCLUSIVE", 3, "undecided-rows")
    assert d.readings[g.WORST].verdict == "FAIL"
    assert d.readings[g.LEFT_OUT].verdict == "PASS"
    assert d.n_unknown == 12 and d.n_review == 12 and d.n_errored == 0
    assert "review rows decide it" in d.reason and "12 in review" in d.reason
    assert d.main is d.readings[g.LEFT_OUT]  # the figures the tables show


def test_undecided_outcomes_that_do_not_matter_keep_the_verdict_and_both_readings() -> None:
    d = g.decide(_suite() + [C("e", 1.0, None), C("both", None, None)])
    assert d.verdict == "PASS" and d.n_unknown == 2 and d.code == "no-evidence"
    assert set(d.readings) == {g.WORST, g.LEFT_OUT}
    assert d.readings[g.WORST].n_paired == 202  # undecided in both: in the worst case too
    strict = g.decide([C("a", 1.0, 1.0), C("e", 1.0, None)], "strict")
    assert strict.verdict == "INCONCLUSIVE"  # broken if it failed, clean if not


def test_cases_undecided_in_both_runs_take_part_in_the_worst_case() -> None:
    # 40 cases: 4 in review in both runs, 6 broken and 1 fixed. Left out: p = 8/128 = 0.0625
    # (PASS). Read as a pass in A and a fail in B they are 4 more breaks: p = 12/2048.
    cases = (
        [C(f"s{i}", 1.0, 1.0) for i in range(29)]
        + [C(f"b{i}", 1.0, 0.0) for i in range(6)]
        + [C("x", 0.0, 1.0)]
        + [C(f"r{i}", None, None) for i in range(4)]
    )
    d = g.decide(cases)
    assert d.readings[g.LEFT_OUT].verdict == "PASS"
    assert d.readings[g.LEFT_OUT].figures[0].p_value == pytest.approx(8 / 128)
    worst = d.readings[g.WORST]
    assert worst.verdict == "FAIL" and worst.n_paired == 40
    assert worst.figures[0].p_value == pytest.approx(12 / 2048)
    assert d.verdict == "INCONCLUSIVE" and d.code == "undecided-rows"


def test_an_undecided_outcome_in_a_counts_as_a_pass_there_in_the_worst_case() -> None:
    d = g.decide([C(f"s{i}", 1.0, 1.0) for i in range(30)] + [C("e", None, 0.0)], "strict")
    assert d.readings[g.WORST].broken == ["e"] and d.verdict == "INCONCLUSIVE"


def test_strict_ignores_flaky_cases_but_reports_them() -> None:
    cases = [C("a", 1.0, 0.0, flaky=True), C("b", 1.0, 1.0), C("c", 0.6, 0.2, flaky=True)]
    d = g.decide(cases, "strict")
    assert d.verdict == "PASS" and d.main.flaky_changed == ["a", "c"] and d.main.broken == []
    d = g.decide([*cases, C("d", 1.0, 0.0)], "strict")
    assert d.verdict == "FAIL" and d.main.broken == ["d"]


def test_regression_is_an_alias_of_strict() -> None:
    assert g.decide(_suite(), "regression").mode == "strict"
    with pytest.raises(ValueError):
        g.decide(_suite(), "sometimes")


def test_noninferior_and_never() -> None:
    big = _suite(same_pass=1500, same_fail=400, broken=40, fixed=60)
    assert g.decide(big, "noninferior", margin=0.02).verdict == "PASS"
    worse = _suite(same_pass=1500, same_fail=400, broken=160, fixed=20)
    assert g.decide(worse, "noninferior", margin=0.02).verdict == "FAIL"
    small = _suite(same_pass=15, same_fail=4, broken=1, fixed=1)
    assert g.decide(small, "noninferior", margin=0.02).verdict == "INCONCLUSIVE"
    assert g.decide(worse, "never").exit_code == 0


def test_noninferiority_uses_the_lower_end_of_the_two_sided_interval() -> None:
    cases = _suite(same_pass=300, same_fail=80, broken=14, fixed=6)
    ci = g.decide(cases, "never").main.figures[0].interval
    inside, outside = -ci.low + 0.001, -ci.low - 0.001
    assert g.decide(cases, "noninferior", margin=inside).verdict == "PASS"
    assert g.decide(cases, "noninferior", margin=outside).verdict != "PASS"


def test_scores_and_clusters_use_the_matching_t_test() -> None:
    cases = [C(f"s{i}", 0.5 + 0.01 * (i % 7), 0.48 + 0.01 * (i % 5)) for i in range(60)]
    assert g.decide(cases).main.figures[0].interval.method == "paired t (59 df)"
    clustered = [C(c.id, c.a, c.b, cluster=f"g{i % 6}") for i, c in enumerate(cases)]
    f = g.decide(clustered).main.figures[0]
    assert f.interval.method == "cluster-robust t (CR2), 6 clusters (5 df)" and f.mde_kind == "t"


def test_a_mean_score_drop_with_more_cases_up_than_down_fails() -> None:
    # The statistic shown is the mean; a sign test would see 20 up and 10 down and pass.
    rates = [C(f"c{i}", 1.0, 1.0) for i in range(30)]
    scores = [C(f"c{i}", 0.8, 0.84 if i < 20 else 0.4) for i in range(30)]
    d = g.decide({"pass rate": rates, "mean score": scores})
    assert d.verdict == "FAIL" and "mean score" in d.reason
    f = d.main.figures[1]
    assert f.interval.estimate == pytest.approx((20 * 0.04 - 10 * 0.4) / 30)
    assert f.interval.high < 0 and f.level == 0.025


def test_two_figures_split_alpha_unless_the_score_only_mirrors_the_pass_rate() -> None:
    rates = _suite(broken=9, fixed=1)
    mirror = [C(c.id, 0.4 + 0.6 * c.a, 0.4 + 0.6 * c.b) for c in rates]  # type: ignore[operator]
    d = g.decide({"pass rate": rates, "mean score": mirror})
    assert [f.gated for f in d.main.figures] == [True, False]
    assert d.main.figures[0].level == 0.05 and d.main.figures[1].follows == "pass rate"
    own = [C(c.id, 0.5, 0.5 + (0.1 if i % 2 else -0.1)) for i, c in enumerate(rates)]
    d = g.decide({"pass rate": rates, "mean score": own})
    assert [f.level for f in d.main.figures] == [0.025, 0.025]
    assert [f.p_adjusted for f in d.main.figures] == pytest.approx(
        [min(1, 2 * min(f.p_value for f in d.main.figures)), max(f.p_value for f in d.main.figures)]
    )


def test_no_case_scored_in_both_is_never_a_pass() -> None:
    d = g.decide([C("a", None, None)])
    assert d.verdict == "INCONCLUSIVE" and d.readings[g.LEFT_OUT].n_paired == 0
    assert d.code == "nothing-compared"


def test_cases_missing_from_b_are_undecided_and_never_pass() -> None:
    # B was killed after 32 of 40 cases that all passed in A: the worst case for the 8 it
    # never ran is a FAIL at p = 1/256, so the gate cannot say PASS.
    ran = [C(f"s{i}", 1.0, 1.0) for i in range(32)]
    missing = [C(f"m{i}", 1.0, None, missing=True) for i in range(8)]
    d = g.decide(ran + missing)
    assert d.verdict == "INCONCLUSIVE" and d.exit_code == 3
    assert d.readings[g.WORST].verdict == "FAIL" and d.n_missing == 8
    assert "8 missing from B" in d.reason and "missing rows decide it" in d.reason
    assert d.readings[g.WORST].figures[0].p_value == pytest.approx(1 / 256)
    assert d.spread["pass rate"] == pytest.approx((-0.2, 0.0))


def test_two_cases_over_three_epochs_cannot_pass() -> None:
    # A t test with 1 df and two cases could not fail whatever happened: that is no PASS,
    # and no detectable drop over 100 points is claimed.
    cases = [C("a", 1.0, 2 / 3, flaky=True), C("b", 2 / 3, 1.0, flaky=True)]
    d = g.decide({"pass rate": cases, "mean score": cases})
    assert d.verdict == "INCONCLUSIVE"
    f = d.main.figures[0]
    assert not f.can_fail and f.mde is None and f.mde_kind == "none"
    assert "could not fail at this n" in d.reason


def test_a_t_test_whose_80_percent_power_needs_over_100_points_claims_no_drop() -> None:
    # Six noisy case rates: a drop of 100 points would still be significant, but 80% power
    # needs about 118 points: "no drop this size", never "detects a drop of 192.3 points".
    cases = [C(f"c{i}", 0.05, 0.95) if i % 2 else C(f"c{i}", 0.95, 0.05) for i in range(6)]
    f = g.decide(cases).main.figures[0]
    assert f.can_fail and f.mde is None and f.mde_kind == "beyond" and f.max_drop == 1.0
    calmer = [C(c.id, 0.5, 0.5 + (c.b - c.a) / 3) for c in cases]  # type: ignore[operator]
    f = g.decide(calmer).main.figures[0]
    assert f.mde_kind == "t" and f.mde is not None and f.mde <= 1.0


def test_tiny_exact_suite_that_could_never_fail_is_inconclusive_even_unchanged() -> None:
    d = g.decide([C(f"a{i}", 1.0, 1.0) for i in range(4)])
    assert d.verdict == "INCONCLUSIVE" and "could not fail" in d.reason
    assert g.decide([C(f"a{i}", 1.0, 1.0) for i in range(5)]).verdict == "PASS"


def test_noninferiority_does_not_certify_fifty_tied_pairs_at_five_points() -> None:
    ties = [C(f"p{i}", 1.0, 1.0) for i in range(30)] + [C(f"f{i}", 0.0, 0.0) for i in range(20)]
    d = g.decide(ties, "noninferior", margin=0.05)
    assert d.verdict == "INCONCLUSIVE"
    ci = d.main.figures[0].interval
    assert ci.low <= -0.0713 and ci.high >= 0.0713


def test_an_interval_that_excludes_zero_never_stands_beside_a_pass() -> None:
    five = [C(f"a{i}", 1.0, 0.0) for i in range(5)]
    d = g.decide(five, alpha=0.01)
    assert d.verdict != "FAIL" and d.main.figures[0].interval.high >= 0.0
