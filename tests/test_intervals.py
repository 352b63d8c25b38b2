"""Paired intervals for B - A and the one-sided tests beside them, against published values.

Reference values from statsmodels 0.15.0 / scipy 1.17.1 (computed once, pasted here) and
from Fagerland, Lydersen & Laake, "Statistical Analysis of Contingency Tables" (2017).
"""

from __future__ import annotations

import random

import pytest

from evals.compare import intervals as iv

# Cavo et al. 2012, complete response before/after consolidation therapy, as the paired table
# [[59, 6], [16, 80]] in Fagerland et al. (2017), ch. 8, and the tests of their R package
# contingencytables: Newcombe square-and-add "-0.0621 (95% CI -0.1186 to -0.0046)", Tango
# score "-0.1240 to -0.0054", both for A - B. Here the difference is B - A, so the signs flip:
# n11 = 59, n10 = 6 (passed in A only), n01 = 16 (passed in B only), n00 = 80.
CAVO = (59, 6, 16, 80)


def test_newcombe_matches_published_example() -> None:
    ci = iv.newcombe_paired_interval(*CAVO, alpha=0.05)
    assert ci.estimate == pytest.approx(10 / 161)
    assert round(ci.low, 4) == 0.0046
    assert round(ci.high, 4) == 0.1186


def test_tango_matches_published_example() -> None:
    ci = iv.tango_interval(*CAVO, alpha=0.05)
    assert round(ci.low, 4) == 0.0054
    assert round(ci.high, 4) == 0.1240


@pytest.mark.parametrize(
    "table",
    [
        (1, 0, 0, 0),
        (0, 1, 0, 0),
        (0, 0, 1, 0),
        (0, 0, 0, 1),
        (50, 0, 0, 0),
        (25, 0, 0, 25),
        (0, 3, 0, 0),
    ],
)
def test_paired_intervals_never_zero_width(table: tuple[int, int, int, int]) -> None:
    for fn in (iv.newcombe_paired_interval, iv.tango_interval):
        ci = fn(*table, alpha=0.05)
        assert ci.low < ci.high
        assert -1.0 <= ci.low <= ci.estimate <= ci.high <= 1.0


def test_newcombe_all_ties_is_symmetric_and_narrows_with_n() -> None:
    w = [iv.newcombe_paired_interval(n, 0, 0, n).width for n in (5, 25, 100)]
    assert w[0] > w[1] > w[2] > 0
    ci = iv.newcombe_paired_interval(25, 0, 0, 25)
    assert ci.low == pytest.approx(-ci.high)


def test_interval_level_follows_alpha() -> None:
    wide = iv.newcombe_paired_interval(*CAVO, alpha=0.01)
    narrow = iv.newcombe_paired_interval(*CAVO, alpha=0.2)
    assert wide.level == 0.99 and narrow.level == pytest.approx(0.8)
    assert wide.low < narrow.low < narrow.high < wide.high


# Cluster data: numpy default_rng(1), normal(size=37).round(3) and integers(0, 6, 37).
# Reference: CR2 and its Bell-McCaffrey df computed from the general matrix definitions
# (numpy: A_g = (I - H_gg)^(-1/2), V = (X'X)^-1 sum X_g' A_g e_g e_g' A_g X_g (X'X)^-1, and
# Satterthwaite's df from the eigenvalues of G'G, Imbens & Kolesar 2016 eq. 11), and scipy's t
# with that fractional df.
D = [0.346, 0.822, 0.33, -1.303, 0.905, 0.446, -0.537, 0.581, 0.365, 0.294, 0.028, 0.547,
     -0.736, -0.163, -0.482, 0.599, 0.04, -0.292, -0.782, -0.257, 0.008, -0.276, 1.294, 1.007,
     -2.711, -1.889, -0.175, -0.422, 0.214, 0.217, 2.118, -1.112, -0.378, 2.043, 0.647, 0.663,
     -0.514]  # fmt: skip
CL = [5, 2, 2, 0, 2, 3, 4, 5, 1, 3, 4, 1, 2, 5, 3, 3, 4, 3, 5, 4, 0, 0, 3, 4, 0, 4, 4, 4, 5, 1,
      3, 4, 2, 1, 2, 0, 1]  # fmt: skip


