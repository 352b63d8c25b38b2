"""Paired statistics against values computed by hand and against known results."""

from __future__ import annotations

import math
import random
import statistics

import pytest

from evals.compare import resample, stats


def test_mcnemar_b10_c2_is_the_textbook_exact_p() -> None:
    # 2 * (C(12,0) + C(12,1) + C(12,2)) / 2**12 = 2 * 79 / 4096
    r = stats.mcnemar_exact(10, 2)
    assert r.p_value == 0.03857421875
    assert stats.mcnemar_exact(2, 10).p_value == 0.03857421875
    assert r.n_discordant == 12


def test_mcnemar_small_and_empty_cases() -> None:
    assert stats.mcnemar_exact(5, 0).p_value == 2 / 32
    assert stats.mcnemar_exact(3, 3).p_value == 1.0
    assert stats.mcnemar_exact(0, 0).p_value is None  # no discordant pairs: no test
    with pytest.raises(ValueError):
        stats.mcnemar_exact(-1, 2)


def test_binomial_p_matches_the_sum_of_binomial_coefficients() -> None:
    for k, n in ((0, 1), (3, 7), (4, 8), (40, 101), (4_990, 10_000)):
        m = min(k, n - k)
        expected = min(1.0, 2 * sum(math.comb(n, i) for i in range(m + 1)) / 2**n)
        assert stats.binomial_two_sided_p(k, n) == expected


def test_sign_test_drops_ties_and_counts_directions() -> None:
    r = stats.sign_test([0.1, 0.2, -0.1, 0.0, 0.3, 0.4])
    assert (r.n_up, r.n_down, r.n_ties) == (4, 1, 1)
    assert r.p_value == pytest.approx(2 * (1 + 5) / 32)  # 0.375
    assert stats.sign_test([0.0, 1e-12]).p_value is None
    assert stats.sign_test([-0.5] * 8).p_value == pytest.approx(2 / 256)


def test_bootstrap_ci_is_reproducible_with_its_seed_and_contains_the_mean() -> None:
    rng = random.Random(1)
    diffs = [rng.choice([-1.0, 0.0, 0.0, 0.0, 1.0, 0.5]) for _ in range(300)]
    one = stats.paired_bootstrap_ci(diffs, seed=7)
    two = stats.paired_bootstrap_ci(diffs, seed=7)
    assert one == two
    assert resample.bootstrap_means(diffs, 100, 7) != resample.bootstrap_means(diffs, 100, 8)
    assert one.low < one.mean < one.high
    assert one.resamples == 10_000 and one.seed == 7 and one.n == 300
    assert one.mean == pytest.approx(statistics.fmean(diffs))


def test_bootstrap_of_a_constant_is_that_constant() -> None:
    ci = stats.paired_bootstrap_ci([0.25] * 40)
    assert (ci.low, ci.mean, ci.high) == (0.25, 0.25, 0.25)


def _draws(seed: int, n: int, draw) -> list[float]:
    rng = random.Random(seed)
    return [draw(rng) for _ in range(n)]


@pytest.mark.parametrize(
    "name,values",
    [
        # few distinct values: multinomial counts
        ("multinomial", _draws(2, 2000, lambda r: r.choice([-1.0, 0.0, 0.0, 1.0]))),
        # a few hundred distinct values in many cases: thinned Poisson counts topped up
        ("poisson", _draws(3, 6000, lambda r: round(r.gauss(0.3, 0.2), 2))),
        # all values distinct: plain draws
        # every case its own value: one Poisson table per value
        ("poisson", _draws(4, 300, lambda r: r.random() - 0.2)),
        # a handful of distinct values: plain draws
        ("direct", _draws(5, 12, lambda r: r.random() - 0.2)),
    ],
)
def test_every_sampler_has_the_bootstrap_distribution_of_the_mean(name: str, values: list) -> None:
    """The resampled means must centre on the mean with sd = population sd / sqrt(n)."""
    assert resample.choose_sampler(len(values), len(set(values))) == name
    means = resample.bootstrap_means(values, 10_000, seed=11)
    n = len(values)
    m = statistics.fmean(values)
    expected_sd = statistics.pstdev(values) / math.sqrt(n)
    assert statistics.fmean(means) == pytest.approx(m, abs=4 * expected_sd / 100)
    # The sd of 10,000 resampled means is within a few percent of the theoretical figure.
    assert statistics.stdev(means) == pytest.approx(expected_sd, rel=0.04)


