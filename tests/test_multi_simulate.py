"""The family-wise error rates of `compare`, by seeded simulation: with 2, 4 and 8 unchanged
candidates the chance that any is called worse stays at or under alpha (+1 point of Monte
Carlo slack), and one truly worse candidate among unchanged ones is still found."""

from __future__ import annotations

import pytest

from evals.multi.simulate import simulate_family

ALPHA = 0.05


@pytest.mark.parametrize("m", [2, 4, 8])
def test_with_m_unchanged_candidates_any_false_alarm_is_at_most_alpha(m: int) -> None:
    res = simulate_family(m, "independent", reps=400, alpha=ALPHA)
    assert res.family_false_alarm <= ALPHA + 0.01, res


def test_without_holm_eight_separate_diffs_raise_false_alarms_well_past_alpha() -> None:
    # The same draws gated at alpha each, as eight `invoke diff` runs would be: what the
    # correction is for (and proof that the simulation can see a family-wise excess).
    res = simulate_family(8, "independent", reps=200, alpha=ALPHA, holm=False)
    assert res.family_false_alarm > 2 * ALPHA, res


def test_clustered_unchanged_candidates_keep_the_family_rate() -> None:
    res = simulate_family(4, "clustered", reps=300, alpha=ALPHA, seed=7)
    assert res.family_false_alarm <= ALPHA + 0.01, res


def test_flaky_cases_do_not_raise_the_family_rate() -> None:
    res = simulate_family(4, "flaky", reps=300, alpha=ALPHA, seed=11)
    assert res.family_false_alarm <= ALPHA + 0.01, res


def test_one_truly_worse_candidate_among_three_unchanged_is_found_most_of_the_time() -> None:
    # A drop of 1 on the logit scale is about 13 points of pass rate on these 200 cases.
    res = simulate_family(4, "independent", reps=300, alpha=ALPHA, drop=1.0, seed=3)
    assert res.power is not None and res.power >= 0.8, res
    assert res.family_false_alarm <= ALPHA + 0.01, res


def test_a_smaller_drop_is_found_less_often_so_the_power_figure_is_not_constant() -> None:
    weak = simulate_family(4, "independent", reps=200, alpha=ALPHA, drop=0.3, seed=3)
    assert weak.power is not None and weak.power < 0.5, weak