def test_cluster_robust_interval_is_cr2_with_bell_mccaffrey_df() -> None:
    ci = iv.paired_diff_interval([0.0] * len(D), D, [str(c) for c in CL], alpha=0.05)
    assert ci.se == pytest.approx(0.21065571454558105, rel=1e-12)
    assert ci.df == pytest.approx(4.699870557280521, rel=1e-12) and ci.n_clusters == 6
    assert ci.p_value == pytest.approx(0.571574144175949, rel=1e-9)
    assert ci.low == pytest.approx(-0.5119407152615628, rel=1e-9)
    assert ci.high == pytest.approx(0.592210985531833, rel=1e-9)


def test_paired_t_matches_scipy() -> None:
    ci = iv.paired_diff_interval([0.0] * len(D), D, alpha=0.05)
    # scipy.stats.ttest_1samp(d, 0, alternative="less").pvalue
    assert ci.p_value == pytest.approx(0.6017717276754813, rel=1e-9)
    assert ci.df == 36
    # The one-sided bound is the dual of the one-sided test.
    assert (ci.upper_one_sided < 0) == (ci.p_value < 0.05)


def test_equal_clusters_equal_t_test_on_cluster_means() -> None:
    rng = random.Random(3)
    d = [rng.gauss(0, 1) for _ in range(40)]
    keys = [str(i // 10) for i in range(40)]
    means = [sum(d[i : i + 10]) / 10 for i in range(0, 40, 10)]
    clustered = iv.paired_diff_interval([0.0] * 40, d, keys)
    on_means = iv.paired_diff_interval([0.0] * 4, means)
    assert clustered.se == pytest.approx(on_means.se)
    assert clustered.p_value == pytest.approx(on_means.p_value)


def test_paired_diff_interval_falls_back_instead_of_zero_width() -> None:
    one = iv.paired_diff_interval([1.0], [0.0])
    assert one.width > 0 and "tango" in one.method and one.p_value == 0.5
    ties = iv.paired_diff_interval([1.0] * 30 + [0.0] * 20, [1.0] * 30 + [0.0] * 20)
    assert ties.width > 0 and ties.low < 0 < ties.high and ties.p_value == 1.0
    shifted = iv.paired_diff_interval([0.5] * 50, [0.3] * 50)  # scores, all moved by -0.2
    assert shifted.low < -0.2 < shifted.high and shifted.p_value < 0.05
    with pytest.raises(ValueError):
        iv.paired_diff_interval([5.0, 5.0], [3.0, 3.0])  # unbounded and no variance
    with pytest.raises(ValueError):
        iv.paired_diff_interval([1.0, 0.0], [0.0, 0.0], ["x", "x"])  # one cluster


def test_effect_interval_binary_unclustered_is_tango_with_exact_mcnemar() -> None:
    a = [1.0] * 10 + [0.0] * 4
    b = [0.0] * 8 + [1.0] * 2 + [1.0] * 2 + [0.0] * 2
    ci = iv.effect_interval(a, b)
    assert ci.method == "tango + exact McNemar"
    assert (ci.mcnemar.broken, ci.mcnemar.fixed) == (8, 2)
    assert ci.p_value == ci.mcnemar.p_value
    assert ci.estimate == pytest.approx(-6 / 14)


def test_effect_interval_with_one_cluster_counts_cases_as_independent_and_says_so() -> None:
    ci = iv.effect_interval([1.0, 1.0, 0.0], [0.0, 1.0, 0.0], ["doc", "doc", "doc"])
    assert ci.mcnemar is not None and "one cluster" in ci.method
    clustered = iv.effect_interval([1.0, 1.0, 1.0, 0.0], [0.0, 0.0, 1.0, 0.0], ["x", "x", "y", "y"])
    assert clustered.df == 1 and clustered.mcnemar is None


def test_few_clusters_give_an_interval_clipped_to_the_possible_range() -> None:
    # Two clusters, one df: t = 12.7 and the half-width is 6.35; no change can pass +-1.
    ci = iv.effect_interval([1.0, 1.0, 1.0, 0.0], [0.0, 0.0, 1.0, 0.0], ["x", "x", "y", "y"])
    assert (ci.low, ci.estimate, ci.high) == (-1.0, -0.5, 1.0)
    assert ci.p_value == pytest.approx(0.25)  # t = -1 with 1 df: 1/2 - atan(1)/pi


def test_holm_matches_statsmodels() -> None:
    # statsmodels.stats.multitest.multipletests(p, method="holm")[1]
    assert iv.holm([0.01, 0.04, 0.03, 0.005, 0.2, 0.049]) == pytest.approx(
        [0.05, 0.12, 0.12, 0.03, 0.2, 0.12]
    )
    assert iv.holm([0.02, 0.02, 0.5, 0.001]) == pytest.approx([0.06, 0.06, 0.5, 0.004])
    assert iv.holm([]) == []