def test_binomial_variate_has_the_right_mean_and_variance() -> None:
    rng = random.Random(3)
    for n, p in ((50, 0.1), (5000, 0.3), (5000, 0.9)):
        draws = [resample.binomial_variate(rng.random, n, p) for _ in range(20_000)]
        assert statistics.fmean(draws) == pytest.approx(n * p, rel=0.01)
        assert statistics.variance(draws) == pytest.approx(n * p * (1 - p), rel=0.05)
        assert min(draws) >= 0 and max(draws) <= n


def test_clustered_se_by_hand() -> None:
    # mean 0.5; cluster residual sums a: +1, b: -1; sqrt(2/1 * 2) / 4 = 0.5
    r = stats.clustered_se([1, 1, 0, 0], ["a", "a", "b", "b"])
    assert r.se == pytest.approx(0.5)
    assert r.naive_se == pytest.approx(math.sqrt(1 / 3) / 2)
    assert r.n_clusters == 2
    # mean 0.6; sums a: 0.4-0.6 = -0.2, b: 0.4, c: -0.2; sqrt(3/2 * 0.24) / 5 = 0.12
    r = stats.clustered_se([1, 0, 1, 0, 1], ["a", "a", "b", "c", "c"])
    assert r.se == pytest.approx(0.12)
    assert stats.clustered_se([1, 0], ["a", "a"]) is None  # one cluster: no estimate


def test_mde_for_scores_is_the_normal_formula() -> None:
    # (z_0.975 + z_0.8) * sd / sqrt(n) = (1.959964 + 0.841621) * 0.5 / 10
    assert stats.mde_mean(100, 0.5) == pytest.approx(0.1400793, abs=1e-6)
    assert stats.mde_mean(100, 0.0) is None


def test_mde_for_pass_rates_inverts_connors_sample_size() -> None:
    # Connor (1987): detecting 10 points with 20% discordant pairs needs
    # n = (1.96 * sqrt(0.2) + 0.8416 * sqrt(0.2 - 0.01))**2 / 0.01 = 154.6 pairs.
    assert stats.mde_paired_binary(155, 0.2) == pytest.approx(0.0999, abs=0.0005)
    # 20 cases are a smoke test: only changes of 30+ points are detectable.
    assert stats.mde_paired_binary(20, 0.0) > 0.30
    assert stats.mde_paired_binary(10_000, 0.05) < 0.01
    assert stats.mde_paired_binary(0, 0.1) is None


def test_quantile_interpolates_linearly() -> None:
    assert stats.quantile([0.0, 1.0, 2.0, 3.0], 0.5) == 1.5
    assert stats.quantile([0.0, 10.0], 0.025) == pytest.approx(0.25)


def test_many_distinct_differences_are_binned_finely_and_the_interval_stays_right() -> None:
    rng = random.Random(6)
    diffs = [rng.gauss(0.01, 0.05) for _ in range(10_000)]  # every case its own difference
    ci = stats.paired_bootstrap_ci(diffs)
    assert ci.grid is not None and ci.grid <= 0.01
    m, se = statistics.fmean(diffs), statistics.stdev(diffs) / 100
    # The percentile interval is the normal one up to the Monte Carlo error of 10,000 resamples
    # (about 1% of its width; exact resampling with other seeds varies as much).
    assert ci.low == pytest.approx(m - 1.96 * se, abs=0.02 * 3.92 * se)
    assert ci.high == pytest.approx(m + 1.96 * se, abs=0.02 * 3.92 * se)
    assert ci.mean == m
    few = [rng.choice([-0.5, 0.0, 0.25, 1.0]) for _ in range(10_000)]
    assert stats.paired_bootstrap_ci(few).grid is None  # exact when it is cheap


class _FirstCellOnly(random.Random):
    """A generator whose 16-bit cells are all 0, to look inside one straddling cell."""

    def randbytes(self, n: int) -> bytes:
        return bytes(n)


def test_table_draws_split_a_straddling_cell_by_the_exact_probability() -> None:
    # The step from output 0 to 1 lies a quarter into cell 0: a quarter of its draws give 0.
    draws = resample._table_draws(_FirstCellOnly(12), [0, 1], [0.25 / 65536, 1.0], 20_000)
    assert draws.count(0) == pytest.approx(5_000, abs=300)  # sd 61
    assert draws.count(1) == 20_000 - draws.count(0)
    # A cell inside one step needs no refinement.
    assert set(resample._table_draws(_FirstCellOnly(12), [7, 9], [0.5, 1.0], 100)) == {7}
